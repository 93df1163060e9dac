// The activities local actions send, as plain objects: Follow and its Undo,
// Accept and Reject of a remote Follow, Delete of a status (a Tombstone) or of an
// account, Update of a profile. Pure: no reads; lib/federation/outbox.ts gathers
// what they need and decides where they go. The Create of a status is the
// served document's own (renderCreate in ./render.ts).
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { newId } from '../ids';
import { statusAddressing } from '../policy/federation';
import { actorUriOf } from './render';
import { AS_PUBLIC, apUrls } from './urls';

export const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';

export type Activity = Record<string, unknown> & { id: string; type: string; actor: string };

type ActorOf = Pick<Account, 'username' | 'domain' | 'uri'>;

/** The actor URI of an account (render.ts actorUriOf); a remote account stored without one cannot be addressed. */
export function actorUri(account: ActorOf): string {
  const uri = actorUriOf(account);
  if (!uri) throw new Error(`remote account ${account.username}@${account.domain ?? ''} has no actor URI`);
  return uri;
}

/**
 * The id of our Follow behind a follow request (its request id): stored on the
 * request, so the Undo that cancels it and the Accept that answers it name it.
 */
export const followActivityId = (follower: Pick<Account, 'username'>, requestId: string): string =>
  apUrls.activityId(follower.username, 'follows', requestId);

/** The Follow as an Accept, Reject or Undo embed it: enough for a receiver to match it without fetching. */
function followObject(followId: string | undefined, followerUri: string, followedUri: string): Record<string, unknown> {
  return { ...(followId ? { id: followId } : {}), type: 'Follow', actor: followerUri, object: followedUri };
}

/** A local account asks to follow a remote one. */
export function followActivity(follower: ActorOf, target: ActorOf, requestId: string): Activity {
  const actor = actorUri(follower);
  return { '@context': AS_CONTEXT, id: followActivityId(follower, requestId), type: 'Follow', actor, object: actorUri(target) };
}

/** A local account stops following (or withdraws its request to follow) a remote one. */
export function undoFollowActivity(follower: ActorOf, target: ActorOf, followId: string): Activity {
  const actor = actorUri(follower);
  return {
    '@context': AS_CONTEXT,
    id: apUrls.activityId(follower.username, 'undo', newId()),
    type: 'Undo',
    actor,
    object: followObject(followId, actor, actorUri(target)),
  };
}

/**
 * A local account answers a remote account's Follow (Accept: it now follows;
 * Reject: it does not). `followId` is the remote Follow's id when known.
 */
export function answerFollowActivity(type: 'Accept' | 'Reject', local: ActorOf, follower: ActorOf, followId: string | undefined): Activity {
  const actor = actorUri(local);
  return {
    '@context': AS_CONTEXT,
    id: apUrls.activityId(local.username, type.toLowerCase(), newId()),
    type,
    actor,
    object: followObject(followId, actorUri(follower), actor),
  };
}

/**
 * A local status is gone: a Tombstone in its place, addressed as its Create was
 * (so a followers-only one never names the Public collection). A status is
 * deleted once, so its id makes the Delete's own id, and a delivery run twice
 * names the same activity.
 */
export function deleteStatusActivity(status: Pick<Status, 'id' | 'visibility'>, author: ActorOf, mentionedUris: string[]): Activity {
  const actor = actorUri(author);
  return {
    '@context': AS_CONTEXT,
    id: apUrls.activityId(author.username, 'delete', status.id),
    type: 'Delete',
    actor,
    ...statusAddressing(status, { publicCollection: AS_PUBLIC, followers: apUrls.followers(author.username), mentioned: mentionedUris }),
    object: { id: apUrls.status(author.username, status.id), type: 'Tombstone' },
  };
}

/** A local account is gone (Mastodon addresses it to the Public collection). */
export function deletePersonActivity(account: ActorOf): Activity {
  const actor = actorUri(account);
  return { '@context': AS_CONTEXT, id: apUrls.activityId(account.username, 'delete', newId()), type: 'Delete', actor, to: [AS_PUBLIC], object: actor };
}

/**
 * A local account's profile changed: the whole Person (as served, from
 * renderPerson) embedded, under the Person's own `@context` so its extension
 * terms (manuallyApprovesFollowers, PropertyValue, ...) keep their meaning.
 */
export function updatePersonActivity(account: ActorOf, person: Record<string, unknown>): Activity {
  const { '@context': context, ...object } = person;
  const actor = actorUri(account);
  return {
    '@context': context ?? AS_CONTEXT,
    id: apUrls.activityId(account.username, 'update', newId()),
    type: 'Update',
    actor,
    to: [AS_PUBLIC],
    object,
  };
}
