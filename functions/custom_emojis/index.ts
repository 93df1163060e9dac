// GET /api/v1/custom_emojis (https://docs.joinmastodon.org/methods/custom_emojis/#get)
import { z } from 'zod';
import { recentEmojis } from '../../lib/db/emojis';
import { http } from '../../lib/http';
import { renderEmoji } from '../../lib/render/emoji';

export async function run() {
  const emojis = await recentEmojis();
  return emojis.map(renderEmoji);
}

export const handler = http(run, { auth: 'public', schema: z.object({}) });
