// GET /health (https://docs.joinmastodon.org/methods/health/): `OK` as text while the API answers, as Mastodon's
// HealthController does. It reads nothing: a load balancer or monitor asking often costs no table call.
import { http, raw } from '../../lib/http';

export async function run() {
  return raw('OK', 'text/plain; charset=utf-8', 200, { 'Cache-Control': 'no-store' });
}

export const handler = http(run, { auth: 'public' });
