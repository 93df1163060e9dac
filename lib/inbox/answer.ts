// Accept and Reject of our Follow (Mastodon's ActivityPub::Activity::Accept and
// Reject): the remote account we asked to follow answers. The object is our
// Follow, embedded (its actor is our account) or by its id, which we minted
// (lib/federation/activities.ts followActivityId: it names our account too).
import type { Account } from '../db/accounts';
import { receiveAccept, receiveReject } from '../graph/remote_follows';
import { parseLocalUrl } from '../federation/urls';
import { idOf, objectOf, typeOf } from '../federation/vocab';
import { localAccountAt, type Outcome, type Received } from './received';
import { answersQuoteRequest, quoteAccepted, quoteRejected } from './quote_request';

/** Our account whose Follow is answered, and that Follow's id. */
async function ourFollow(received: Received): Promise<{ follower: Account; followId: string | undefined } | undefined> {
  const object = received.activity.object;
  const embedded = objectOf(object);
  if (embedded) {
    if (typeOf(embedded) !== 'Follow') return undefined;
    // The Follow answered must be of the one answering: an actor answers only what was asked of it.
    const followed = idOf(embedded.object);
    if (followed !== undefined && followed !== received.actor.uri) return undefined;
    const follower = await localAccountAt(idOf(embedded.actor));
    return follower && { follower, followId: idOf(embedded) };
  }
  const followId = idOf(object);
  const minted = followId ? parseLocalUrl(followId) : undefined;
  if (minted?.kind !== 'activity') return undefined;
  const follower = await localAccountAt(followId!.replace(/#.*$/, ''));
  return follower && { follower, followId };
}

export async function accept(received: Received): Promise<Outcome> {
  if (answersQuoteRequest(received)) return quoteAccepted(received);
  const ours = await ourFollow(received);
  if (!ours) return 'ignored';
  return (await receiveAccept(ours.follower, received.actor, ours.followId)) === 'none' ? 'ignored' : 'applied';
}

export async function reject(received: Received): Promise<Outcome> {
  if (answersQuoteRequest(received)) return quoteRejected(received);
  const ours = await ourFollow(received);
  if (!ours) return 'ignored';
  return (await receiveReject(ours.follower, received.actor, ours.followId)) === 'none' ? 'ignored' : 'applied';
}
