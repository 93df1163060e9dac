// Announce and Undo(Announce) received from a remote actor (Mastodon's
// ActivityPub::Activity::Announce and Undo#undo_announce): a reblog, stored as a
// status of the actor (its uri the Announce's id, reblogOfId the original) in one
// transaction with its counters (lib/db/interactions.ts addRemoteReblog), then
// fanned out to the homes of the actor's local followers (those following with
// reblogs: false skip it, lib/policy/delivery.ts) and notified to a local author.
//
// The original is one of our statuses, or, when someone here follows the actor (no
// one else would see the reblog), a remote one stored already, or one fetched from
// its own server (its id and author checked there: ../federation/threads.ts) and
// stored without being distributed. An Announce of a private or direct status
// (but the actor's own private one), of a status the actor may not see, or
// addressed to no one it could reach here, is ignored and writes nothing.
import type { Account } from '../db/accounts';
import { addRemoteReblog } from '../db/interactions';
import { remoteStatusIdByUri } from '../db/remote';
import { statusById, statusItem, type Status, type Visibility } from '../db/statuses';
import { fanoutPageDone, followersAfter } from '../db/timelines';
import { HttpError } from '../errors';
import { storeRemoteNote, visibilityOf } from '../federation/notes';
import { fetchParent, newThreadBudget } from '../federation/threads';
import { isLocalUrl } from '../federation/urls';
import { dateOf, idOf, idsOf, type ApDocument } from '../federation/vocab';
import { newId } from '../ids';
import { log } from '../log';
import { isDirect, mayReblog } from '../policy';
import { enqueue } from '../queue';
import { countInteraction } from '../trends';
import { deleteStatus } from '../statuses/delete';
import { localStatusAt, mayInteract } from './like';
import type { Outcome, Received } from './received';

/** A status stored under a remote id (a Note or an Announce); `gone` when it was stored and removed since (a tombstone). */
async function storedByUri(uri: string): Promise<Status | 'gone' | undefined> {
  const id = await remoteStatusIdByUri(uri);
  if (!id) return undefined;
  return (await statusById(id, true)) ?? 'gone';
}

/** A remote status not stored yet, fetched from its server and stored as any Note is, not distributed (as Mastodon's fetches). */
async function fetchedOriginal(uri: string): Promise<Status | undefined> {
  const fetched = await fetchParent(uri, newThreadBudget());
  if (!fetched) return undefined;
  const stored = await storeRemoteNote(fetched.note, fetched.author, { distribute: false });
  return stored && stored.uri === uri ? stored : undefined;
}

/** Does anyone here follow the actor? (A remote account's followers stored here are all ours.) */
const followedHere = async (actor: Account): Promise<boolean> => (await followersAfter(actor.id, undefined, 1)).items.length > 0;

/**
 * The status announced: ours, or (when someone here follows the actor, as Mastodon's related_to_local_activity?)
 * a stored remote one, or fetched; never a reblog.
 */
async function announcedStatus(uri: string | undefined, actor: Account): Promise<Status | undefined> {
  if (!uri) return undefined;
  if (isLocalUrl(uri)) return localStatusAt(uri);
  if (!(await followedHere(actor))) return undefined;
  const stored = await storedByUri(uri);
  if (stored === 'gone') return undefined;
  const original = stored ?? (await fetchedOriginal(uri));
  return original && original.reblogOfId === null ? original : undefined;
}

/** A reblog's visibility by the Announce's addressing (as a Note's); undefined when it addresses nobody reachable here. */
function reblogVisibility(received: Received): Exclude<Visibility, 'direct'> | undefined {
  const visibility = visibilityOf(idsOf(received.activity.to), idsOf(received.activity.cc), received.actor);
  return isDirect({ visibility }) ? undefined : (visibility as Exclude<Visibility, 'direct'>);
}

/** Never later than now: a clock ahead (or a lie) must not put a reblog above everything else. */
const publishedAt = (value: unknown): Date => {
  const at = dateOf(value);
  return at && at.getTime() <= Date.now() ? at : new Date();
};

function reblogOf(received: Received, original: Status, visibility: Status['visibility']): Status {
  const createdAt = publishedAt(received.activity.published);
  return statusItem.parse({
    id: newId(createdAt),
    uri: received.id,
    accountId: received.actor.id,
    createdAt: createdAt.toISOString(),
    reblogOfId: original.id,
    visibility,
    conversationId: original.conversationId,
    sensitive: original.sensitive,
    language: original.language,
  });
}

/**
 * The fan-out to the actor's followers' homes and the local author's notification. Run again for a reblog
 * found stored (a worker that died after storing it): a fan-out page and a notification are written once.
 */
async function distribute(reblog: Status, original: Status, actor: Account, again: boolean): Promise<void> {
  if (!again || !(await fanoutPageDone(reblog.id, 'create', ''))) await enqueue('fanout', { type: 'create', statusId: reblog.id });
  // Counted once per (status, account): a reblog finished again counts nothing more.
  await countInteraction(original, 'reblog', actor.id);
  if (original.uri === null && original.accountId !== actor.id) {
    await enqueue('notify', { type: 'reblog', accountId: original.accountId, fromAccountId: actor.id, statusId: original.id });
  }
}

/** An Announce stored before (its redelivery after a crash, or a race): finished if it is the actor's, else left alone. */
async function finishStored(received: Received, reblog: Status): Promise<Outcome> {
  const original = reblog.reblogOfId ? await statusById(reblog.reblogOfId) : undefined;
  if (reblog.accountId !== received.actor.id || !original) return 'ignored';
  await distribute(reblog, original, received.actor, true);
  return 'applied';
}

export async function announce(received: Received): Promise<Outcome> {
  const visibility = reblogVisibility(received);
  if (!visibility) return 'ignored';
  const stored = await storedByUri(received.id);
  if (stored === 'gone') return 'ignored';
  if (stored) return finishStored(received, stored);

  const original = await announcedStatus(idOf(received.activity.object), received.actor);
  if (!original) return 'ignored';
  // StatusPolicy#reblog? (no direct status, a private one only by its author), and the actor may see it.
  if (!mayReblog(received.actor, original) || !(await mayInteract(received, original))) {
    log.info('inbox: Announce of a status the actor may not reblog ignored', { id: received.id, statusId: original.id });
    return 'ignored';
  }
  const reblog = reblogOf(received, original, visibility);
  const outcome = await addRemoteReblog(reblog, original, received.actor);
  if (outcome === 'changed') {
    await distribute(reblog, original, received.actor, false);
    return 'applied';
  }
  // Another delivery of the same Announce stored it first (finished here too), or the actor reblogged it already.
  const winner = outcome === 'unchanged' ? await storedByUri(received.id) : undefined;
  return winner && winner !== 'gone' ? finishStored(received, winner) : 'ignored';
}

/** Undo(Announce): `undone` is the embedded Announce, already checked to be the actor's own; only its own reblog goes. */
export async function undoAnnounce(received: Received, undone: ApDocument): Promise<Outcome> {
  const announceId = idOf(undone);
  const reblog = announceId ? await storedByUri(announceId) : undefined;
  if (!reblog || reblog === 'gone' || reblog.accountId !== received.actor.id || !reblog.reblogOfId) return 'ignored';
  try {
    // As the reblogger's own DELETE of it: flag, counters, list entry, the fan-out's `delete` from homes.
    await deleteStatus(received.actor, reblog);
    return 'applied';
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return 'ignored';
    throw err;
  }
}
