// Accounts: the profile item, its uniqueness items (username, e-mail) and the
// login state of local users, all on one item so auth costs one read.
import { z } from 'zod';
import { padId } from '../ids';
import { remoteEmoji } from './emojis';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { dropFacets, facetPuts, syncFacets } from './admin_accounts';
import { batchGet, deleteItem, getItem, nowIso, putItem, query, queryAll, setAttributes, transact, updateItem, type Item } from './table';

export const profileField = z.object({ name: z.string(), value: z.string() });
export const renderedField = z.object({ name: z.string(), value: z.string(), verifiedAt: z.string().nullable().default(null) });

export const accountItem = z.object({
  id: z.string(),
  username: z.string(),
  /** null for local accounts. */
  domain: z.string().nullable().default(null),
  displayName: z.string().default(''),
  /** Plain-text source of the note, and the HTML the server rendered from it. */
  note: z.string().default(''),
  noteHtml: z.string().default(''),
  fields: z.array(profileField).default([]),
  fieldsHtml: z.array(renderedField).default([]),
  locked: z.boolean().default(false),
  bot: z.boolean().default(false),
  discoverable: z.boolean().default(false),
  avatarKey: z.string().nullable().default(null),
  headerKey: z.string().nullable().default(null),
  // ---- what the owner says of the profile (Mastodon 4.6's Profile entity, lib/accounts/profile.ts) ----
  /** Plain-text descriptions of the avatar and the header, for screen readers; '' when none. */
  avatarDescription: z.string().default(''),
  headerDescription: z.string().default(''),
  /** Profile tabs the owner wants shown: media (with replies among them) and featured. */
  showMedia: z.boolean().default(true),
  showMediaReplies: z.boolean().default(true),
  showFeatured: z.boolean().default(true),
  /** Hides who it follows and who follows it; null until the owner (or a remote actor) says. */
  hideCollections: z.boolean().nullable().default(null),
  /** Its public posts may be found by anyone's full-text search. */
  indexable: z.boolean().default(false),
  /** Sites allowed to credit the account as a link's author. */
  attributionDomains: z.array(z.string()).default([]),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  followersCount: z.number().int().default(0),
  followingCount: z.number().int().default(0),
  statusesCount: z.number().int().default(0),
  lastStatusAt: z.string().nullable().default(null),
  followRequestsCount: z.number().int().default(0),
  // Posting defaults (`source`).
  privacy: z.enum(['public', 'unlisted', 'private', 'direct']).default('public'),
  sensitive: z.boolean().default(false),
  language: z.string().nullable().default(null),
  /** Who may quote new statuses by default (`source[quote_policy]`, Mastodon 4.5); absent: `public`, Mastodon's default. */
  quotePolicy: z.enum(['public', 'followers', 'nobody']).optional(),
  // Login state of a local user.
  email: z.string().optional(),
  passwordHash: z.string().optional(),
  confirmedAt: z.string().nullable().default(null),
  approved: z.boolean().default(true),
  disabled: z.boolean().default(false),
  admin: z.boolean().default(false),
  /** The account's role (lib/policy/roles.ts): null is `everyone` (Owner when `admin` is set, from before roles). */
  roleId: z.string().nullable().default(null),
  // ---- sanctions (lib/policy/sanctions.ts, set by lib/moderation): when each began, null when not in force ----
  /** Limited (Mastodon's "silenced"): off public places for those who do not follow it. */
  silencedAt: z.string().nullable().default(null),
  /** Suspended: gone for everyone else; its data kept until `suspendedAt` + 30 days, then purged. */
  suspendedAt: z.string().nullable().default(null),
  /** Who suspended it: this server's moderators, or its own server (a remote account deleted or suspended there). */
  suspensionOrigin: z.enum(['local', 'remote']).nullable().default(null),
  /** Its media are forced sensitive. */
  sensitizedAt: z.string().nullable().default(null),
  /**
   * A moderator asked for the suspended account's data to be deleted now (DELETE /api/v1/admin/accounts/:id):
   * the sweeper's purge of suspended accounts takes it without waiting out the retention period.
   */
  purgeRequestedAt: z.string().nullable().default(null),
  /** The address a local account signed up from (Admin::Account `ip`, the admin list's `ip` filter). */
  signUpIp: z.string().nullable().default(null),
  locale: z.string().nullable().default(null),
  reason: z.string().nullable().default(null),
  lastSignInAt: z.string().nullable().default(null),
  signInCount: z.number().int().default(0),
  /** The OAuth application (client_id) a local user signed up with: the only one that may resend its confirmation e-mail. */
  createdByClientId: z.string().nullable().default(null),
  // ---- a remote account: its ActivityPub actor (lib/federation/actors.ts); all null for local accounts ----
  /** The actor's id (ActivityPub URI); unique, looked up through keys.actorUri. */
  uri: z.string().nullable().default(null),
  /** The actor's profile page (`url`), shown to people. */
  url: z.string().nullable().default(null),
  actorType: z.string().nullable().default(null),
  inboxUrl: z.string().nullable().default(null),
  sharedInboxUrl: z.string().nullable().default(null),
  outboxUrl: z.string().nullable().default(null),
  followersUrl: z.string().nullable().default(null),
  followingUrl: z.string().nullable().default(null),
  featuredUrl: z.string().nullable().default(null),
  publicKeyId: z.string().nullable().default(null),
  publicKeyPem: z.string().nullable().default(null),
  avatarRemoteUrl: z.string().nullable().default(null),
  headerRemoteUrl: z.string().nullable().default(null),
  /** When the actor document was last fetched (refreshed when older than a day). */
  fetchedAt: z.string().nullable().default(null),
  /** The custom emoji of its server that its name, note and fields use (an actor's `Emoji` tags). */
  emojis: z.array(remoteEmoji).optional(),
  // ---- what a viewer may have to hide (lib/db/viewer_summary.ts): set by the writes that make the
  // first block, block received, mute or filter, never cleared; `hidesTracked` says the account has
  // been followed since it was made, so that a flag still false means "none" and its Query is skipped ----
  hidesTracked: z.boolean().default(false),
  hasBlocks: z.boolean().default(false),
  hasBlockedBy: z.boolean().default(false),
  hasMutes: z.boolean().default(false),
  hasFilters: z.boolean().default(false),
  /** Flags a rendered status asks for (lib/db/status_page.ts): bookmarked, and muted (a conversation mute). */
  hasBookmarks: z.boolean().default(false),
  hasConversationMutes: z.boolean().default(false),
  /**
   * The highest status id (padded) this account has favourited or reblogged, raised in the transaction that
   * writes the flag: a newer status has neither flag, and a page does not ask (lib/db/viewer_summary.ts).
   * Null for an account made before it existed, and for remote accounts: their flags are always read.
   */
  flaggedUpTo: z.string().nullable().default(null),
});
export type Account = z.infer<typeof accountItem>;

