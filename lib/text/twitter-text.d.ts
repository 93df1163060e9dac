// twitter-text's extractors, imported one file each (lib/text/status.ts, lib/text/tokenize.ts): the package's
// index carries its whole library (auto-linking, validation, twemoji), of which we use three functions. Their types are those @types/twitter-text gives the index.
declare module 'twitter-text/dist/extractUrlsWithIndices.js' {
  export { extractUrlsWithIndices as default } from 'twitter-text';
}
declare module 'twitter-text/dist/extractMentionsWithIndices.js' {
  export { extractMentionsWithIndices as default } from 'twitter-text';
}
declare module 'twitter-text/dist/extractHashtagsWithIndices.js' {
  export { extractHashtagsWithIndices as default } from 'twitter-text';
}
