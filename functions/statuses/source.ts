// GET /api/v1/statuses/:id/source (https://docs.joinmastodon.org/methods/statuses/#source): the plain text a
// status the caller may see was written from (StatusSource), what a client edits.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { viewableStatus } from '../../lib/policy';
import { renderStatusSource } from '../../lib/render/status_edit';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatusSource(await viewableStatus(input.id, ctx.account));
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema });
