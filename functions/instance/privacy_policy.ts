// GET /api/v1/instance/privacy_policy (https://docs.joinmastodon.org/methods/instance/#privacy_policy): the
// operator's policy (`npm run admin -- privacy-policy set`), or, until they set one, this server's default. Public.
import { http, json } from '../../lib/http';
import { servedPrivacyPolicy } from '../../lib/instance/legal';
import { renderPrivacyPolicy } from '../../lib/render/instance';

export async function run() {
  // Mastodon lets caches keep it a day; a policy the operator changes should show sooner here.
  return json(renderPrivacyPolicy(await servedPrivacyPolicy()), 200, { 'Cache-Control': 'public, max-age=3600' });
}

export const handler = http(run, { auth: 'public' });
