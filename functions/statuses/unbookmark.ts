// POST /api/v1/statuses/:id/unbookmark (https://docs.joinmastodon.org/methods/statuses/#unbookmark)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { unbookmark } from '../../lib/interactions/bookmarks';
import { renderStatus } from '../../lib/render/status';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: { account: Account }) {
  return renderStatus(await unbookmark(ctx.account, params.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:bookmarks'], schema: input });
