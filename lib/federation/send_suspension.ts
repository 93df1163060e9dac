// What a suspension of a local account tells other servers, as Mastodon tells them: the actor's Update carrying
// `suspended: true` when it is suspended (SuspendAccountService's distribute_update_actor!), the same Update without
// it when the suspension is lifted (UnsuspendAccountService), and, once its data is purged, the Delete of the actor
// (DeleteAccountService's delete_actor!). Remote Mastodon servers mark the account suspended (origin remote) on the
// first, lift it on the second and drop the account on the third.
//
// They go to the inboxes of its remote followers at the time of the suspension: the suspension severs those follows
// (lib/moderation/suspension.ts) but keeps the list with its work, so the later activities reach the same servers.
import type { Account } from '../db/accounts';
import { isRemoteAccount } from '../policy/federation';
import { deletePersonActivity, updatePersonActivity } from './activities';
import { deliver, followerInboxes, quietly } from './outbox';
import { renderPerson } from './render';

/** Mastodon's term for the flag (`toot:suspended`), added to the Person's own context. */
const SUSPENDED_TERM = { suspended: 'toot:suspended' };

/** The Person as served, with `suspended` set to what the account is now. */
async function personWithSuspension(account: Account): Promise<Record<string, unknown>> {
  const person: Record<string, unknown> = await renderPerson(account);
  const context = person['@context'];
  const contexts = Array.isArray(context) ? [...(context as unknown[])] : context === undefined ? [] : [context];
  return { ...person, '@context': [...contexts, SUSPENDED_TERM], suspended: account.suspendedAt !== null };
}

/** The servers to tell now: those of the account's remote followers (one Query), with any kept from before. */
export async function suspensionAudience(account: Account, kept: string[] = []): Promise<string[]> {
  if (isRemoteAccount(account)) return [];
  return [...new Set([...(await followerInboxes(account.id)), ...kept])];
}

/** The Update of the actor, `suspended` as the account now is, to `inboxes`. */
export async function sendSuspensionUpdate(account: Account, inboxes: string[]): Promise<void> {
  if (isRemoteAccount(account) || inboxes.length === 0) return;
  await quietly('Update(Person) suspended', { accountId: account.id, suspended: account.suspendedAt !== null }, async () => {
    await deliver(updatePersonActivity(account, await personWithSuspension(account)), inboxes, account);
  });
}

/** The Delete of the actor after its purge, to `inboxes` (signed with its key, which the tombstone keeps). */
export async function sendPurgedActorDelete(account: Account, inboxes: string[]): Promise<void> {
  if (isRemoteAccount(account) || inboxes.length === 0) return;
  await quietly('Delete(Person) after purge', { accountId: account.id }, () => deliver(deletePersonActivity(account), inboxes, account));
}
