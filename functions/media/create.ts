// POST /api/v1/media (https://docs.joinmastodon.org/methods/media/#v1): upload and process synchronously.
import { http, type Ctx } from '../../lib/http';
import { throttles } from '../../lib/http/ratelimit';
import { createAttachment, MEDIA_BODY_LIMITS, mediaCreateInput, type MediaCreateInput } from '../../lib/media/attachments';
import { renderAttachment } from '../../lib/render/attachment';

export async function run(input: MediaCreateInput, ctx: Ctx<'user'>) {
  return renderAttachment(await createAttachment(ctx.account, input));
}

export const handler = http(run, { auth: 'user', scopes: ['write:media'], schema: mediaCreateInput, limits: MEDIA_BODY_LIMITS, throttles: [throttles.mediaUpload] });
