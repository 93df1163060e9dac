// The replies of a remote status, asked of the servers that hold them (Mastodon 4.5's FetchAllRepliesWorker). Replies
// reach us only from servers whose users someone here follows, so a thread opened here can lack most of them; when a
// viewer opens the thread of a remote status (lib/statuses/replies_refresh.ts), its `replies` collection is read and
// each reply we lack is fetched from its own server and stored, then their replies in turn, depth first.
//
// Bounded, as every fetch for another server's content: at most MAX_REPLIES Notes fetched and MAX_PAGES collection
// pages read per refresh, all within CRAWL_BUDGET_MS (the worker has a minute); a collection and its pages are read
// only from the origin of the status they belong to (a server speaks for its own collections); each reply is fetched
// from its own origin and must be attributed to an actor there (./threads.ts fetchThreadNote). Replies are stored
// without being distributed (old posts are nobody's news), as fetched ancestors are. Unlike Mastodon, a reply already
// stored here is not crawled again for replies of its own (its replies collection is not kept).
import { countAsyncRefreshResults, finishAsyncRefresh } from '../db/async_refreshes';
import { statusById } from '../db/statuses';
import { log } from '../log';
import { BudgetSpent, deadlineIn, withinBudget } from './budget';
import { FetchFailed, fetchObject } from './fetch';
import { storeRemoteNote } from './notes';
import { fetchThreadNote, type ThreadBudget } from './threads';
import { asArray, idOf, objectOf, typeOf, type ApDocument } from './vocab';

/** Notes fetched per refresh at most (Mastodon: 1,000 over a whole crawl; a Lambda invocation holds fewer). */
export const MAX_REPLIES = 100;
/** Collection pages read per refresh at most. */
export const MAX_PAGES = 30;
/** Time the whole crawl may take; the worker's timeout is 60 s. */
export const CRAWL_BUDGET_MS = 40_000;

const COLLECTION_TYPES = ['Collection', 'OrderedCollection', 'CollectionPage', 'OrderedCollectionPage'];

const originOf = (url: string | undefined): string | undefined => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

type Crawl = { budget: ThreadBudget; pagesLeft: number; stored: number };

/** A collection or page on `origin`, embedded or fetched (its id where it was asked for); undefined otherwise. */
async function collectionOn(value: unknown, origin: string, crawl: Crawl): Promise<ApDocument | undefined> {
  const embedded = objectOf(value);
  const url = idOf(value);
  if (embedded && COLLECTION_TYPES.includes(typeOf(embedded) ?? '')) {
    // An embedded page speaks for the document that embeds it (on `origin`, checked by the caller); its id, if any, must agree.
    return url === undefined || originOf(url) === origin ? embedded : undefined;
  }
  if (!url || originOf(url) !== origin || crawl.pagesLeft <= 0) return undefined;
  crawl.pagesLeft -= 1;
  const doc = await withinBudget(fetchObject(url), crawl.budget.deadline);
  return doc.id === url && COLLECTION_TYPES.includes(typeOf(doc) ?? '') ? doc : undefined;
}

/** The ids of the items of a `replies` collection on `origin`: its own items, then its pages from `first` along `next`. */
async function replyIds(replies: unknown, origin: string, crawl: Crawl): Promise<string[]> {
  const ids: string[] = [];
  let page = await collectionOn(replies, origin, crawl);
  const seen = new Set<unknown>();
  let first = true;
  while (page && !seen.has(page) && ids.length < MAX_REPLIES) {
    seen.add(page);
    for (const item of [...asArray(page.orderedItems), ...asArray(page.items)]) {
      const id = idOf(item);
      if (id) ids.push(id);
    }
    const next = first && page.first !== undefined ? page.first : page.next;
    first = false;
    if (next === undefined || (typeof next === 'string' && seen.has(next))) break;
    if (typeof next === 'string') seen.add(next);
    page = await collectionOn(next, origin, crawl);
  }
  return ids;
}

/**
 * Reads the replies of `statusId` (a remote status) and those of each reply stored, counting every stored reply on
 * the refresh, which ends finished whatever happened: a server that cannot be read ends the crawl, not the message.
 */
export async function fetchAllReplies(statusId: string, refreshId: string): Promise<void> {
  const crawl: Crawl = { budget: { left: MAX_REPLIES, deadline: deadlineIn(CRAWL_BUDGET_MS), asked: new Set() }, pagesLeft: MAX_PAGES, stored: 0 };
  try {
    const status = await statusById(statusId);
    if (!status?.uri) return;
    // Depth first, as Mastodon: each entry is a Note whose `replies` is read; the root is fetched anew (its
    // collection is not kept), every other one was just fetched.
    const pending: { uri: string; note?: ApDocument }[] = [{ uri: status.uri }];
    crawl.budget.asked.add(status.uri);
    while (pending.length > 0 && crawl.budget.left > 0 && Date.now() < crawl.budget.deadline) {
      const { uri, note: known } = pending.pop()!;
      const note = known ?? (await withinBudget(fetchObject(uri), crawl.budget.deadline));
      const origin = originOf(uri);
      if (!origin || originOf(idOf(note)) !== origin) continue;
      for (const replyUri of await replyIds(note.replies, origin, crawl)) {
        const fetched = await fetchThreadNote(replyUri, crawl.budget, 'reply');
        if (!fetched) continue;
        const stored = await storeRemoteNote(fetched.note, fetched.author, { distribute: false, thread: crawl.budget });
        if (!stored) continue;
        crawl.stored += 1;
        await countAsyncRefreshResults(refreshId, 1);
        pending.push({ uri: replyUri, note: fetched.note });
      }
    }
  } catch (err) {
    if (!(err instanceof FetchFailed || err instanceof BudgetSpent)) throw err;
    log.info('replies: crawl ended early', { statusId, reason: err.message });
  } finally {
    await finishAsyncRefresh(refreshId);
    log.info('replies: fetched', { statusId, stored: crawl.stored, fetchesLeft: crawl.budget.left, pagesLeft: crawl.pagesLeft });
  }
}
