// PUT /api/v1/scheduled_statuses/:id (https://docs.joinmastodon.org/methods/scheduled_statuses/#update)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { renderScheduledStatus } from '../../lib/render/scheduled_status';
import { rescheduleStatus } from '../../lib/statuses/scheduled';

export const schema = z.object({
  id: z.string(),
  scheduled_at: z.string({ required_error: "can't be blank", invalid_type_error: 'must be a string' }).max(100, 'is invalid'),
});

/** Only the time changes, with the same five-minute rule as posting. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderScheduledStatus(await rescheduleStatus(ctx.account, input.id, input.scheduled_at));
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
