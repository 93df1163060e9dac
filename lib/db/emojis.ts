// Local custom emoji: one item per shortcode in the EMOJIS partition (listed
// whole by GET /api/v1/custom_emojis; looked up by exact key when rendering).
import { z } from 'zod';
import { memo } from '../memo';
import * as keys from './keys';
import { batchGet, deleteItem, putItem, queryAll } from './table';

export const emojiItem = z.object({
  shortcode: z.string(),
  key: z.string(),
  staticKey: z.string(),
  category: z.string().nullable().default(null),
  visibleInPicker: z.boolean().default(true),
  createdAt: z.string(),
});
export type Emoji = z.infer<typeof emojiItem>;

/**
 * A custom emoji of another server, as a remote status or account carries it (an `Emoji` tag of its Note or
 * actor, lib/federation/emoji_tags.ts): stored on that item, never in the EMOJIS partition, which is ours.
 */
export const remoteEmoji = z.object({ shortcode: z.string(), url: z.string() });
export type RemoteEmoji = z.infer<typeof remoteEmoji>;

export const allEmojis = () =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.emojisPartition() } }, emojiItem);

const kept = memo(allEmojis);

/**
 * Every local emoji as read at most MEMO_TTL_MS ago in this container (lib/memo.ts), for GET
 * /api/v1/custom_emojis: adding or removing one here shows at once, elsewhere within the TTL. Frozen.
 */
export const recentEmojis = (): Promise<Emoji[]> => kept.get();

/** Adds an emoji; false when the shortcode is taken. */
export async function putEmoji(emoji: Emoji) {
  try {
    return await putItem({ ...keys.emoji(emoji.shortcode), ...emoji }, { ifAbsent: true });
  } finally {
    kept.forget();
  }
}

export async function deleteEmoji(shortcode: string) {
  try {
    return await deleteItem(keys.emoji(shortcode), emojiItem, { ConditionExpression: 'attribute_exists(PK)' });
  } finally {
    kept.forget();
  }
}

export async function emojisByShortcodes(shortcodes: string[]): Promise<Map<string, Emoji>> {
  const found = await batchGet(shortcodes.map((s) => keys.emoji(s)), emojiItem);
  return new Map([...found.values()].map((e) => [e.shortcode, e]));
}
