// GET /.well-known/nodeinfo (https://nodeinfo.diaspora.software/protocol.html): where the NodeInfo document is.
import { http, json } from '../../lib/http';
import { DISCOVERY_CACHE_CONTROL, nodeinfoLinks } from '../../lib/instance/discovery';

export async function run() {
  return json(nodeinfoLinks(), 200, { 'Cache-Control': DISCOVERY_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
