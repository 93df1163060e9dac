// DELETE /api/v1/media/:id (https://docs.joinmastodon.org/methods/media/#delete, Mastodon 4.4): an own attachment
// that no status uses, with its files; 422 while a status uses it, 404 for someone else's.
import type { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { deleteAttachment, mediaIdInput } from '../../lib/media/attachments';

export async function run(input: z.infer<typeof mediaIdInput>, ctx: Ctx<'user'>) {
  await deleteAttachment(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:media'], schema: mediaIdInput });
