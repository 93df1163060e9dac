// GET /api/v1/instance (https://docs.joinmastodon.org/methods/instance/#v1)
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL, instanceFactsV1 } from '../../lib/instance/info';
import { renderInstanceV1 } from '../../lib/render/instance';

export async function run() {
  return json(renderInstanceV1(await instanceFactsV1()), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
