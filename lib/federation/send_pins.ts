// What pinning and unpinning send (Mastodon's PinsController: an Add, or a Remove,
// of the status to/from the author's featured collection, to every follower's
// server), so that their copies of the author's profile show the pins without
// waiting for the next fetch of the actor (lib/federation/featured.ts). Runs after
// the pin has committed, through ./outbox.ts `quietly`: it never throws into it.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { newId } from '../ids';
import { isDirect } from '../policy';
import { actorUri, AS_CONTEXT, type Activity } from './activities';
import { deliver, followerInboxes, ownPost, quietly } from './outbox';
import { apUrls } from './urls';

/** Add or Remove of `status` to/from its author's featured collection. */
export function pinActivity(type: 'Add' | 'Remove', author: Account, status: Status): Activity {
  return {
    '@context': AS_CONTEXT,
    id: apUrls.activityId(author.username, type === 'Add' ? 'pin' : 'unpin', newId()),
    type,
    actor: actorUri(author),
    object: apUrls.status(author.username, status.id),
    target: apUrls.featured(author.username),
  };
}

/** `author` (local) pinned or unpinned its own `status`: the Add or Remove to its followers' servers. */
export async function sendPinChange(type: 'Add' | 'Remove', author: Account, status: Status): Promise<void> {
  await quietly(type, { accountId: author.id, statusId: status.id }, async () => {
    if (!ownPost(status, author) || isDirect(status)) return;
    await deliver(pinActivity(type, author, status), await followerInboxes(author.id), author);
  });
}
