// A user's domain blocks (Mastodon's /api/v1/domain_blocks and
// AfterBlockDomainFromAccountService). Blocking a domain removes the followers
// and pending follow requests from it (Mastodon 3.x) and clears the user's
// notifications from it (as Mastodon 4.x does); what it hides on read, and the
// notifications it keeps out afterwards, is decided in lib/policy/hidden.ts.
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { accountsByIds, type Account } from '../db/accounts';
import {
  blockableDomain,
  createDomainBlock,
  deleteDomainBlock,
  deleteNotifications,
  domainBlocksPage,
  followRequestsReceivedPage,
  notificationsPageFrom,
  removeFollowers,
  removeFollowRequests,
} from '../db/domain_blocks';
import { nowIso, type Item } from '../db/table';
import { followerEdgesFrom } from '../db/timelines';
import type { Page } from '../paging';
import { sendRejectFollow } from '../federation/outbox';
import { newId } from '../ids';
import { log } from '../log';

/** Mastodon's DomainValidator: the normalised host is shorter than 256 characters, labels 1 to 63 characters of [a-z0-9-]. */
const MAX_DOMAIN_LENGTH = 255;
const LABEL = /^[a-z0-9-]{1,63}$/;

/**
 * A domain as Mastodon's DomainNormalizable stores it: trimmed, one trailing `/`
 * dropped, IDN to ASCII (punycode) and lower-cased (Node's WHATWG host parser
 * does both, as Addressable's normalized_host). Undefined when Mastodon would
 * reject it: a URL, a port, `user@domain`, a wildcard (`*.example.com`), an
 * empty label, a character outside [a-z0-9-], or 256 characters and more.
 */
export function normalizeDomain(raw: string): string | undefined {
  const trimmed = raw.trim().replace(/\/$/, '');
  // The host parser would take a URL's or an address's host out of them; Mastodon does not.
  if (trimmed === '' || /[\s/\\:@?#[\]%]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed);
  if (ascii === '' || ascii.length > MAX_DOMAIN_LENGTH) return undefined;
  return ascii.split('.').every((label) => LABEL.test(label)) ? ascii : undefined;
}

/** Long enough for any domain Mastodon accepts written in Unicode; longer input is refused before parsing. */
const MAX_INPUT = 1024;

/** The `domain` parameter: required, normalised, "can't be blank" / "is invalid" as Mastodon's validations say. */
export const domainParam = z
  .string({ invalid_type_error: 'must be a string' })
  .max(MAX_INPUT, 'is invalid')
  .transform((value, ctx) => {
    const domain = normalizeDomain(value);
    if (domain === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, message: value.trim() === '' ? "can't be blank" : 'is invalid' });
    return domain ?? z.NEVER;
  });

/**
 * Blocks `domain` (normalised) for `viewer`; blocking it again is harmless. The
 * clean-up runs every time, so a retry finishes one that failed half-way.
 */
export async function blockDomain(viewer: Account, domain: string): Promise<void> {
  const created = await createDomainBlock({ id: newId(), accountId: viewer.id, domain, createdAt: nowIso() });
  const cleaned = await afterDomainBlock(viewer, domain);
  log.info('domain blocked', { accountId: viewer.id, domain, created, ...cleaned });
}

/** Unblocks `domain`; nothing to do when it was not blocked. Removed followers and notifications stay removed, as in Mastodon. */
export async function unblockDomain(viewer: Account, domain: string): Promise<void> {
  await deleteDomainBlock(viewer.id, domain);
}

/** A page of the viewer's blocked domains, newest block first, with the block ids the Link header pages by. */
export async function blockedDomains(viewer: Account, page: Page): Promise<{ domains: string[]; newest?: string; oldest?: string }> {
  const blocks = await domainBlocksPage(viewer.id, page);
  return { domains: blocks.map((b) => b.domain), newest: blocks[0]?.id, oldest: blocks.at(-1)?.id };
}

/** Which of `accountIds` are accounts on `domain`, by id: one batch read (100 keys per call). */
async function onDomain(accountIds: string[], domain: string): Promise<Map<string, Account>> {
  if (accountIds.length === 0) return new Map();
  const accounts = await accountsByIds([...new Set(accountIds)]);
  return new Map([...accounts.values()].filter((a) => blockableDomain(a) === domain).map((a) => [a.id, a]));
}

/** Each removed follower or request hears that its Follow no longer stands (never throws: the removal is done). */
async function rejectFollows(viewer: Account, removed: { account: Account | undefined; activityId?: string }[]): Promise<void> {
  for (const { account, activityId } of removed) if (account) await sendRejectFollow(viewer, account, activityId);
}

/** Reads a partition page by page to the end (a deleted item's key still marks where to continue), handing each page to `handle`. */
async function eachPage<T>(read: (start?: Item) => Promise<{ items: T[]; lastKey?: Item }>, handle: (items: T[]) => Promise<void>): Promise<void> {
  let start: Item | undefined;
  do {
    const page = await read(start);
    await handle(page.items);
    start = page.lastKey;
  } while (start);
}

/**
 * Mastodon's AfterBlockDomainFromAccountService: the accounts on `domain` stop
 * following the user (edges removed with exact counters), their pending follow
 * requests are rejected, and the user's notifications from them are cleared.
 * Costs a read of the user's followers, requests and notifications (and their
 * accounts, a batch read per page); nothing is read per viewer afterwards.
 * Each removed follower and request is sent a Reject of its Follow, as Mastodon does.
 */
export async function afterDomainBlock(viewer: Account, domain: string) {
  const accountId = viewer.id;
  // One step after the other: the first two both move counters on the user's account item, and
  // concurrent transactions on one item would conflict.
  let followersRemoved = 0;
  let requestsRejected = 0;
  let notificationsCleared = 0;
  await eachPage(
    (start) => followerEdgesFrom(accountId, start),
    async (edges) => {
      const remote = await onDomain(edges.map((e) => e.followerId), domain);
      const leaving = edges.filter((e) => remote.has(e.followerId));
      if (leaving.length === 0) return;
      followersRemoved += await removeFollowers(accountId, leaving);
      await rejectFollows(viewer, leaving.map((e) => ({ account: remote.get(e.followerId), activityId: e.activityId })));
    },
  );
  await eachPage(
    (start) => followRequestsReceivedPage(accountId, start),
    async (requests) => {
      const remote = await onDomain(requests.map((r) => r.accountId), domain);
      if (remote.size === 0) return;
      requestsRejected += await removeFollowRequests(accountId, [...remote.keys()]);
      const rejected = requests.filter((r) => remote.has(r.accountId));
      await rejectFollows(viewer, rejected.map((r) => ({ account: remote.get(r.accountId), activityId: r.activityId })));
    },
  );
  await eachPage(
    (start) => notificationsPageFrom(accountId, start),
    async (notifications) => {
      const remote = await onDomain(notifications.map((n) => n.fromAccountId), domain);
      const cleared = notifications.filter((n) => remote.has(n.fromAccountId));
      if (cleared.length > 0) await deleteNotifications(cleared);
      notificationsCleared += cleared.length;
    },
  );
  return { followersRemoved, requestsRejected, notificationsCleared };
}
