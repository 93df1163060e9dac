// GET /api/v1/statuses/:id (https://docs.joinmastodon.org/methods/statuses/#get)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { renderStatus } from '../../lib/render/status';
import { viewableStatus } from '../../lib/policy';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  return renderStatus(await viewableStatus(input.id, ctx.account), ctx.account, { context: 'thread' });
}

// A token is optional (public statuses need none); when one is sent it must be valid and hold read:statuses.
export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema });
