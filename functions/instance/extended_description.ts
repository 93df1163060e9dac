// GET /api/v1/instance/extended_description (https://docs.joinmastodon.org/methods/instance/#extended_description):
// the operator's long description, with when it last changed. Public.
import { http, json } from '../../lib/http';
import { recentInstanceSettings } from '../../lib/db/instance';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { renderExtendedDescription } from '../../lib/render/instance';

export async function run() {
  return json(renderExtendedDescription(await recentInstanceSettings()), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
