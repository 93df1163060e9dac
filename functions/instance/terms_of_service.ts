// GET /api/v1/instance/terms_of_service (https://docs.joinmastodon.org/methods/instance/#terms_of_service): the
// terms that apply now (or, before any applies, the first to come), published with `npm run admin -- terms
// publish`. 404 when none were. Public.
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { servedTerms } from '../../lib/instance/legal';
import { renderTermsOfService } from '../../lib/render/instance';

export async function run() {
  return json(renderTermsOfService(await servedTerms()), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
