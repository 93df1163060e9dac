// POST /admin/sign_in (Mastodon's auth/sessions#create, for the moderation pages): checks the login, starts the session.
import { z } from 'zod';
import { submitSignIn } from '../../lib/admin_pages/sign_in';
import { http, type Ctx } from '../../lib/http';
import { countSignInAttempt } from '../../lib/oauth/login';

const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  // Counted as the authorize page's login form counts its attempts: the same budget per address and per e-mail.
  await countSignInAttempt(ctx.ip, input.email);
  return submitSignIn(input, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