const pointer = z.object({ accountId: z.string() });

/** `consistent`: a page that shows the account just after changing it (the moderation pages) reads the change. */
export const accountById = (id: string, consistent = false) => getItem(keys.account(id), accountItem, consistent);

export async function accountsByIds(ids: string[]): Promise<Map<string, Account>> {
  const found = await batchGet(ids.map(keys.account), accountItem);
  const byId = new Map<string, Account>();
  for (const account of found.values()) byId.set(account.id, account);
  return byId;
}

export async function accountByUsername(username: string): Promise<Account | undefined> {
  const ref = await getItem(keys.username(username), pointer);
  return ref ? accountById(ref.accountId) : undefined;
}

export async function accountByEmail(email: string): Promise<Account | undefined> {
  const ref = await getItem(keys.email(email), pointer);
  return ref ? accountById(ref.accountId) : undefined;
}

/**
 * The Mastodon 4.4-4.6 profile attributes most accounts leave as they are, with the value an absent one reads as.
 * They are not written while they hold it: every item write and counter update is billed by the item's size in KB,
 * and these would take an ordinary account item past 1 KB, doubling the cost of each write to it (a follow's, a
 * post's, a favourite's transaction).
 */
const SPARSE_DEFAULTS: Partial<Record<keyof Account, unknown>> = {
  avatarDescription: '',
  headerDescription: '',
  showMedia: true,
  showMediaReplies: true,
  showFeatured: true,
  hideCollections: null,
  indexable: false,
  attributionDomains: [],
};

