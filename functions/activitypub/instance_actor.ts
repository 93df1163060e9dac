// GET /actor (Mastodon's instance actor, https://docs.joinmastodon.org/spec/activitypub/): the Application that signs
// the fetches this server makes on no one's behalf; peers fetch it to check those signatures.
import { http } from '../../lib/http';
import { renderInstanceActor } from '../../lib/federation/render';
import { activityReply } from '../../lib/federation/serving';

export async function run() {
  return activityReply(await renderInstanceActor());
}

export const handler = http(run, { auth: 'public' });
