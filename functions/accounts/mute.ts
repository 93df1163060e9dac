// POST /api/v1/accounts/:id/mute (https://docs.joinmastodon.org/methods/accounts/#mute)
import { z } from 'zod';
import { mute } from '../../lib/graph/blocks';
import { http, type Ctx } from '../../lib/http';
import { booleanish } from '../../lib/schema';

/** Mastodon caps nothing here; a day count beyond this is surely a mistake (about 100 years). */
const MAX_DURATION = 100 * 365 * 24 * 3600;

export const schema = z.object({
  id: z.string(),
  /** Also hide the account's notifications (Mastodon's default: true). */
  notifications: booleanish.default(true),
  /** Seconds the mute lasts; 0 (the default) is indefinite. */
  duration: z
    // Coercion alone would read `[60]` as 60: a list or an object is not a number.
    .preprocess((v) => (typeof v === 'object' && v !== null ? NaN : v), z.coerce
      .number({ invalid_type_error: 'must be a number' })
      .int('must be an integer')
      .min(0, 'must be greater than or equal to 0')
      .max(MAX_DURATION, `must be less than or equal to ${MAX_DURATION}`)
      .default(0)),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return mute(ctx.account, input.id, { notifications: input.notifications, duration: input.duration });
}

export const handler = http(run, { auth: 'user', scopes: ['write:mutes', 'follow'], schema });
