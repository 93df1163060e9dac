// GET /nodeinfo/2.1 (https://nodeinfo.diaspora.software/schema.html): the same document as 2.0, in 2.1's schema.
import { http, json } from '../../lib/http';
import { NODEINFO_CACHE_CONTROL, nodeinfo, nodeinfoContentType } from '../../lib/instance/discovery';

export async function run() {
  return json(await nodeinfo('2.1'), 200, { 'Content-Type': nodeinfoContentType('2.1'), 'Cache-Control': NODEINFO_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
