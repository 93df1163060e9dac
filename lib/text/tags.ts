// Hashtag names as stored and keyed. Apart from ./status.ts (which finds hashtags in a status
// text with twitter-text) so that what only compares or looks up tags does not carry that parser.

/** Hashtag names as stored and keyed: NFKC, lower-cased. */
export const normalizeTag = (tag: string) => tag.normalize('NFKC').toLowerCase();

/**
 * The characters of a hashtag after its sign, as twitter-text takes them: letters, marks, digits, the
 * underscore and a few joiners and middle dots.
 */
const TAG_CHAR = '[\\p{L}\\p{M}\\p{N}_\\u200c\\u200d\\ua67e\\u05be\\u05f3\\u05f4\\uff5e\\u301c\\u309b\\u309c\\u30a0\\u30fb\\u3003\\u0f0b\\u0f0c\\u00b7]';
/**
 * A hashtag as twitter-text finds one: after the start, a character that is none of these nor `&`, or an
 * emoji's variation selector; all the tag characters that follow, and then neither another sign nor `://`.
 */
const TAG_RUN = new RegExp(`(?<=^|[^\\p{L}\\p{M}\\p{N}_&]|[\\ufe0e\\ufe0f])[#＃](${TAG_CHAR}+)(?!${TAG_CHAR}|[#＃]|://)`, 'gu');

/** Whether a word of a text (no whitespace) is or holds a link: a scheme, or a domain followed by a path. */
const LINKISH = /:\/\/|\.\p{L}{2,}\//u;

/**
 * Each of a remote status's tags (as stored: normalizeTag) as its text first spells it, for the tags' display
 * names: the first hashtag outside a link whose name normalises to the tag; a tag not found keeps its stored
 * name. A remote status's tags come from its ActivityPub `tag` list, not from a parse of its text (Mastodon
 * names them from that list), and its server writes each as a hashtag link, `#Tag`, in the content, so this
 * reads the text as the hashtags' links leave it. It is linear in the text, which may be 100,000 characters
 * written to be costly: words are tested one at a time (a regular expression over the whole text that found
 * links spanning words backtracked quadratically, 9 s on `a.a.a…`), and twitter-text, which a local status's
 * names come from (lib/text/status.ts tagDisplayNames, on at most 2,500 characters), is no faster on such text.
 */
export function tagNamesWritten(text: string, tags: readonly string[]): Map<string, string> {
  const wanted = new Set(tags);
  const names = new Map<string, string>();
  if (wanted.size === 0) return names;
  const words = text.split(/(\s+)/).map((word) => (LINKISH.test(word) ? ' ' : word));
  for (const [, run] of words.join('').matchAll(TAG_RUN)) {
    const tag = normalizeTag(run!);
    if (wanted.has(tag) && !names.has(tag)) names.set(tag, run!);
  }
  return names;
}
