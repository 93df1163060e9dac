// POST /api/v1/statuses/:id/favourite (https://docs.joinmastodon.org/methods/statuses/#favourite)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { favourite } from '../../lib/interactions/favourites';
import { renderStatus } from '../../lib/render/status';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: { account: Account }) {
  return renderStatus(await favourite(ctx.account, params.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:favourites'], schema: input });
