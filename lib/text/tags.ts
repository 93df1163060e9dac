// Hashtag names as stored and keyed, and as a status spells them. Apart from ./status.ts (which finds hashtags
// in a status text with twitter-text) so that what only compares or looks up tags does not carry that parser.

/** Hashtag names as stored and keyed: NFKC, lower-cased. */
export const normalizeTag = (tag: string) => tag.normalize('NFKC').toLowerCase();

/**
 * A status's tags from their spellings in order of use: each tag once, as stored and keyed (`tags`), and as the
 * status first spells it (`tagNames`, same order), which names the tag where it is first used (its display
 * name, lib/db/tags.ts). Made where the status is written: posting and editing from the parse of the text, the
 * inbox from the Note's Hashtag tags, so nothing reads the text again for them.
 */
export function tagged(spellings: Iterable<string>, max = Infinity): { tags: string[]; tagNames: string[] } {
  const names = new Map<string, string>();
  for (const spelling of spellings) {
    const tag = normalizeTag(spelling);
    if (!names.has(tag) && names.size < max) names.set(tag, spelling);
  }
  return { tags: [...names.keys()], tagNames: [...names.values()] };
}

/** A stored status's tags by stored name, each with its spelling (a status stored before the spellings were: its stored name). */
export function tagNamesOf(status: { tags: readonly string[]; tagNames?: readonly string[] }): Map<string, string> {
  const spelled = status.tagNames?.length === status.tags.length ? status.tagNames : status.tags;
  return new Map(status.tags.map((tag, i) => [tag, spelled[i]!]));
}
