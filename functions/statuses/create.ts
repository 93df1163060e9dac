// POST /api/v1/statuses (https://docs.joinmastodon.org/methods/statuses/#create)
import { z } from 'zod';
import { visibilities } from '../../lib/db/statuses';
import { http, type Ctx } from '../../lib/http';
import { absent, booleanish, intString } from '../../lib/schema';
import { cappedText, COUNTED_LIMITS, RAW_CAPS } from '../../lib/text/limits';
import { renderStatus } from '../../lib/render/status';
import { postStatus } from '../../lib/statuses/create';
import { renderScheduledStatus } from '../../lib/render/scheduled_status';
import { scheduleStatus } from '../../lib/statuses/scheduled';

const id = z.string({ invalid_type_error: 'must be a string' }).max(20, 'is not a valid id');

export const schema = z.object({
  // Raw caps first (lib/text/limits.ts), so that no text costs more to count than a normal one; the counted limit is checked in lib.
  status: absent(cappedText(RAW_CAPS.statusText, COUNTED_LIMITS.statusCharacters)),
  media_ids: z
    .preprocess((v) => (typeof v === 'string' ? [v] : v === null ? undefined : v), z.array(id, { invalid_type_error: 'must be an array' }).max(20).optional())
    .default([]),
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
  in_reply_to_id: absent(id),
  sensitive: absent(booleanish),
  spoiler_text: absent(cappedText(RAW_CAPS.spoilerText, COUNTED_LIMITS.statusCharacters)),
  visibility: absent(z.enum(visibilities, { errorMap: () => ({ message: 'is not a valid visibility' }) })),
  language: absent(z.string({ invalid_type_error: 'must be a string' }).max(10)),
  scheduled_at: absent(z.string({ invalid_type_error: 'must be a string' })),
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
    return renderScheduledStatus(await scheduleStatus(ctx.account, ctx.token, { ...params, scheduledAt: input.scheduled_at }));
  }
  const { status } = await postStatus(ctx.account, ctx.token, params);
  return renderStatus(status, ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
