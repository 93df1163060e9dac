// PUT /api/v1/admin/reports/:id (https://docs.joinmastodon.org/methods/admin/reports/#update)
import { z } from 'zod';
import { reportCategories } from '../../lib/db/reports';
import { http, type Ctx } from '../../lib/http';
import { reclassifyReport } from '../../lib/moderation/reports';
import { renderAdminReport } from '../../lib/render/admin_report';
import { absent, oneOrMany } from '../../lib/schema';

/** `rule_ids[]=1&rule_ids[]=2`, one `rule_ids=1`, or a JSON array; `rule_ids[]=` (an empty form field) is no rule. */
const ruleIds = oneOrMany(
  z
    .array(z.union([z.string(), z.number().int().nonnegative()], { invalid_type_error: 'must be a list of ids' }).transform(String), {
      invalid_type_error: 'must be a list of ids',
    })
    .max(100, 'has too many items')
    .transform((ids) => ids.filter((r) => r !== ''))
    .refine((ids) => ids.every((r) => /^\d{1,20}$/.test(r)), 'does not reference valid rules'),
);

export const schema = z.object({
  id: z.string(),
  category: absent(z.enum(reportCategories, { errorMap: () => ({ message: 'is not a valid category' }) })),
  rule_ids: ruleIds.optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const report = await reclassifyReport(ctx.account, input.id, { category: input.category, ruleIds: input.rule_ids });
  return renderAdminReport(report, ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:reports'], permission: 'manage_reports', schema });
