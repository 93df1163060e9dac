// GET /privacy-policy: the privacy policy as a web page (Instance `configuration.urls.privacy_policy`).
import { http } from '../../lib/http';
import { recentInstanceSettings } from '../../lib/db/instance';
import { servedPrivacyPolicy } from '../../lib/instance/legal';
import { privacyPolicyPage } from '../../lib/instance/pages';

export async function run() {
  const [settings, policy] = await Promise.all([recentInstanceSettings(), servedPrivacyPolicy()]);
  return privacyPolicyPage(settings, policy);
}

export const handler = http(run, { auth: 'public' });
