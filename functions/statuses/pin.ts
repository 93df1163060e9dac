// POST /api/v1/statuses/:id/pin (https://docs.joinmastodon.org/methods/statuses/#pin)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { pin } from '../../lib/interactions/pins';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await pin(ctx.account, input.id), ctx.account);
}

// Mastodon's PinsController asks for write:accounts (not write:statuses).
export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
