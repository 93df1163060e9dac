// GET /api/v1/notifications/requests/merged (https://docs.joinmastodon.org/methods/notifications/#requests-merged):
// whether accepted requests' notifications are back in the list yet. Accepting does
// that before it answers here (Mastodon does it in a background job), so it is always true.
import { http } from '../../lib/http';

export async function run() {
  return { merged: true };
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'] });
