// GET /api/v1/statuses/:id/context (https://docs.joinmastodon.org/methods/statuses/#context)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { contextReply } from '../../lib/http/page';
import { renderStatuses } from '../../lib/render/status';
import { statusContext } from '../../lib/statuses/context';
import { asyncRefreshHeader, repliesRefreshFor } from '../../lib/statuses/replies_refresh';
import { viewableStatus } from '../../lib/policy';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const status = await viewableStatus(input.id, ctx.account);
  // A remote thread's missing replies are asked of its server meanwhile (Mastodon 4.5): the client may poll and read again.
  const [{ ancestors, descendants }, refresh] = await Promise.all([statusContext(status, ctx.account), repliesRefreshFor(status, ctx.account)]);
  const rendered = await renderStatuses([...ancestors, ...descendants], ctx.account, { context: 'thread' });
  const ancestorIds = new Set(ancestors.map((s) => s.id));
  return contextReply(
    rendered.filter((s) => ancestorIds.has(String(s.id))),
    rendered.filter((s) => !ancestorIds.has(String(s.id))),
    refresh ? asyncRefreshHeader(refresh) : {},
  );
}

export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema });
