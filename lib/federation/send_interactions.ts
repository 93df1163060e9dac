// What favourites and reblogs send across servers (Mastodon's FavouriteService,
// UnfavouriteService, ReblogService and RemoveStatusService for a reblog): a Like of
// a remote status to its author, and its Undo; the Announce of a reblog to the
// reblogger's remote followers and to the original's author when remote, and its
// Undo to the same audience. Each runs after its action has committed, through
// ./outbox.ts `quietly`: it never throws into the action.
import { accountById, type Account } from '../db/accounts';
import type { Interaction } from '../db/interactions';
import type { Status } from '../db/statuses';
import { isRemoteAccount, personalInbox, statusInboxes } from '../policy/federation';
import { actorUri, AS_CONTEXT, type Activity } from './activities';
import { crossesServers, deliver, followerInboxes, quietly } from './outbox';
import { announceOf, DOCUMENT_CONTEXT, statusApId } from './render';
import { apUrls } from './urls';
import { newId } from '../ids';

/** Our Like of a remote status, named by the favourite that made it (its Undo embeds the same). */
function likeActivity(liker: Account, status: Status, author: Account, favourite: Pick<Interaction, 'id'>): Activity | undefined {
  const object = statusApId(status, author);
  if (!object) return undefined;
  return { '@context': AS_CONTEXT, id: apUrls.like(liker.username, status.id, favourite.id), type: 'Like', actor: actorUri(liker), object };
}

const undoActivity = (actor: Account, undone: Record<string, unknown>): Activity => {
  const { '@context': context, ...object } = undone;
  return { '@context': context ?? AS_CONTEXT, id: apUrls.activityId(actor.username, 'undo', newId()), type: 'Undo', actor: actorUri(actor), object };
};

/** The status's author when the status is remote and `local` is ours: only then does a Like cross servers. */
async function remoteAuthorOf(local: Account, status: Status): Promise<Account | undefined> {
  if (isRemoteAccount(local) || status.uri === null) return undefined;
  const author = await accountById(status.accountId);
  return author && crossesServers(local, author) ? author : undefined;
}

/** `liker` (local) favourited `status` (remote): a Like to its author's inbox. */
export async function sendLike(liker: Account, status: Status, favourite: Pick<Interaction, 'id'>): Promise<void> {
  await quietly('Like', { accountId: liker.id, statusId: status.id }, async () => {
    const author = await remoteAuthorOf(liker, status);
    const like = author && likeActivity(liker, status, author, favourite);
    if (author && like) await deliver(like, [personalInbox(author)], liker);
  });
}

/** `liker` (local) took back its favourite of `status` (remote): the Undo of the same Like. */
export async function sendUndoLike(liker: Account, status: Status, favourite: Pick<Interaction, 'id'>): Promise<void> {
  await quietly('Undo(Like)', { accountId: liker.id, statusId: status.id }, async () => {
    const author = await remoteAuthorOf(liker, status);
    const like = author && likeActivity(liker, status, author, favourite);
    if (author && like) await deliver(undoActivity(liker, like), [personalInbox(author)], liker);
  });
}

/**
 * Where a reblog's Announce (and its Undo) goes: the reblogger's remote followers (a reblog is never direct)
 * and the original's author when remote, whom the Announce addresses in `cc` as a status does those it mentions.
 */
async function announceAudience(reblog: Status, reblogger: Account, originalAuthor: Account): Promise<string[]> {
  return statusInboxes(reblog, { followerInboxes: await followerInboxes(reblogger.id), mentioned: [originalAuthor] });
}

/** The Announce of a local reblog, with @context, and its audience; undefined when there is nothing to send. */
async function announceOfReblog(reblog: Status, reblogger: Account, original: Status): Promise<{ announce: Record<string, unknown>; inboxes: string[] } | undefined> {
  if (isRemoteAccount(reblogger) || reblog.accountId !== reblogger.id || reblog.reblogOfId !== original.id) return undefined;
  const originalAuthor = await accountById(original.accountId);
  const body = originalAuthor ? announceOf(reblog, reblogger, original, originalAuthor) : undefined;
  if (!originalAuthor || !body) return undefined;
  const inboxes = await announceAudience(reblog, reblogger, originalAuthor);
  if (inboxes.length === 0) return undefined;
  return { announce: { '@context': DOCUMENT_CONTEXT, ...body }, inboxes };
}

/** `reblogger` (local) reblogged `original` (ours or remote): the Announce to its audience. */
export async function sendAnnounce(reblog: Status, reblogger: Account, original: Status): Promise<void> {
  await quietly('Announce', { reblogId: reblog.id }, async () => {
    const made = await announceOfReblog(reblog, reblogger, original);
    if (made) await deliver(made.announce, made.inboxes, reblogger);
  });
}

/** `reblogger` (local) undid its reblog of `original`: the Undo of the same Announce, to the same audience. */
export async function sendUndoAnnounce(reblog: Status, reblogger: Account, original: Status): Promise<void> {
  await quietly('Undo(Announce)', { reblogId: reblog.id }, async () => {
    const made = await announceOfReblog(reblog, reblogger, original);
    if (made) await deliver(undoActivity(reblogger, made.announce), made.inboxes, reblogger);
  });
}
