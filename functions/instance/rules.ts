// GET /api/v1/instance/rules (https://docs.joinmastodon.org/methods/instance/#rules): the rules the operator
// set (`npm run admin -- settings rules add`), as Rule entities. Public, as Mastodon serves it.
import { http, json } from '../../lib/http';
import { recentInstanceSettings } from '../../lib/db/instance';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { renderRule } from '../../lib/render/instance';

export async function run() {
  const settings = await recentInstanceSettings();
  return json(settings.rules.map(renderRule), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