const isSparseDefault = (key: string, value: unknown): boolean =>
  key in SPARSE_DEFAULTS && JSON.stringify(SPARSE_DEFAULTS[key as keyof Account]) === JSON.stringify(value);

/** An account item as written: the sparse attributes left out while they hold their default. */
export function storedAccountAttributes<T extends Record<string, unknown>>(item: T): T {
  return Object.fromEntries(Object.entries(item).filter(([k, v]) => !isSparseDefault(k, v))) as T;
}

/**
 * The UpdateItem expression of changes to an account: the sparse attributes that return to their default are
 * removed rather than set, the rest set. Undefined when there is nothing to change.
 */
export function accountUpdate(changes: Record<string, unknown>): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } | undefined {
  const kept = Object.entries(changes).filter(([, v]) => v !== undefined);
  const set = setAttributes(Object.fromEntries(kept.filter(([k, v]) => !isSparseDefault(k, v))));
  const removed = kept.filter(([k, v]) => isSparseDefault(k, v)).map(([k]) => k);
  if (!set && removed.length === 0) return undefined;
  const names: Record<string, string> = { ...(set?.ExpressionAttributeNames ?? {}) };
  removed.forEach((k, i) => (names[`#r${i}`] = k));
  const parts = [set?.UpdateExpression, removed.length > 0 ? `REMOVE ${removed.map((_, i) => `#r${i}`).join(', ')}` : undefined].filter(Boolean);
  return { UpdateExpression: parts.join(' '), ExpressionAttributeNames: names, ...(set ? { ExpressionAttributeValues: set.ExpressionAttributeValues } : {}) };
}

export type NewLocalAccount = Pick<Account, 'id' | 'username' | 'email' | 'passwordHash'> &
  Partial<Pick<Account, 'confirmedAt' | 'approved' | 'locale' | 'reason' | 'admin' | 'roleId' | 'displayName' | 'createdByClientId' | 'signUpIp'>>;

/**
 * Creates a local account with its username and e-mail uniqueness items in one
 * transaction. Answers which uniqueness rule failed, if any, having written nothing.
 * `extra` items are Put only if absent. The instance's user count is the
 * caller's to move once this has committed (lib/db/stats.ts).
 */
export async function createLocalAccount(
  input: NewLocalAccount,
  extra: Item[] = [],
): Promise<{ ok: true; account: Account } | { ok: false; taken: 'username' | 'email' }> {
  const now = nowIso();
  const account = accountItem.parse({ ...input, createdAt: now, updatedAt: now, hidesTracked: true, flaggedUpTo: padId('0') });
  const pending = account.approved ? {} : gsi1.pendingAccount(account.id);
  const result = await transact([
    { Put: { Item: { ...keys.username(account.username), ...gsi1.usernameIndex(account.username), accountId: account.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...keys.email(account.email ?? ''), accountId: account.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...keys.account(account.id), ...pending, ...storedAccountAttributes(account) }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ...extra.map((Item) => ({ Put: { Item, ConditionExpression: 'attribute_not_exists(PK)' } })),
    ...(account.admin ? [{ Put: { Item: adminItem(account.id) } }, { Put: { Item: staffItem(account.id, account.roleId) } }] : []),
    ...facetPuts(account),
  ]);
  if (result.ok) return { ok: true, account };
  return { ok: false, taken: result.failed.includes(0) ? 'username' : 'email' };
}

/** Sets profile attributes (only those given) and answers the updated account. */
export async function updateAccount(id: string, changes: Partial<Omit<Account, 'id' | 'username' | 'createdAt'>>): Promise<Account | undefined> {
  const update = accountUpdate({ ...changes, updatedAt: nowIso() })!;
  const updated = await updateItem({ Key: keys.account(id), ...update, ConditionExpression: 'attribute_exists(PK)' }, accountItem);
  if (updated && changes.admin !== undefined) await setAdminMembership(updated);
  if (updated) await syncFacets(updated, Object.keys(changes));
  return updated;
}

/** Approves a pending account, taking it off the pending index. */
export async function approveAccount(id: string): Promise<Account | undefined> {
  const approved = await updateItem(
    {
      Key: keys.account(id),
      UpdateExpression: 'SET approved = :t, updatedAt = :now REMOVE GSI1PK, GSI1SK',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':t': true, ':now': nowIso() },
    },
    accountItem,
  );
  if (approved) await syncFacets(approved, ['approved']);
  return approved;
}

/**
 * Deletes a local account that never got in (a rejected sign-up, as Mastodon's reject): its uniqueness items, its
 * list facets, its tokens' items are the caller's. Only while it is still pending: answers false otherwise.
 */
export async function deletePendingAccount(account: Account): Promise<boolean> {
  const result = await transact([
    { Delete: { Key: keys.account(account.id), ConditionExpression: 'approved = :f', ExpressionAttributeValues: { ':f': false } } },
    { Delete: { Key: keys.username(account.username), ConditionExpression: 'accountId = :id', ExpressionAttributeValues: { ':id': account.id } } },
    ...(account.email ? [{ Delete: { Key: keys.email(account.email), ConditionExpression: 'accountId = :id', ExpressionAttributeValues: { ':id': account.id } } }] : []),
  ]);
  if (!result.ok) return false;
  await dropFacets(account);
  return true;
}

export async function pendingAccounts(limit = 100): Promise<Account[]> {
  const page = await query(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p',
      ExpressionAttributeValues: { ':p': gsi1.pendingAccountsPartition },
      Limit: limit,
    },
    accountItem,
  );
  return page.items;
}

/** Records a sign-in (the sign-in worker calls this). */
/** Records a sign-in; answers the account's locale (the sign-in's activity counts by it), if it has one. */
export async function recordSignIn(id: string, at: string): Promise<string | null> {
  const updated = await updateItem(
    {
      Key: keys.account(id),
      UpdateExpression: 'SET lastSignInAt = :at ADD signInCount :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':at': at, ':one': 1 },
    },
    z.object({ locale: z.string().nullable().default(null) }),
  );
  return updated?.locale ?? null;
}

// Admins are listed in their own partition (oldest first) so the instance
// endpoints can name a contact account without a scan. The membership item
// follows the account's `admin` flag: written with the account, and put or
// deleted whenever updateAccount changes the flag.
const adminItem = (accountId: string) => ({ ...keys.admin(accountId), accountId });

async function setAdminMembership(account: Account): Promise<void> {
  if (account.admin) await putItem(adminItem(account.id));
  else await deleteItem(keys.admin(account.id), pointer);
}

// Staff (any account with a role) are listed in their own partition, so that moderators can be told of a new
// report or sign-up without a scan; the item carries the role, so the list needs no account read to filter.
const staffItem = (accountId: string, roleId: string | null) => ({ ...keys.staff(accountId), accountId, roleId });
const staffPointer = z.object({ accountId: z.string(), roleId: z.string().nullable().default(null) });

/**
 * Gives a local account a role (null: none). `admin` follows whether the role is an administrator's (the
 * contact fallback reads it); the staff membership item follows whether it has a role at all.
 */
export async function setRole(id: string, roleId: string | null, administrator: boolean): Promise<Account | undefined> {
  const updated = await updateAccount(id, { roleId, admin: administrator });
  if (!updated) return undefined;
  if (roleId !== null || administrator) await putItem(staffItem(id, roleId));
  else await deleteItem(keys.staff(id), staffPointer);
  return updated;
}

/** Every staff account's id and role id (the owner made with `--admin` has a null role id), oldest first. */
export async function staffMembers(): Promise<{ accountId: string; roleId: string | null }[]> {
  return queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.staffPartition() } }, staffPointer);
}

