// GET /api/v1/instance/peers (https://docs.joinmastodon.org/methods/instance/#peers): the domains this server
// knows (has stored an account of), suspended ones left out. Public, as Mastodon serves it.
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { knownPeers } from '../../lib/instance/federation';

export async function run() {
  return json(await knownPeers(), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
