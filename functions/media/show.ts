// GET /api/v1/media/:id (https://docs.joinmastodon.org/methods/media/#get): own, unattached attachments only.
import type { z } from 'zod';
import { http, json, type Ctx } from '../../lib/http';
import { attachmentStatus, mediaIdInput, ownUnattachedMedia } from '../../lib/media/attachments';
import { renderAttachment } from '../../lib/render/attachment';

export async function run(input: z.infer<typeof mediaIdInput>, ctx: Ctx<'user'>) {
  const media = await ownUnattachedMedia(ctx.account, input.id);
  return json(renderAttachment(media), attachmentStatus(media));
}

export const handler = http(run, { auth: 'user', scopes: ['write:media'], schema: mediaIdInput });
