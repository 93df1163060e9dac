// GET /api/v2/instance (https://docs.joinmastodon.org/methods/instance/#v2)
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL, instanceFactsV2 } from '../../lib/instance/info';
import { renderInstanceV2 } from '../../lib/render/instance';

export async function run() {
  return json(renderInstanceV2(await instanceFactsV2()), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
