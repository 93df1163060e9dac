// PUT /api/v1/media/:id (https://docs.joinmastodon.org/methods/media/#update): description and focus of an
// own attachment, only while it is not attached to a status (Mastodon 3.5: attached ones are 404).
import { http, json, type Ctx } from '../../lib/http';
import { attachmentStatus, MEDIA_BODY_LIMITS, mediaUpdateInput, updateAttachment, type MediaUpdateInput } from '../../lib/media/attachments';
import { renderAttachment } from '../../lib/render/attachment';

export async function run(input: MediaUpdateInput, ctx: Ctx<'user'>) {
  const media = await updateAttachment(ctx.account, input);
  return json(renderAttachment(media), attachmentStatus(media));
}

export const handler = http(run, { auth: 'user', scopes: ['write:media'], schema: mediaUpdateInput, limits: MEDIA_BODY_LIMITS });
