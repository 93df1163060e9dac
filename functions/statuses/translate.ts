// POST /api/v1/statuses/:id/translate (https://docs.joinmastodon.org/methods/statuses/#translate): a public or
// unlisted status the caller may see, machine-translated into `lang` (else the caller's locale) by the service
// the operator configured (lib/translation/). 404 for a status the caller may not see, 403 where Mastodon
// refuses (no service, a private or direct status, a language pair the service does not offer), 503 when the
// service fails.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { viewableStatus } from '../../lib/policy';
import { renderTranslation } from '../../lib/render/translation';
import { absent } from '../../lib/schema';
import { translateStatus } from '../../lib/translation';

export const schema = z.object({
  id: z.string(),
  // Anything that is not a language is passed over for the caller's locale, as Mastodon does with `lang`.
  lang: absent(z.string().max(100, 'is too long (maximum is 100 characters)')),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const status = await viewableStatus(input.id, ctx.account);
  const translation = await translateStatus(status, ctx.account, { lang: input.lang, acceptLanguage: ctx.headers['accept-language'] });
  return renderTranslation(translation, status);
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema });
