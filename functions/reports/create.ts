// POST /api/v1/reports (https://docs.joinmastodon.org/methods/reports/#post)
import { z } from 'zod';
import { reportCategories } from '../../lib/db/reports';
import { http, type Ctx } from '../../lib/http';
import { renderReport } from '../../lib/render/report';
import { fileReport, REPORT_STATUSES_MAX } from '../../lib/reports/file';
import { absent, booleanish, oneOrMany, text } from '../../lib/schema';

const idValue = z.string({ invalid_type_error: 'must be a string' }).max(40, 'is too long');
/** `status_ids[]=1&status_ids[]=2`, one `status_ids=1`, or a JSON array. */
const idList = (max: number) => oneOrMany(z.array(idValue, { invalid_type_error: 'must be an array' }).max(max, 'has too many items'));

export const schema = z.object({
  account_id: idValue,
  status_ids: absent(idList(REPORT_STATUSES_MAX)),
  // The raw cap only bounds the work; the 1000-character limit is counted in lib/reports/file.ts.
  comment: absent(text(4000)),
  category: absent(z.enum(reportCategories, { errorMap: () => ({ message: 'is not a valid category' }) })),
  rule_ids: absent(idList(100)),
  forward: absent(booleanish),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const { report, target } = await fileReport(ctx.account, {
    accountId: input.account_id,
    statusIds: input.status_ids ?? [],
    comment: input.comment ?? '',
    category: input.category,
    ruleIds: input.rule_ids ?? [],
    forward: input.forward ?? false,
  });
  return renderReport(report, target);
}

export const handler = http(run, { auth: 'user', scopes: ['write:reports'], schema });
