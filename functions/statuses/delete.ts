// DELETE /api/v1/statuses/:id (https://docs.joinmastodon.org/methods/statuses/#delete)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { throttles } from '../../lib/http/ratelimit';
import { deleteReleasedMedia } from '../../lib/media/attachments';
import { renderStatus } from '../../lib/render/status';
import { booleanish } from '../../lib/schema';
import { deleteStatus, ownStatus } from '../../lib/statuses/delete';

// `delete_media` (Mastodon 4.4): the attachments go at once rather than stay for a redraft.
export const schema = z.object({ id: z.string(), delete_media: booleanish.optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const status = await ownStatus(ctx.account, input.id);
  // Rendered before the delete, with the source `text`, attachments and poll, for delete-and-redraft.
  const rendered = await renderStatus(status, ctx.account, { withSource: true });
  await deleteStatus(ctx.account, status);
  if (input.delete_media) await deleteReleasedMedia(ctx.account, status.mediaIds);
  return rendered;
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema, throttles: [throttles.statusDelete] });
