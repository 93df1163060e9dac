// GET /api/v1/instance/terms_of_service/:date (https://docs.joinmastodon.org/methods/instance/#terms_of_service_date):
// the version of the terms that takes effect on that date (YYYY-MM-DD). 404 for any other date, as Mastodon's
// lookup by effective date answers. Public.
import { z } from 'zod';
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { servedTerms } from '../../lib/instance/legal';
import { renderTermsOfService } from '../../lib/render/instance';

// Any string: a malformed date finds no version (404), as in Mastodon, rather than a 422.
export const schema = z.object({ date: z.string() });

export async function run(input: z.infer<typeof schema>) {
  return json(renderTermsOfService(await servedTerms(input.date)), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public', schema });
