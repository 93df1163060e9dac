// Hashtag names as stored and keyed. Apart from ./status.ts (which finds hashtags in a status
// text with twitter-text) so that what only compares or looks up tags does not carry that parser.

/** Hashtag names as stored and keyed: NFKC, lower-cased. */
export const normalizeTag = (tag: string) => tag.normalize('NFKC').toLowerCase();
