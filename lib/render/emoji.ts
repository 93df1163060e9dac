// CustomEmoji entity (https://docs.joinmastodon.org/entities/CustomEmoji/) and
// the `emojis` of statuses and accounts: the known emoji whose `:shortcode:`
// the text uses, in order of first use. Callers read the emoji items in their
// own batch read (keys.emoji of `shortcodesIn(texts)`).
import type { Emoji } from '../db/emojis';
import { mediaUrl } from '../media/storage';

const SHORTCODE_IN_TEXT = /:([a-zA-Z0-9_]{2,}):/g;

export function renderEmoji(emoji: Emoji) {
  return {
    shortcode: emoji.shortcode,
    url: mediaUrl(emoji.key),
    static_url: mediaUrl(emoji.staticKey),
    visible_in_picker: emoji.visibleInPicker,
    category: emoji.category,
  };
}

/** The distinct `:shortcode:`s of some texts, in order of first use. */
export function shortcodesIn(texts: string[]): string[] {
  return [...new Set(texts.flatMap((t) => [...t.matchAll(SHORTCODE_IN_TEXT)].map((m) => m[1] ?? '')))].filter(Boolean);
}

/** The emojis some texts use, rendered, from the emoji items the caller read. */
export const emojisFor = (texts: string[], known: Map<string, Emoji>) =>
  shortcodesIn(texts).flatMap((s) => {
    const e = known.get(s);
    return e ? [renderEmoji(e)] : [];
  });
