// Endorsements (Mastodon's Api::V1::Accounts::PinsController and EndorsementsController): a user features
// accounts it follows on its profile. Endorsing answers the Relationship, as Mastodon does; an account not
// followed cannot be endorsed (AccountPin's follow validation). Storage: lib/db/endorsements.ts.
import type { Account } from '../db/accounts';
import { deleteEndorsement, endorsedPage, putEndorsement, type EndorsedPage } from '../db/endorsements';
import { unprocessable } from '../errors';
import type { Page } from '../paging';
import { isVisible } from '../policy/accounts';
import { renderRelationship, type Relationship } from './relationships';
import { targetState } from './target_state';

const NOT_FOLLOWING = 'Validation failed: You must be already following the person you want to endorse';

/** Endorses the account `targetId` (404 unknown, 422 not followed); answers the Relationship. */
export async function endorse(viewer: Account, targetId: string): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  if (!state.following) throw unprocessable(NOT_FOLLOWING);
  // The edge is checked again in the write's transaction: an unfollow meanwhile leaves nothing behind.
  if ((await putEndorsement(viewer.id, state.account.id)) === 'not-following') throw unprocessable(NOT_FOLLOWING);
  return renderRelationship(state.account.id, { ...state, endorsed: true });
}

/** Stops endorsing the account `targetId` (404 unknown; nothing to do is no error); answers the Relationship. */
export async function unendorse(viewer: Account, targetId: string): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  if (state.endorsed) await deleteEndorsement(viewer.id, state.account.id);
  return renderRelationship(state.account.id, { ...state, endorsed: false });
}

/** A page of the accounts `accountId` endorses that others may see. */
export async function endorsedAccounts(accountId: string, page: Page): Promise<EndorsedPage> {
  const read = await endorsedPage(accountId, page);
  return { ...read, accounts: read.accounts.filter(isVisible) };
}
