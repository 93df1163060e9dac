// Statuses (and reblogs, which are statuses with `reblogOfId`). The item schema
// is the contract between the status, timeline, interaction and notification code.
import { z } from 'zod';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { accountsByIds, type Account } from './accounts';
import { remoteEmoji } from './emojis';
import { batchGet, expiresIn, getItem, queryAll, updateItem, type TransactItem } from './table';

export const visibilities = ['public', 'unlisted', 'private', 'direct'] as const;
export type Visibility = (typeof visibilities)[number];

export const statusMention = z.object({
  id: z.string(),
  username: z.string(),
  acct: z.string(),
  url: z.string(),
});

/** A quote's states, as Mastodon's Quote model (lib/db/quotes.ts). */
export const quoteStates = ['pending', 'accepted', 'rejected', 'revoked', 'deleted'] as const;
export type QuoteState = (typeof quoteStates)[number];
/** Who may quote a status (Mastodon 4.5's `quote_approval_policy` as the API names it). */
export const quotePolicies = ['public', 'followers', 'nobody'] as const;
export type QuotePolicy = (typeof quotePolicies)[number];

/**
 * What a quoting status says of its quote, kept on the status so that a page renders it without a read; the quote
 * record (lib/db/quotes.ts) is written and changed with it in one transaction. `quotedStatusId` is null once the
 * quoted status is deleted (`deleted`).
 */
export const statusQuote = z.object({
  quotedStatusId: z.string().nullable(),
  quotedAccountId: z.string().nullable(),
  state: z.enum(quoteStates),
  /** The quoted author's approval stamp (FEP-044f QuoteAuthorization) of a quote of a remote status, once accepted. */
  approvalUri: z.string().optional(),
});
export type StatusQuote = z.infer<typeof statusQuote>;

export const statusItem = z.object({
  id: z.string(),
  accountId: z.string(),
  createdAt: z.string(),
  /** For a reblog: the reblogged status; the reblog itself has no text of its own. */
  reblogOfId: z.string().nullable().default(null),
  /** Source text as typed, and the HTML the server rendered from it. */
  text: z.string().default(''),
  contentHtml: z.string().default(''),
  spoilerText: z.string().default(''),
  sensitive: z.boolean().default(false),
  visibility: z.enum(visibilities),
  language: z.string().nullable().default(null),
  inReplyToId: z.string().nullable().default(null),
  inReplyToAccountId: z.string().nullable().default(null),
  /** Root of the thread (its own id for a thread starter); conversation mutes key on it. */
  conversationId: z.string(),
  mentions: z.array(statusMention).default([]),
  /** Hashtags, lower-cased and NFKC-normalised, without `#`. */
  tags: z.array(z.string()).default([]),
  /** Each of `tags` as the status first spells it, in the same order (lib/text/tags.ts tagged); absent on statuses stored before. */
  tagNames: z.array(z.string()).optional(),
  mediaIds: z.array(z.string()).default([]),
  pollId: z.string().nullable().default(null),
  applicationName: z.string().nullable().default(null),
  applicationWebsite: z.string().nullable().default(null),
  repliesCount: z.number().int().default(0),
  reblogsCount: z.number().int().default(0),
  favouritesCount: z.number().int().default(0),
  editedAt: z.string().nullable().default(null),
  /** A remote status: its ActivityPub id (unique, looked up through keys.statusUri) and its page; null for local ones. */
  uri: z.string().nullable().default(null),
  url: z.string().nullable().default(null),
  /** A remote status's custom emoji (its server's, that its text uses); ours are looked up by shortcode. */
  emojis: z.array(remoteEmoji).optional(),
  /** The URL of its preview card (lib/db/cards.ts), set by the cards worker once the card is known. */
  cardUrl: z.string().optional(),
  /** The status it quotes (Mastodon 4.4), absent for most. */
  quote: statusQuote.optional(),
  /** Accepted quotes of it; moved by lib/db/quotes.ts. */
  quotesCount: z.number().int().optional(),
  /** Who may quote it; absent (statuses stored before quotes existed, or received without a policy) is `nobody`, as Mastodon's 0. */
  quoteApprovalPolicy: z.enum(quotePolicies).optional(),
  /** A remote status: when its replies were last asked of its server, and the refresh that did it (lib/statuses/replies_refresh.ts). */
  fetchedRepliesAt: z.string().optional(),
  repliesRefreshId: z.string().optional(),
});
export type Status = z.infer<typeof statusItem>;

/** A status received from another server: it carries the ActivityPub id its server gave it; ours have none. */
export const isRemoteStatus = (status: Pick<Status, 'uri'>): boolean => status.uri !== null;

/** The status item as written: its key, the author's-statuses index, and the parsed attributes. */
export const statusRecord = (status: Status) => ({
  ...keys.status(status.id),
  ...gsi1.accountStatus(status.accountId, status.id),
  ...statusItem.parse(status),
});

/** A status by id; `consistent` reads it strongly consistently (it includes a change just committed). */
export const statusById = (id: string, consistent = false) => getItem(keys.status(id), statusItem, consistent);

