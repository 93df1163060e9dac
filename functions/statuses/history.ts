// GET /api/v1/statuses/:id/history (https://docs.joinmastodon.org/methods/statuses/#history): every version of
// a status the caller may see, oldest first (StatusEdit entities).
import { z } from 'zod';
import { accountById } from '../../lib/db/accounts';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { viewableStatus } from '../../lib/policy';
import { renderStatusEdits } from '../../lib/render/status_edit';
import { statusHistory } from '../../lib/statuses/history';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const status = await viewableStatus(input.id, ctx.account);
  const author = await accountById(status.accountId);
  if (!author || status.reblogOfId) throw notFound();
  return renderStatusEdits(await statusHistory(status), author);
}

export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema });
