// Follow: a remote actor follows one of our accounts (Mastodon's
// ActivityPub::Activity::Follow). The rules of following are lib/graph's.
import { receiveFollow } from '../graph/remote_follows';
import { idOf } from '../federation/vocab';
import { localAccountAt, type Outcome, type Received } from './received';

export async function follow(received: Received): Promise<Outcome> {
  const target = await localAccountAt(idOf(received.activity.object));
  // A Follow of someone not ours (or unknown here) is none of our business.
  if (!target) return 'ignored';
  await receiveFollow(received.actor, target, received.id);
  return 'applied';
}
