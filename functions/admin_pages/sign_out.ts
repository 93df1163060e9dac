// POST /admin/sign_out (Mastodon's auth/sessions#destroy): ends the browser's session.
import { z } from 'zod';
import { signOut } from '../../lib/admin_pages/sign_in';
import { http, type Ctx } from '../../lib/http';

const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  return signOut(input, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
