// GET /.well-known/host-meta (RFC 6415; https://docs.joinmastodon.org/spec/webfinger/): an XRD pointing at WebFinger.
import { http, raw } from '../../lib/http';
import { DISCOVERY_CACHE_CONTROL, hostMeta } from '../../lib/instance/discovery';

export async function run() {
  return raw(hostMeta(), 'application/xrd+xml; charset=utf-8', 200, { 'Cache-Control': DISCOVERY_CACHE_CONTROL, Vary: 'Accept' });
}

export const handler = http(run, { auth: 'public' });
