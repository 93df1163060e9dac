// List timelines: which statuses enter a list (the pure rule), and the writes
// around it — the fan-out to every list containing the author, the removal on
// delete, and the backfill when an account is added. Mastodon's
// FanOutOnWriteService#deliver_to_lists! and FeedManager#filter_from_list?
// (itself combined with filter_from_home?) decide the same.
import type { Account } from '../db/accounts';
import { followEdges, type Follow } from '../db/follows';
import { keys } from '../db/keys';
import { accountStatusesPage } from '../db/account_statuses';
import { listEntryRecord, listItem, listMemberItem, membersAmong, membershipsOf, writeListEntries, type List } from '../db/lists';
import { statusesByIds, type Status } from '../db/statuses';
import { batchGet } from '../db/table';
import { edgesTo } from '../db/timelines';
import { authorsOf, recipientsHiding } from '../graph/hidden';
import { filterViewable } from '../statuses/visibility';
import { recipientsFilteringOut } from '../filters';
import { entersHome, repliedToThirdParty } from '../timelines/delivery';

/** What the rule needs to know about one list and its owner for `status`. */
export type ListRecipient = {
  list: Pick<List, 'id' | 'ownerId' | 'repliesPolicy'>;
  /** The owner's follow edge to the status's author. */
  follows: { showReblogs: boolean } | undefined;
  /** For a reply to a third account: does the owner follow it? */
  followsRepliedTo: boolean;
  /** For a reply to a third account: is that account in the list? */
  repliedToInList: boolean;
};

/** Should `status` enter the list timeline of `recipient.list`? */
export function entersList(status: Status, recipient: ListRecipient): boolean {
  // Direct statuses never reach lists; the owner must follow the author (a list holds followed accounts only).
  if (status.visibility === 'direct' || !recipient.follows) return false;
  const owner = recipient.list.ownerId;
  if (!entersHome(status, { accountId: owner, follows: recipient.follows, followsRepliedTo: recipient.followsRepliedTo })) return false;
  const repliedTo = status.inReplyToAccountId;
  if (status.reblogOfId || !status.inReplyToId || !repliedTo || repliedTo === status.accountId || repliedTo === owner) return true;
  switch (recipient.list.repliesPolicy) {
    case 'followed':
      return true;
    case 'list':
      return recipient.repliedToInList;
    case 'none':
      return false;
  }
}

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
  if (status.visibility === 'direct') return 0;
  const memberships = await membershipsOf(status.accountId);
  if (memberships.length === 0) return 0;
  // Owners who block, are blocked by, or mute an author (or the reblogged author) skip it, as on home.
  const hiding = await recipientsHiding(await authorsOf(status), [...new Set(memberships.map((m) => m.ownerId))]);
  // Irreversible home filters apply to lists too (Mastodon's filter_from_list? includes filter_from_home?).
  const filtering = await recipientsFilteringOut(status, [...new Set(memberships.map((m) => m.ownerId))], 'home');
  for (const id of filtering) hiding.add(id);
  const owners = [...new Set(memberships.map((m) => m.ownerId))].filter((id) => !hiding.has(id));
  const edges = await edgesTo(owners, status.accountId);
  const repliedTo = repliedToThirdParty(status);
  const followsRepliedTo = repliedTo ? await edgesTo(owners, repliedTo) : new Map<string, Follow>();
  const policies = new Map<string, List>();
  const inList = new Set<string>();
  if (repliedTo) {
    // Replies depend on each list's policy: the lists themselves in one batch read.
    const lists = await batchGet(memberships.map((m) => keys.list(m.ownerId, m.listId)), listItem);
    for (const list of lists.values()) policies.set(list.id, list);
    const found = await batchGet(memberships.map((m) => keys.listMember(m.listId, repliedTo)), listMemberItem);
    for (const m of found.values()) inList.add(m.listId);
  }
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
  await writeListEntries([], memberships.map((m) => keys.listEntry(m.listId, statusId)));
  return memberships.length;
}

export const BACKFILL_STATUSES = 20;

/**
 * Fills a list with the latest statuses of an account just added to it, as the
 * fan-out would have delivered them: only what the owner may see, through the
 * same rule. One Query of the account's statuses plus batch reads.
 */
export async function backfillList(list: List, owner: Account, accountId: string, follow: Follow): Promise<number> {
  const statuses = await accountStatusesPage(accountId, { limit: BACKFILL_STATUSES }, {}, (page) => filterViewable(page, owner));
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
