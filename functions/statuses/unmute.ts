// POST /api/v1/statuses/:id/unmute (https://docs.joinmastodon.org/methods/statuses/#unmute)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { unmute } from '../../lib/interactions/mutes';
import { renderStatus } from '../../lib/render/status';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: { account: Account }) {
  return renderStatus(await unmute(ctx.account, params.id), ctx.account);
}

// Mastodon's MutesController asks for write:mutes (the legacy `follow` scope covers it too).
export const handler = http(run, { auth: 'user', scopes: ['write:mutes'], schema: input });
