// POST /api/v1/statuses (https://docs.joinmastodon.org/methods/statuses/#create)
import { z } from 'zod';
import { quotePolicies, visibilities } from '../../lib/db/statuses';
import { http, type Ctx } from '../../lib/http';
import { absent } from '../../lib/schema';
import { requestedId, statusInputFields } from '../../lib/statuses/input';
import { renderStatus } from '../../lib/render/status';
import { accountsByIds } from '../../lib/db/accounts';
import { HttpError } from '../../lib/errors';
import { renderAccount } from '../../lib/render/account';
import { postStatus, UnexpectedMentions } from '../../lib/statuses/create';
import { oneOrMany } from '../../lib/schema';
import { renderScheduledStatus } from '../../lib/render/scheduled_status';
import { scheduleStatus } from '../../lib/statuses/scheduled_posting';

export const schema = z.object({
  ...statusInputFields,
  in_reply_to_id: absent(requestedId),
  visibility: absent(z.enum(visibilities, { errorMap: () => ({ message: 'is not a valid visibility' }) })),
  scheduled_at: absent(z.string({ invalid_type_error: 'must be a string' })),
  /** The accounts the post may mention (Mastodon's web app sends them after warning of the others). */
  /** The status quoted (Mastodon 4.4); `quote_id` is the name older clients send. */
  quoted_status_id: absent(requestedId),
  quote_id: absent(requestedId),
  quote_approval_policy: absent(z.enum(quotePolicies, { errorMap: () => ({ message: 'is not a valid quote policy' }) })),
  allowed_mentions: absent(oneOrMany(z.array(z.string({ invalid_type_error: 'must be a string' }).max(40, 'is too long'), { invalid_type_error: 'must be a list of account ids' }).max(100, 'has too many ids'))),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const params = {
    status: input.status,
    mediaIds: input.media_ids,
    poll: input.poll && { options: input.poll.options, expiresIn: input.poll.expires_in, multiple: input.poll.multiple ?? false, hideTotals: input.poll.hide_totals ?? false },
    inReplyToId: input.in_reply_to_id,
    sensitive: input.sensitive,
    spoilerText: input.spoiler_text ?? '',
    visibility: input.visibility,
    language: input.language,
    idempotencyKey: ctx.headers['idempotency-key'] || undefined,
  };
  // With `scheduled_at`, a ScheduledStatus is stored and answered instead (published later by the sweeper).
  if (input.scheduled_at !== undefined) {
    return renderScheduledStatus(
      await scheduleStatus(ctx.account, ctx.token, {
        ...params,
        scheduledAt: input.scheduled_at,
        quotedStatusId: input.quoted_status_id ?? input.quote_id,
        quoteApprovalPolicy: input.quote_approval_policy,
      }),
    );
  }
  try {
    const { status } = await postStatus(ctx.account, ctx.token, {
      ...params,
      allowedMentions: input.allowed_mentions,
      quotedStatusId: input.quoted_status_id ?? input.quote_id,
      quoteApprovalPolicy: input.quote_approval_policy,
    });
    return renderStatus(status, ctx.account);
  } catch (err) {
    if (!(err instanceof UnexpectedMentions)) throw err;
    // As Mastodon answers it: the accounts the post would have reached besides those allowed.
    const found = await accountsByIds(err.accountIds);
    const unexpected = err.accountIds.flatMap((id) => {
      const account = found.get(id);
      return account ? [renderAccount(account)] : [];
    });
    throw new HttpError(422, err.message, { unexpected_accounts: unexpected });
  }
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
