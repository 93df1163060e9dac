// GET /nodeinfo/2.0 (https://nodeinfo.diaspora.software/schema.html, as Mastodon serves it)
import { http, json } from '../../lib/http';
import { NODEINFO_CACHE_CONTROL, NODEINFO_CONTENT_TYPE, nodeinfo } from '../../lib/instance/discovery';

export async function run() {
  return json(await nodeinfo(), 200, { 'Content-Type': NODEINFO_CONTENT_TYPE, 'Cache-Control': NODEINFO_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
