// List timelines' writes: the fan-out to every list containing the author, the
// removal on delete, and the backfill when an account is added (Mastodon's
// FanOutOnWriteService#deliver_to_lists!). Which statuses enter a list is
// lib/policy's entersList.
import type { Account } from '../db/accounts';
import { followEdges, type Follow } from '../db/follows';
import { accountStatusesPage } from '../db/account_statuses';
import { listEntryRecord, listsAlsoContaining, listsOfMemberships, membersAmong, membershipsOf, removeListEntries, writeListEntries, type List } from '../db/lists';
import { statusesByIds, type Status } from '../db/statuses';
import { edgesTo } from '../db/timelines';
import { authorsOf, entersList, mayEnterLists, recipientsRefusing, repliedToThirdParty, visibleTo } from '../policy';

/** Media decides `only_media`; a reblog carries its original's. */
const mediaOf = (status: Status, originals: Map<string, Status>) =>
  status.reblogOfId ? (originals.get(status.reblogOfId)?.mediaIds.length ?? 0) > 0 : status.mediaIds.length > 0;

/**
 * Writes `status` into every list containing its author whose owner should
 * receive it: one Query of the author's memberships (GSI1), then batch reads of
 * the owners' edges (and, for replies to a third account, of the lists and
 * their memberships), then 25-item batch writes. Answers the entries written.
 */
export async function deliverToLists(status: Status, hasMedia: boolean): Promise<number> {
  if (!mayEnterLists(status)) return 0;
  const memberships = await membershipsOf(status.accountId);
  if (memberships.length === 0) return 0;
  // Owners who block, are blocked by, or mute an author (or the reblogged author), or whose irreversible home
  // filters match, skip it, as on home.
  const hiding = await recipientsRefusing(status, await authorsOf(status), [...new Set(memberships.map((m) => m.ownerId))]);
  const owners = [...new Set(memberships.map((m) => m.ownerId))].filter((id) => !hiding.has(id));
  const edges = await edgesTo(owners, status.accountId);
  const repliedTo = repliedToThirdParty(status);
  const followsRepliedTo = repliedTo ? await edgesTo(owners, repliedTo) : new Map<string, Follow>();
  // Replies depend on each list's policy: the lists themselves in one batch read.
  const policies = repliedTo ? await listsOfMemberships(memberships) : new Map<string, List>();
  const inList = repliedTo ? await listsAlsoContaining(memberships, repliedTo) : new Set<string>();
  const records = memberships
    .filter((m) =>
      !hiding.has(m.ownerId) &&
      // A reply needs its list's policy; a list deleted meanwhile receives nothing.
      (!repliedTo || policies.has(m.listId)) &&
      entersList(status, {
        list: policies.get(m.listId) ?? { id: m.listId, ownerId: m.ownerId, repliesPolicy: 'list' },
        follows: edges.get(m.ownerId),
        followsRepliedTo: followsRepliedTo.has(m.ownerId),
        repliedToInList: inList.has(m.listId),
      }),
    )
    .map((m) => listEntryRecord(m.listId, status, hasMedia));
  await writeListEntries(records);
  return records.length;
}

/** Removes a deleted status's (or reblog's) entries from every list containing its author. */
export async function removeFromLists(statusId: string, accountId: string): Promise<number> {
  const memberships = await membershipsOf(accountId);
  await removeListEntries(memberships, statusId);
  return memberships.length;
}

export const BACKFILL_STATUSES = 20;

/**
 * Fills a list with the latest statuses of an account just added to it, as the
 * fan-out would have delivered them: only what the owner may see, through the
 * same rule (blocks, mutes and the owner's home filters, as Mastodon's list merge). One Query of the account's statuses plus batch reads.
 */
export async function backfillList(list: List, owner: Account, accountId: string, follow: Follow): Promise<number> {
  const statuses = await accountStatusesPage(accountId, { limit: BACKFILL_STATUSES }, {}, (page) => visibleTo(owner, page, 'list'));
  if (statuses.length === 0) return 0;
  const repliedTos = [...new Set(statuses.flatMap((s) => repliedToThirdParty(s) ?? []))];
  const ownerFollows = repliedTos.length > 0 ? await followEdges(owner.id, repliedTos) : new Map<string, Follow>();
  const inList = repliedTos.length > 0 ? await membersAmong(list.id, repliedTos) : new Set<string>();
  const originals = await statusesByIds([...new Set(statuses.flatMap((s) => s.reblogOfId ?? []))]);
  const records = statuses
    .filter((s) => {
      const repliedTo = repliedToThirdParty(s);
      return entersList(s, {
        list,
        follows: follow,
        followsRepliedTo: repliedTo ? ownerFollows.has(repliedTo) : false,
        repliedToInList: repliedTo ? inList.has(repliedTo) : false,
      });
    })
    .map((s) => listEntryRecord(list.id, s, mediaOf(s, originals)));
  await writeListEntries(records);
  return records.length;
}
