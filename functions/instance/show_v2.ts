// GET /api/v2/instance (https://docs.joinmastodon.org/methods/instance/#v2)
import { currentCampaign } from '../../lib/annual_reports/campaign';
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL, instanceFactsV2 } from '../../lib/instance/info';
import { renderInstanceV2 } from '../../lib/render/instance';
import { translationEnabled } from '../../lib/translation/service';

export async function run() {
  const facts = await instanceFactsV2();
  // Whether a translation service is configured, and the annual report campaign under way: from their own folders.
  return json(renderInstanceV2({ ...facts, translationEnabled: translationEnabled(), wrapstodon: currentCampaign() }), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
