// GET /api/v1/admin/reports (https://docs.joinmastodon.org/methods/admin/reports/#get)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { moderatorReports } from '../../lib/moderation/reports';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderAdminReports } from '../../lib/render/admin_report';
import { absent, booleanish, id } from '../../lib/schema';

/** An account id as stored (no leading zeros). */
const accountId = absent(id.transform((v) => BigInt(v).toString()));

// Mastodon: 100 reports by default, at most 200; open reports unless `resolved` is true.
export const schema = pageQuery(100, 200).extend({
  resolved: absent(booleanish),
  account_id: accountId,
  target_account_id: accountId,
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const reports = await moderatorReports(
    { state: input.resolved ? 'resolved' : 'open', accountId: input.account_id, targetAccountId: input.target_account_id },
    input,
  );
  // A report carries its statuses (remote ones can be large): the page is held to the body budget by report id.
  return pageReply(ctx, edgesOf(reports), await renderAdminReports(reports, ctx.account), { keyOf: ownId });
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:reports'], permission: 'manage_reports', schema });
