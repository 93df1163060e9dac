// POST /api/v1/statuses/:id/pin (https://docs.joinmastodon.org/methods/statuses/#pin)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { pin } from '../../lib/interactions/pins';
import { renderStatus } from '../../lib/render/status';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: { account: Account }) {
  return renderStatus(await pin(ctx.account, params.id), ctx.account);
}

// Mastodon's PinsController asks for write:accounts (not write:statuses).
export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema: input });
