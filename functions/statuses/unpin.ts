// POST /api/v1/statuses/:id/unpin (https://docs.joinmastodon.org/methods/statuses/#unpin)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { unpin } from '../../lib/interactions/pins';
import { renderStatus } from '../../lib/render/status';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: { account: Account }) {
  return renderStatus(await unpin(ctx.account, params.id), ctx.account);
}

// Mastodon's PinsController asks for write:accounts (not write:statuses).
export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema: input });
