// Remote statuses: a Note (as real peers send it) stored once by its id as a
// status of its remote author, then fanned out like a local post.
// OWNER: helper D. Signatures below are the contract other modules call.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';

/** Stores the Note (once; a second call answers the stored status) and fans it out; undefined when it is not acceptable. */
export async function storeRemoteNote(_note: Record<string, unknown>, _author: Account): Promise<Status | undefined> {
  throw new Error('not built yet');
}
