// GET /admin/sign_in (Mastodon's auth/sessions#new, for the moderation pages): the e-mail and password form.
import { z } from 'zod';
import { showSignIn } from '../../lib/admin_pages/sign_in';
import { http, type Ctx } from '../../lib/http';

const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  return showSignIn(input, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
