// GET /api/v1/instance/activity (https://docs.joinmastodon.org/methods/instance/#activity): statuses, logins and
// registrations of each of the last 12 weeks, newest first, from counters kept at write time. Public.
import { http, json } from '../../lib/http';
import { ACTIVITY_CACHE_CONTROL, instanceActivity } from '../../lib/instance/activity';
import { renderActivityWeek } from '../../lib/render/instance';

export async function run() {
  return json((await instanceActivity()).map(renderActivityWeek), 200, { 'Cache-Control': ACTIVITY_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
