// POST /api/v1/statuses/:id/bookmark (https://docs.joinmastodon.org/methods/statuses/#bookmark)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { bookmark } from '../../lib/interactions/bookmarks';
import { renderStatus } from '../../lib/render/status';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: { account: Account }) {
  return renderStatus(await bookmark(ctx.account, params.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:bookmarks'], schema: input });
