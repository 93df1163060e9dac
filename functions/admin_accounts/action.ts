// POST /api/v1/admin/accounts/:id/action (https://docs.joinmastodon.org/methods/admin/accounts/#action)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { ACCOUNT_ACTIONS, takeAccountAction } from '../../lib/moderation/actions';
import { adminAccount } from '../../lib/moderation/admin_accounts';
import { absent, booleanish, text } from '../../lib/schema';

export const schema = z.object({
  id: z.string(),
  type: z.enum(ACCOUNT_ACTIONS, { errorMap: () => ({ message: `must be one of ${ACCOUNT_ACTIONS.join(', ')}` }) }),
  report_id: absent(z.string().regex(/^\d{1,20}$/, 'must be an id')),
  warning_preset_id: absent(z.string().regex(/^\d{1,20}$/, 'must be an id')),
  text: absent(text(5_000)),
  send_email_notification: absent(booleanish),
});

/** Mastodon answers an empty object once the action is taken. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await takeAccountAction(ctx.account, await adminAccount(input.id), {
    type: input.type,
    reportId: input.report_id,
    warningPresetId: input.warning_preset_id,
    text: input.text,
    sendEmailNotification: input.send_email_notification,
  });
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:accounts'], permission: 'manage_users', schema });
