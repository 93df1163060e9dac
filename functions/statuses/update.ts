// PUT /api/v1/statuses/:id (https://docs.joinmastodon.org/methods/statuses/#edit): the author edits its
// status; the body is the new version whole, as Mastodon's (lib/statuses/edit.ts).
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { mediaUpdateInput } from '../../lib/media/attachments';
import { renderStatus } from '../../lib/render/status';
import { absent, booleanish, intString } from '../../lib/schema';
import { editStatus } from '../../lib/statuses/edit';
import { cappedText, COUNTED_LIMITS, RAW_CAPS } from '../../lib/text/limits';

const mediaId = z.string({ invalid_type_error: 'must be a string' }).max(20, 'is not a valid id');
/** One `media_attributes[]` entry: an attachment of the status, its new description and focus ("x,y"). */
const mediaAttribute = mediaUpdateInput.pick({ id: true, description: true, focus: true });

export const schema = z.object({
  id: z.string(),
  status: absent(cappedText(RAW_CAPS.statusText, COUNTED_LIMITS.statusCharacters)),
  spoiler_text: absent(cappedText(RAW_CAPS.spoilerText, COUNTED_LIMITS.statusCharacters)),
  sensitive: absent(booleanish),
  language: absent(z.string({ invalid_type_error: 'must be a string' }).max(10)),
  media_ids: z
    .preprocess((v) => (typeof v === 'string' ? [v] : v === null ? undefined : v), z.array(mediaId, { invalid_type_error: 'must be an array' }).max(20).optional())
    .default([]),
  media_attributes: absent(z.array(mediaAttribute, { invalid_type_error: 'must be an array' }).max(20)),
  poll: absent(
    z.object(
      {
        options: absent(z.array(cappedText(RAW_CAPS.pollOption, COUNTED_LIMITS.pollOptionCharacters), { invalid_type_error: 'must be an array' }).max(RAW_CAPS.pollOptionCount)),
        expires_in: absent(intString),
        multiple: absent(booleanish),
        hide_totals: absent(booleanish),
      },
      { invalid_type_error: 'must be an object' },
    ),
  ),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const status = await editStatus(ctx.account, input.id, {
    status: input.status,
    spoilerText: input.spoiler_text ?? '',
    sensitive: input.sensitive,
    language: input.language,
    mediaIds: input.media_ids,
    mediaAttributes: input.media_attributes,
    poll: input.poll && { options: input.poll.options, expiresIn: input.poll.expires_in, multiple: input.poll.multiple ?? false, hideTotals: input.poll.hide_totals ?? false },
  });
  return renderStatus(status, ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
