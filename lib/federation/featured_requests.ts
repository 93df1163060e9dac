// Asks for a remote account's featured collection (its pinned posts) to be read: a `featured`
// message on the remoteMedia queue, whose worker reads it (./featured.ts), as Mastodon's
// account processing hands it to SynchronizeFeaturedCollectionWorker. Every save of an actor
// asks (./actors.ts); nothing that saves one waits on up to seven more requests to another
// server, and the functions that save actors (posting with a mention, search, the inbox)
// carry none of the Note storage the read needs.
//
// Actors saved while a collection is read (the authors of its Notes' ancestors) do not ask in
// turn: one account's pins never start a chain.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Account } from '../db/accounts';
import { log } from '../log';
import { enqueue } from '../queue';

/** Set while a featured collection is being read (./featured.ts). */
export const readingFeatured = new AsyncLocalStorage<true>();

/** Whether the account has a featured collection worth reading, and this is not inside the reading of one. */
export const readsFeatured = (account: Pick<Account, 'domain' | 'uri' | 'featuredUrl'>): boolean =>
  !!account.domain && !!account.uri && !!account.featuredUrl && !readingFeatured.getStore();

/**
 * After an actor's save: asks for its featured collection to be read; answers the account. Pins are not worth
 * failing the save: a request that cannot be sent is logged, and the next save asks again.
 */
export async function requestFeaturedRead(account: Account): Promise<Account> {
  if (!readsFeatured(account)) return account;
  try {
    await enqueue('remoteMedia', { kind: 'featured', accountId: account.id });
  } catch (err) {
    log.warn('featured collection: read not requested; pins kept', { accountId: account.id, err });
  }
  return account;
}
