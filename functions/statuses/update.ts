// PUT /api/v1/statuses/:id (https://docs.joinmastodon.org/methods/statuses/#edit): the author edits its
// status; the body is the new version whole, as Mastodon's (lib/statuses/edit.ts).
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { mediaUpdateInput } from '../../lib/media/attachments';
import { renderStatus } from '../../lib/render/status';
import { absent } from '../../lib/schema';
import { editStatus } from '../../lib/statuses/edit';
import { statusInputFields } from '../../lib/statuses/input';
import { quotePolicies } from '../../lib/db/statuses';

/** One `media_attributes[]` entry: an attachment of the status, its new description and focus ("x,y"). */
const mediaAttribute = mediaUpdateInput.pick({ id: true, description: true, focus: true });

export const schema = z.object({
  id: z.string(),
  ...statusInputFields,
  media_attributes: absent(z.array(mediaAttribute, { invalid_type_error: 'must be an array' }).max(20)),
  quote_approval_policy: absent(z.enum(quotePolicies, { errorMap: () => ({ message: 'is not a valid quote policy' }) })),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const status = await editStatus(ctx.account, input.id, {
    status: input.status,
    spoilerText: input.spoiler_text ?? '',
    sensitive: input.sensitive,
    language: input.language,
    mediaIds: input.media_ids,
    mediaAttributes: input.media_attributes,
    quoteApprovalPolicy: input.quote_approval_policy,
    poll: input.poll && { options: input.poll.options, expiresIn: input.poll.expires_in, multiple: input.poll.multiple ?? false, hideTotals: input.poll.hide_totals ?? false },
  });
  return renderStatus(status, ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
