// CustomEmoji entity (https://docs.joinmastodon.org/entities/CustomEmoji/) and
// the `emojis` of statuses and accounts: the known emoji whose `:shortcode:`
// the text uses, in order of first use. Callers read the emoji items in their
// own batch read (keys.emoji of `shortcodesIn(texts)`).
import type { Emoji, RemoteEmoji } from '../db/emojis';
import { mediaUrl } from '../media/storage';

// Shortcodes are at most 100 characters (lib/emojis): a longer run between colons is
// no emoji, and must not become a DynamoDB key (1 KB at most) in a render's batch read.
const SHORTCODE_IN_TEXT = /:([a-zA-Z0-9_]{2,100}):/g;

/**
 * The emoji one entity (a status's texts; an account's name and note) is rendered
 * with: the first 20 shortcodes it uses. Mastodon sets no number, but each emoji is
 * about 280 bytes of JSON, and a 500-character text can name over a hundred: with
 * no bound a reblog outgrows API Gateway's 128 KB WebSocket frame, and one page of
 * such statuses would cost thousands of emoji reads. Later shortcodes stay text.
 */
export const MAX_EMOJIS_PER_ENTITY = 20;

export function renderEmoji(emoji: Emoji) {
  return {
    shortcode: emoji.shortcode,
    url: mediaUrl(emoji.key),
    static_url: mediaUrl(emoji.staticKey),
    visible_in_picker: emoji.visibleInPicker,
    category: emoji.category,
  };
}

/**
 * The `emojis` of a remote status or account: its server's emoji, stored with it (lib/federation/emoji_tags.ts),
 * shown from their server; ours are never looked up for it, as Mastodon scopes shortcodes by domain.
 */
export const renderRemoteEmojis = (emojis: RemoteEmoji[] | undefined) =>
  (emojis ?? []).map((e) => ({ shortcode: e.shortcode, url: e.url, static_url: e.url, visible_in_picker: false }));

/** The distinct `:shortcode:`s of one entity's texts, in order of first use, at most MAX_EMOJIS_PER_ENTITY. */
export function shortcodesIn(texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(SHORTCODE_IN_TEXT)) {
      if (found.size >= MAX_EMOJIS_PER_ENTITY) return [...found];
      if (match[1]) found.add(match[1]);
    }
  }
  return [...found];
}

/** The shortcodes of several entities, each bounded on its own, for one batch read. */
export const shortcodesOfEach = (entities: string[][]): string[] => [...new Set(entities.flatMap(shortcodesIn))];

/** The emojis some texts use, rendered, from the emoji items the caller read. */
export const emojisFor = (texts: string[], known: Map<string, Emoji>) =>
  shortcodesIn(texts).flatMap((s) => {
    const e = known.get(s);
    return e ? [renderEmoji(e)] : [];
  });