/** Admin accounts, oldest first. */
export async function oldestAdmins(limit = 10): Promise<Account[]> {
  const page = await query(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.adminsPartition() }, Limit: limit },
    pointer,
  );
  const found = await accountsByIds(page.items.map((p) => p.accountId));
  return page.items.flatMap((p) => found.get(p.accountId) ?? []);
}

/** A pending e-mail confirmation link, by the SHA-256 of its token; expires by TTL. */
export const confirmationItem = z.object({
  tokenHash: z.string(),
  accountId: z.string(),
  email: z.string(),
  createdAt: z.string(),
  expiresAt: z.number(),
});
export type Confirmation = z.infer<typeof confirmationItem>;

/** The item to write (e.g. as an `extra` of createLocalAccount) for a confirmation link. */
export const confirmationRecord = (link: Confirmation): Item => ({ ...keys.confirmation(link.tokenHash), ...confirmationItem.parse(link) });

/**
 * Consumes a confirmation link and marks its account's e-mail confirmed, in one
 * transaction: a link works once, not after it expired (TTL deletion is lazy),
 * and not for an address the account no longer has. Answers the confirmed account.
 */
export async function confirmEmail(tokenHash: string): Promise<Account | undefined> {
  const link = await getItem(keys.confirmation(tokenHash), confirmationItem, true);
  const now = Math.floor(Date.now() / 1000);
  if (!link || link.expiresAt <= now) return undefined;
  const at = nowIso();
  const result = await transact([
    {
      Delete: {
        Key: keys.confirmation(tokenHash),
        ConditionExpression: 'attribute_exists(PK) AND expiresAt > :now',
        ExpressionAttributeValues: { ':now': now },
      },
    },
    {
      Update: {
        Key: keys.account(link.accountId),
        UpdateExpression: 'SET confirmedAt = :at, updatedAt = :at',
        ConditionExpression: 'attribute_exists(PK) AND email = :email',
        ExpressionAttributeValues: { ':at': at, ':email': link.email },
      },
    },
  ]);
  if (!result.ok) return undefined;
  return getItem(keys.account(link.accountId), accountItem, true);
}

