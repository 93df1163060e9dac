// qs's parser alone (lib/http/body.ts): the package's index also carries its stringifier, which
// nothing here uses and a bundle cannot drop from CommonJS. The type is the index's `parse`.
declare module 'qs/lib/parse.js' {
  export { parse as default } from 'qs';
}
