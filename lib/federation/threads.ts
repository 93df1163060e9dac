// The missing ancestors of a remote reply. A reply can reach us before (or
// without) the status it answers: a follower receives the reply of someone they
// follow to someone they do not. Its parent is fetched (signed, through the
// address guard: ./fetch.ts), its author with it, and stored by ./notes.ts, which
// asks here again for that one's parent, and so on up the thread: Mastodon
// resolves the thread the same way (ThreadResolveWorker, FetchRemoteStatusService),
// if later. Here it is done before the reply is stored, so the reply is linked
// at once, within bounds per received status: a few ancestors, a time budget,
// each URI asked once (a thread that loops ends where it comes back). Whatever
// cannot be fetched leaves the status below it standing alone: a failure never
// fails the inbox message. When a parent arrives after its reply was stored alone,
// the reply is not relinked (nor is it in Mastodon once its resolve attempt ended).
import type { Account } from '../db/accounts';
import { remoteStatusIdByUri } from '../db/remote';
import { log } from '../log';
import { accountByActorUri } from './actors';
import { BudgetSpent, deadlineIn, withinBudget } from './budget';
import { FetchFailed, fetchObject } from './fetch';
import { isLocalUrl } from './urls';
import { canonicalId, idsOf, sameHost, type ApDocument } from './vocab';

/** Ancestors fetched for one received status at most (Mastodon's own thread resolution is as short-sighted). */
export const MAX_ANCESTORS = 5;
/** Time all those fetches may take together; the inbox worker has a minute for a batch. */
export const ANCESTORS_BUDGET_MS = 10_000;

/** What is left for fetching the ancestors of one received status; shared down the thread. */
export type ThreadBudget = { left: number; deadline: number; asked: Set<string> };

export const newThreadBudget = (): ThreadBudget => ({ left: MAX_ANCESTORS, deadline: deadlineIn(ANCESTORS_BUDGET_MS), asked: new Set() });

/** A fetched parent Note and its author's account; ./notes.ts still checks that it is theirs. */
export type FetchedParent = { note: ApDocument; author: Account };

/** Is there a reason not to ask for `uri` at all: ours, known here (deleted since included), asked already, or out of budget? */
async function notToFetch(uri: string, budget: ThreadBudget): Promise<string | undefined> {
  if (isLocalUrl(uri)) return 'one of our own URLs';
  if (budget.asked.has(uri)) return 'asked already (the thread loops)';
  if (budget.left <= 0) return 'out of fetches for this thread';
  if (Date.now() >= budget.deadline) return 'time budget spent';
  if (await remoteStatusIdByUri(uri)) return 'stored already, or deleted';
  return undefined;
}

/**
 * The Note at `uri`, fetched with its author, or undefined when it is not to be had: see notToFetch; unreachable,
 * refused by the address guard, gone; a document with another id; attributed to an actor on another server than
 * the Note (a forgery: that actor is never fetched); no such actor. `what` names it in the log: a reply's parent, or
 * a reply found in a thread's replies collection (./replies.ts).
 */
export async function fetchThreadNote(uri: string, budget: ThreadBudget, what: 'parent' | 'reply'): Promise<FetchedParent | undefined> {
  const skip = await notToFetch(uri, budget);
  if (skip) {
    log.info(`${what} not fetched`, { uri, reason: skip });
    return undefined;
  }
  budget.asked.add(uri);
  budget.left -= 1;
  try {
    const note = await withinBudget(fetchObject(uri), budget.deadline);
    if (canonicalId(note.id) !== uri) return refused(uri, what, 'its document has another id');
    const authorUri = idsOf(note.attributedTo)[0];
    if (!authorUri || !sameHost(authorUri, uri)) return refused(uri, what, 'attributed to an actor of another server');
    const author = await withinBudget(accountByActorUri(authorUri), budget.deadline);
    if (!author?.domain) return refused(uri, what, 'its author is not a remote actor');
    return { note, author };
  } catch (err) {
    if (err instanceof FetchFailed || err instanceof BudgetSpent) return refused(uri, what, err.message);
    throw err;
  }
}

/** The parent `inReplyTo` names, fetched with its author (fetchThreadNote). */
export const fetchParent = (inReplyTo: string, budget: ThreadBudget): Promise<FetchedParent | undefined> => fetchThreadNote(inReplyTo, budget, 'parent');

function refused(uri: string, what: 'parent' | 'reply', reason: string): undefined {
  log.info(`${what} not fetched`, { uri, reason });
  return undefined;
}
