// GET /admin (Mastodon's admin root): to the first moderation page the signed-in role may open.
import { z } from 'zod';
import { adminHome } from '../../lib/admin_pages/access';
import { http, type Ctx } from '../../lib/http';

const schema = z.record(z.unknown());

export async function run(_input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  return adminHome(ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
