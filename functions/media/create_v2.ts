// POST /api/v2/media (https://docs.joinmastodon.org/methods/media/#v2): 200 once processed, 202 with `url` null
// while processing. Every file is processed within the request here, so the answer is always 200.
import { http, json, type Ctx } from '../../lib/http';
import { throttles } from '../../lib/http/ratelimit';
import { createAttachment, MEDIA_BODY_LIMITS, mediaCreateInput, type MediaCreateInput } from '../../lib/media/attachments';
import { renderAttachment } from '../../lib/render/attachment';

export async function run(input: MediaCreateInput, ctx: Ctx<'user'>) {
  const media = await createAttachment(ctx.account, input);
  return json(renderAttachment(media), media.state === 'processing' ? 202 : 200);
}

export const handler = http(run, { auth: 'user', scopes: ['write:media'], schema: mediaCreateInput, limits: MEDIA_BODY_LIMITS, throttles: [throttles.mediaUpload] });