/** Many statuses in one batch read; missing (deleted) ones are absent from the map. */
export async function statusesByIds(ids: string[]): Promise<Map<string, Status>> {
  const found = await batchGet(ids.map(keys.status), statusItem);
  const byId = new Map<string, Status>();
  for (const status of found.values()) byId.set(status.id, status);
  return byId;
}

// ---- posting and deleting (lib/statuses/create.ts, lib/statuses/delete.ts) ----

/** How long an Idempotency-Key is honoured (the spec's "up to 1 hour"). */
export const IDEMPOTENCY_SECONDS = 3600;

export const idempotencyItem = z.object({
  accountId: z.string(),
  statusId: z.string(),
  /** TTL (seconds since the epoch); TTL deletion is lazy, so reads check it too. */
  expiresAt: z.number().int(),
});

/** The status an account already posted with this key (its SHA-256) within the hour, if any. */
export async function idempotentStatusId(accountId: string, keyHash: string): Promise<string | undefined> {
  const found = await getItem(keys.idempotency(accountId, keyHash), idempotencyItem, true);
  return found && found.expiresAt > Math.floor(Date.now() / 1000) ? found.statusId : undefined;
}

/** The idempotency item, written in the posting transaction: absent or expired, else the transaction fails. */
export const putIdempotency = (accountId: string, keyHash: string, statusId: string): TransactItem => ({
  Put: {
    Item: { ...keys.idempotency(accountId, keyHash), ...idempotencyItem.parse({ accountId, statusId, expiresAt: expiresIn(IDEMPOTENCY_SECONDS) }) },
    ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :now',
    ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
  },
});

/** A reply under its parent's partition (for /context descendants). */
export const replyItem = z.object({ statusId: z.string(), accountId: z.string(), parentId: z.string() });

export const putReply = (status: Status & { inReplyToId: string }): TransactItem => ({
  Put: { Item: { ...keys.reply(status.inReplyToId, status.id), ...replyItem.parse({ statusId: status.id, accountId: status.accountId, parentId: status.inReplyToId }) } },
});

/** Reply ids of a status, oldest first (every page). */
export async function replyIdsOf(parentId: string): Promise<string[]> {
  const replies = await queryAll(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.repliesPartition(parentId) } },
    replyItem,
  );
  return replies.map((r) => r.statusId);
}

/** The parent's repliesCount moves with its replies; never onto a parent that is gone. */
export const countReply = (parentId: string, delta: 1 | -1): TransactItem => ({
  Update: {
    Key: keys.status(parentId),
    UpdateExpression: 'ADD repliesCount :d',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':d': delta },
  },
});

/**
 * The author's statusesCount (and lastStatusAt when posting). The instance's status
 * count is not in the transaction (every post would conflict on it): see lib/db/stats.ts.
 */
export const countAuthorStatus = (accountId: string, delta: 1 | -1, at?: string): TransactItem[] => [
  {
    Update: {
      Key: keys.account(accountId),
      UpdateExpression: at ? 'SET lastStatusAt = :at ADD statusesCount :d' : 'ADD statusesCount :d',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':d': delta, ...(at ? { ':at': at } : {}) },
    },
  },
];

export const putStatus = (status: Status): TransactItem => ({ Put: { Item: statusRecord(status), ConditionExpression: 'attribute_not_exists(PK)' } });

/** Deletes the status only if it is still there and owned by `accountId`. */
export const deleteOwnStatus = (status: Status): TransactItem => ({
  Delete: { Key: keys.status(status.id), ConditionExpression: 'accountId = :a', ExpressionAttributeValues: { ':a': status.accountId } },
});

export const deleteReply = (parentId: string, replyId: string): TransactItem => ({ Delete: { Key: keys.reply(parentId, replyId) } });

const usernamePointer = z.object({ accountId: z.string() });

/** Local accounts by username (case-insensitive), two batch reads; unknown usernames are absent. Keys are lower-cased. */
export async function localAccountsByUsernames(usernames: string[]): Promise<Map<string, Account>> {
  const lowered = [...new Set(usernames.map((u) => u.toLowerCase()))];
  if (lowered.length === 0) return new Map();
  const pointers = await batchGet(lowered.map(keys.username), usernamePointer);
  const accounts = await accountsByIds([...new Set([...pointers.values()].map((p) => p.accountId))]);
  const out = new Map<string, Account>();
  for (const account of accounts.values()) if (!account.domain) out.set(account.username.toLowerCase(), account);
  return out;
}

/**
 * Claims the fetching of a remote status's replies for the refresh `refreshId`: one conditional update, so that of
 * the viewers opening its thread at once only one starts it. False when another did within the cooldown (its
 * `fetchedRepliesAt` is after `notAfter`) or the status is gone.
 */
export async function claimRepliesFetch(statusId: string, refreshId: string, at: string, notAfter: string): Promise<boolean> {
  const claimed = await updateItem(
    {
      Key: keys.status(statusId),
      UpdateExpression: 'SET fetchedRepliesAt = :at, repliesRefreshId = :refresh',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(fetchedRepliesAt) OR fetchedRepliesAt <= :notAfter)',
      ExpressionAttributeValues: { ':at': at, ':refresh': refreshId, ':notAfter': notAfter },
    },
    statusItem,
  );
  return claimed !== undefined;
}
