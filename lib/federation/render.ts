// ActivityPub documents of local things: Person, Note, Create, collections.
// OWNER: helper B. Signatures below are the contract other modules call.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';

export type ApObject = Record<string, unknown>;

export const AP_CONTEXT = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'] as const;

/** A local account as a Person (with its publicKey). */
export async function renderPerson(_account: Account): Promise<ApObject> {
  throw new Error('not built yet');
}

/** A local public/unlisted/private/direct status as a Note (audience in to/cc by visibility), without @context. */
export async function renderNote(_status: Status, _author: Account): Promise<ApObject> {
  throw new Error('not built yet');
}

/** The Create of a local status, with @context, its Note embedded, the same to/cc. */
export async function renderCreate(_status: Status, _author: Account): Promise<ApObject> {
  throw new Error('not built yet');
}
