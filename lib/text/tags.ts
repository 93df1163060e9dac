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

/** Something a link (lib/text/status.ts) starts with or has: a scheme, or a domain followed by a path. */
const LINK = /(?:[\p{L}\p{N}+.-]+:\/\/|[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}\/)\S*/gu;

/**
 * Each of a status's tags (as stored: normalizeTag) as first written in its text, for the tags' display
 * names, without parsing the text again with twitter-text (the fan-out worker, which has the stored tags,
 * carries no twitter-text for this). A tag not found as written keeps its stored name; where a link runs
 * into a hashtag with no space between, a tag may keep another of its spellings in the text. A run of tag
 * characters that normalises to a stored tag is that tag as written: the stored tags came from
 * twitter-text's parse of this same text (lib/text/status.ts tagDisplayNames, which this agrees with:
 * test/integration/tag-display-names.test.ts).
 */
export function tagDisplayNamesIn(text: string, tags: readonly string[]): Map<string, string> {
  const wanted = new Set(tags);
  const names = new Map<string, string>();
  if (wanted.size === 0) return names;
  // A "#" inside a link (https://example.com/#Tag, example.com/#Tag) is no hashtag: links go first.
  for (const [, run] of text.replace(LINK, ' ').matchAll(TAG_RUN)) {
    const tag = normalizeTag(run!);
    if (wanted.has(tag) && !names.has(tag)) names.set(tag, run!);
  }
  return names;
}
