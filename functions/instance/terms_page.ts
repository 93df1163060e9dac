// GET /terms-of-service: the current terms as a web page (Instance `configuration.urls.terms_of_service`); 404
// while none are published.
import { http } from '../../lib/http';
import { recentInstanceSettings } from '../../lib/db/instance';
import { servedTerms } from '../../lib/instance/legal';
import { termsPage } from '../../lib/instance/pages';

export async function run() {
  const [settings, terms] = await Promise.all([recentInstanceSettings(), servedTerms()]);
  return termsPage(settings, terms);
}

export const handler = http(run, { auth: 'public' });
