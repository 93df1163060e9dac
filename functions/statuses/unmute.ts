// POST /api/v1/statuses/:id/unmute (https://docs.joinmastodon.org/methods/statuses/#unmute)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unmute } from '../../lib/interactions/mutes';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await unmute(ctx.account, input.id), ctx.account);
}

// Mastodon's MutesController asks for write:mutes (the legacy `follow` scope covers it too).
export const handler = http(run, { auth: 'user', scopes: ['write:mutes'], schema });