/** Why an unconfirmed address was not changed: another account holds the new one, or the account changed meanwhile. */
export type EmailChangeFailure = 'email-taken' | 'changed-meanwhile';

/**
 * Moves a local account that still awaits confirmation to another e-mail address, with a new confirmation
 * link, in one transaction: the new address's claim (absent), the old claim (still this account's) deleted,
 * the account's `email` (still the old one, still unconfirmed) set, the link written. Links sent to the old
 * address stop working (confirmEmail wants the account's current address).
 */
export async function changeUnconfirmedEmail(account: Pick<Account, 'id' | 'email'>, email: string, link: Confirmation): Promise<{ ok: true } | { failed: EmailChangeFailure }> {
  const result = await transact([
    { Put: { Item: { ...keys.email(email), accountId: account.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Delete: { Key: keys.email(account.email ?? ''), ConditionExpression: 'accountId = :id', ExpressionAttributeValues: { ':id': account.id } } },
    {
      Update: {
        Key: keys.account(account.id),
        UpdateExpression: 'SET email = :new, updatedAt = :now',
        ConditionExpression: 'attribute_exists(PK) AND email = :old AND (attribute_not_exists(confirmedAt) OR attribute_type(confirmedAt, :nullType))',
        ExpressionAttributeValues: { ':new': email, ':old': account.email ?? '', ':now': nowIso(), ':nullType': 'NULL' },
      },
    },
    { Put: { Item: confirmationRecord(link) } },
  ]);
  if (result.ok) return { ok: true };
  return { failed: result.failed.includes(0) ? 'email-taken' : 'changed-meanwhile' };
}

/** Writes a new confirmation link for the account's current address (resending the mail). */
export const putConfirmation = async (link: Confirmation): Promise<void> => {
  await putItem({ ...keys.confirmation(link.tokenHash), ...confirmationItem.parse(link) });
};
