// What a viewer has to hide (and which of its per-status flags can be set), known without a read. A timeline page asked, for every
// signed-in viewer, for its blocks, the blocks it received, its mutes and its filters
// (four Queries) although nearly every account has none of them. The account item now
// says which it has ever had (`hasBlocks`, `hasBlockedBy`, `hasMutes`, `hasFilters`):
// the write that makes the first one sets the flag in its own transaction, so a flag
// is never behind the partition it stands for, and nothing clears it (a false flag is
// exact, a true one only means "read it"). Accounts made before the flags existed
// have `hidesTracked` false and are read as before.
//
// Likewise `hasBookmarks` and `hasConversationMutes`: a page of statuses asks for the
// viewer's bookmark and thread-mute of each status only when the account has any.
//
// And `flaggedUpTo`, the highest status id the account has favourited or reblogged: a page does not ask
// for those two flags of any newer status. The transaction that writes such a flag raises it first
// (flagBoundRaise below), so no flag is ever above it.
//
// The HTTP layer hands the authenticated account to seedKnownEmpty(); the reads of those
// partitions (lib/db/blocks.ts, lib/db/filters.ts) go through the invocation's scope
// (lib/request_scope.ts) under the keys below, so a partition known empty is not read.
import type { Account } from './accounts';
import { padId } from '../ids';
import * as keys from './keys';
import type { TransactItem } from './table';
import { factInRequest, forgetInRequest, knownInRequest, setFactInRequest } from '../request_scope';

export type HideFlag = 'hasBlocks' | 'hasBlockedBy' | 'hasMutes' | 'hasFilters' | 'hasBookmarks' | 'hasConversationMutes';

/** The names under which an invocation keeps the viewer's partitions once read. */
export const scopeKeys = {
  blocking: (accountId: string) => `blocking:${accountId}`,
  blockedBy: (accountId: string) => `blocked-by:${accountId}`,
  muting: (accountId: string) => `muting:${accountId}`,
  filters: (accountId: string) => `filters:${accountId}`,
};

/** The parts of an UpdateExpression that set `flags` (to be merged into an account's update in a transaction). */
export function flagSets(flags: HideFlag[]): { sets: string[]; names: Record<string, string>; values: Record<string, boolean> } {
  if (flags.length === 0) return { sets: [], names: {}, values: {} };
  const names: Record<string, string> = {};
  const sets = [...new Set(flags)].map((flag, i) => {
    names[`#hf${i}`] = flag;
    return `#hf${i} = :hidesTrue`;
  });
  return { sets, names, values: { ':hidesTrue': true } };
}

/** The transaction item that sets `flags` on an account that exists. */
export function markHides(accountId: string, flags: HideFlag[]): TransactItem {
  const { sets, names, values } = flagSets(flags);
  return {
    Update: {
      Key: keys.account(accountId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** Tells the invocation which of the viewer's partitions are empty, from its account's flags. */
export function seedKnownEmpty(account: Pick<Account, 'id' | HideFlag | 'hidesTracked' | 'flaggedUpTo'>): void {
  if (account.flaggedUpTo !== null) setFactInRequest(`flagged-up-to:${account.id}`, account.flaggedUpTo);
  if (!account.hidesTracked) return;
  if (!account.hasBlocks) knownInRequest(scopeKeys.blocking(account.id), []);
  if (!account.hasBlockedBy) knownInRequest(scopeKeys.blockedBy(account.id), []);
  if (!account.hasMutes) knownInRequest(scopeKeys.muting(account.id), []);
  if (!account.hasFilters) knownInRequest(scopeKeys.filters(account.id), []);
  if (!account.hasBookmarks) setFactInRequest(`no-bookmarks:${account.id}`, true);
  if (!account.hasConversationMutes) setFactInRequest(`no-conversation-mutes:${account.id}`, true);
}

/**
 * Which of the viewer's per-status flags can only be false in this invocation (its account says it has none),
 * and above which status id its favourite and reblog flags can only be false (undefined: unknown).
 */
export const flagsKnownAbsent = (viewerId: string) => {
  const bound = factInRequest(`flagged-up-to:${viewerId}`);
  return {
    bookmarks: factInRequest(`no-bookmarks:${viewerId}`) === true,
    conversationMutes: factInRequest(`no-conversation-mutes:${viewerId}`) === true,
    flaggedUpTo: typeof bound === 'string' ? bound : undefined,
  };
};

/**
 * What raises `flaggedUpTo` to `statusId` in the transaction that writes a favourite or reblog flag of it:
 * undefined when the account as read keeps no bound (made before it, or remote) or has it as high already.
 * An account not read (undefined) always gets the raise. Its condition (`flaggedUpTo < :id`) fails when
 * the bound is as high already, or absent: the caller then writes the flag without it (flagWithBound in
 * ./interactions.ts).
 */
export function flagBoundRaise(account: Pick<Account, 'flaggedUpTo'> | undefined, statusId: string): { set: string; condition: string; values: Record<string, string> } | undefined {
  const id = padId(statusId);
  if (account && (account.flaggedUpTo === null || id <= account.flaggedUpTo)) return undefined;
  return { set: 'flaggedUpTo = :flaggedUpTo', condition: 'flaggedUpTo < :flaggedUpTo', values: { ':flaggedUpTo': id } };
}

/** After this invocation wrote a favourite or reblog flag of the account: its bound is no longer the one read. */
export const noteFlagged = (accountId: string): void => setFactInRequest(`flagged-up-to:${accountId}`, undefined);

/** After a write set `flags` on the account: this invocation no longer takes those partitions or flags as empty. */
export function noteMarked(accountId: string, flags: HideFlag[]): void {
  for (const flag of flags) {
    if (flag === 'hasBlocks') forgetInRequest(scopeKeys.blocking(accountId));
    else if (flag === 'hasBlockedBy') forgetInRequest(scopeKeys.blockedBy(accountId));
    else if (flag === 'hasMutes') forgetInRequest(scopeKeys.muting(accountId));
    else if (flag === 'hasFilters') forgetInRequest(scopeKeys.filters(accountId));
    else if (flag === 'hasBookmarks') setFactInRequest(`no-bookmarks:${accountId}`, false);
    else setFactInRequest(`no-conversation-mutes:${accountId}`, false);
  }
}
