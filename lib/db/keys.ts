// Every key of the single table is built here, and only here (GSI1's in ./gsi1.ts).
// The access patterns they serve are listed in lib/db/README.md.
//
// Imported as a namespace (`import * as keys from './keys'`, then `keys.account(id)`): a
// bundle then keeps only the builders its function calls, where one object of them all
// put every builder into every bundle.
import { sha256 } from '../crypto';
import { padId } from '../ids';

export type Key = { PK: string; SK: string };

/** The public timeline partitions: every listed status, this instance's own, and other servers' (`?local=true`, `?remote=true`). */
export type PublicScope = 'all' | 'local' | 'remote';

const lower = (s: string) => s.toLowerCase();

/** The profile directory's partitions: this instance's accounts and other servers' (`?local=true` reads only the first). */
export type DirectoryOrigin = 'local' | 'remote';

/** Sort-key prefix of domain blocks inside an account's blocking partition. */
export const DOMAIN_BLOCK_PREFIX = 'DOMAIN#';

/** The account profile, its counters and, for local users, their login state. */
export const account = (id: string): Key => ({ PK: `ACCOUNT#${padId(id)}`, SK: 'ACCOUNT' });
/** Uniqueness and lookup of a local username (case-insensitive, as Mastodon). */
export const username = (username: string): Key => ({ PK: `USERNAME#${lower(username)}`, SK: 'USERNAME' });
/** Uniqueness and lookup of a login e-mail address. */
export const email = (email: string): Key => ({ PK: `EMAIL#${lower(email)}`, SK: 'EMAIL' });
/** An OAuth application, by client_id. */
export const app = (clientId: string): Key => ({ PK: `APP#${clientId}`, SK: 'APP' });
/** An access token, by the SHA-256 of its value. */
export const token = (tokenHash: string): Key => ({ PK: `TOKEN#${tokenHash}`, SK: 'TOKEN' });
/** An application's access tokens (holding each token's hash): what deleting the app removes. */
export const appToken = (clientId: string, tokenId: string): Key => ({ PK: `APPTOKENS#${clientId}`, SK: padId(tokenId) });
export const appTokensPartition = (clientId: string) => `APPTOKENS#${clientId}`;
/**
 * A fixed-window request counter (lib/http/ratelimit.ts): one item per (throttle, subject, window start in
 * epoch seconds); the subject is an address (IPv6 cut to its /64) or a SHA-256 (token, e-mail). Expires by TTL.
 */
export const rateCounter = (throttle: string, subject: string, windowStart: number): Key => ({ PK: `RATE#${throttle}#${subject}`, SK: `W#${windowStart}` });
/**
 * A key fetch that failed lately (lib/federation/key_gate.ts): per key id (its document was missing or no key) or per
 * host (the server did not answer), by SHA-256, with the time it stands until; expires by TTL.
 */
export const keyFetchFailure = (scope: 'key' | 'host', subject: string): Key => ({ PK: `KEYFAIL#${scope}#${sha256(subject)}`, SK: 'KEYFAIL' });
/** One of the few key fetches a host may have outstanding at once (lib/federation/key_gate.ts), held until its `until`. */
export const keyFetchSlot = (host: string, slot: number): Key => ({ PK: `KEYFETCH#${host}`, SK: `SLOT#${slot}` });
/** An authorization code, by the SHA-256 of its value; expires by TTL. */
export const authCode = (codeHash: string): Key => ({ PK: `CODE#${codeHash}`, SK: 'CODE' });
/** A browser login session of the authorize page, by the SHA-256 of the cookie. */
export const session = (sessionHash: string): Key => ({ PK: `SESSION#${sessionHash}`, SK: 'SESSION' });
/** An e-mail confirmation link, by the SHA-256 of its token. */
export const confirmation = (tokenHash: string): Key => ({ PK: `CONFIRM#${tokenHash}`, SK: 'CONFIRM' });
/** The instance settings (registration mode, confirmation, public preview, texts). */
export const instanceSettings = (): Key => ({ PK: 'INSTANCE', SK: 'SETTINGS' });
/** Instance-wide counters (users, statuses, domains) kept with atomic updates. */
export const instanceStats = (): Key => ({ PK: 'INSTANCE', SK: 'STATS' });
/** The operator's privacy policy (GET /api/v1/instance/privacy_policy); absent while the default one is served. */
export const instancePrivacyPolicy = (): Key => ({ PK: 'INSTANCE', SK: 'PRIVACY_POLICY' });
/** One published version of the terms of service, by its effective date (YYYY-MM-DD): the few versions, read by date. */
export const instanceTerms = (effectiveDate: string): Key => ({ PK: 'INSTANCE_TERMS', SK: effectiveDate });
export const instanceTermsPartition = () => 'INSTANCE_TERMS';
/** A WebSocket connection of the streaming API. */
export const connection = (connectionId: string): Key => ({ PK: `CONN#${connectionId}`, SK: 'CONN' });
/**
 * One of the few connection slots of a source address (`addr`, IPv6 cut to its /64) or an access token
 * (`token`): at most that many items can exist, so a conditional put of a free slot is the limit.
 */
export const streamSlot = (scope: 'addr' | 'token', subject: string, slot: number): Key => ({ PK: `STREAMSLOTS#${scope}#${subject}`, SK: String(slot).padStart(3, '0') });
export const streamSlotsPartition = (scope: 'addr' | 'token', subject: string) => `STREAMSLOTS#${scope}#${subject}`;
/**
 * A streaming subscription: one per (connection, stream), under the channel events are published to; a public or
 * hashtag channel's under one of its STREAM_SHARDS partitions, picked from the connection id (end of file).
 */
export const channelSubscription = (channel: string, connectionId: string, stream: string): Key => ({
  PK: isShardedChannel(channel) ? channelShardPartition(channel, shardOf(connectionId)) : `CHANNEL#${channel}`,
  SK: `${connectionId}#${stream}`,
});
/** An account's own channel (home, notifications, list, direct): one partition. A shared channel's are `channelShardPartition`. */
export const channelPartition = (channel: string) => `CHANNEL#${channel}`;
/** An account with an open stream (one item per WebSocket connection or SSE listener), in the online shard of its listener id. */
export const onlineListener = (accountId: string, listenerId: string): Key => ({ PK: onlineShardPartition(shardOf(listenerId)), SK: `${padId(accountId)}#${listenerId}` });
/** An open stream (WebSocket connection or SSE listener) of an access token: what revoking the token ends. */
export const tokenStream = (tokenId: string, listenerId: string): Key => ({ PK: `TOKENSTREAMS#${padId(tokenId)}`, SK: listenerId });
export const tokenStreamsPartition = (tokenId: string) => `TOKENSTREAMS#${padId(tokenId)}`;
/** A streaming event kept for server-sent-event readers of a channel, by its snowflake event id; expires by TTL. */
export const streamLogEntry = (channel: string, eventId: string): Key => ({ PK: `STREAMLOG#${channel}`, SK: padId(eventId) });
export const streamLogPartition = (channel: string) => `STREAMLOG#${channel}`;
/** Membership of an admin account; the partition lists admins oldest first (the instance's contact fallback). */
export const admin = (accountId: string): Key => ({ PK: 'ADMINS', SK: padId(accountId) });
export const adminsPartition = () => 'ADMINS';
/** Membership of a staff account (any role), oldest first: whom a new report or sign-up is told to. */
export const staff = (accountId: string): Key => ({ PK: 'STAFF', SK: padId(accountId) });
export const staffPartition = () => 'STAFF';
/** One moderator action of the audit log, by its id (newest first in the partition's order read backwards). */
export const auditLogEntry = (id: string): Key => ({ PK: 'AUDITLOG', SK: padId(id) });
export const auditLogPartition = () => 'AUDITLOG';
/** Distinct active users whose latest activity fell on a day (YYYY-MM-DD); one partition, read as a day range. */
export const activityDay = (day: string): Key => ({ PK: 'ACTIVITY', SK: `DAY#${day}` });
export const activityPartition = () => 'ACTIVITY';
/** Distinct accounts active during a week (named by its Monday, YYYY-MM-DD): GET /api/v1/instance/activity's logins. */
export const activityWeek = (monday: string): Key => ({ PK: 'ACTIVITY', SK: `WEEK#${monday}` });
/** The day of an account's latest recorded activity (moves its count between activity days). */
export const accountActivity = (accountId: string): Key => ({ PK: `ACTIVE#${padId(accountId)}`, SK: 'ACTIVE' });

// ---- statuses (lib/db/statuses.ts) ----
/** A status or a reblog (a status whose `reblogOfId` is set). GSI1: the author's statuses. */
export const status = (id: string): Key => ({ PK: `STATUS#${padId(id)}`, SK: 'STATUS' });
/** A reply under its parent, for /context descendants: partition per parent, newest last. */
export const reply = (parentId: string, replyId: string): Key => ({ PK: `REPLIES#${padId(parentId)}`, SK: padId(replyId) });
export const repliesPartition = (parentId: string) => `REPLIES#${padId(parentId)}`;
/** Idempotency-Key of POST /api/v1/statuses, per account; expires after an hour. */
export const idempotency = (accountId: string, keyHash: string): Key => ({ PK: `IDEMPOTENCY#${padId(accountId)}#${keyHash}`, SK: 'IDEMPOTENCY' });
/** A poll, by its id (the status carries `pollId`). */
export const poll = (id: string): Key => ({ PK: `POLL#${padId(id)}`, SK: 'POLL' });
/** One account's vote on a poll (uniqueness and `own_votes`). */
export const pollVote = (pollId: string, accountId: string): Key => ({ PK: `POLL#${padId(pollId)}`, SK: `VOTE#${padId(accountId)}` });
export const pollPartition = (pollId: string) => `POLL#${padId(pollId)}`;
/** Sort-key prefix of the votes under a poll's partition (the poll item itself sorts apart). */
export const pollVotePrefix = 'VOTE#';
/** A version of an edited status (its original and each edit), oldest first: the history (lib/db/status_edits.ts). */
export const statusEdit = (statusId: string, editId: string): Key => ({ PK: `EDITS#${padId(statusId)}`, SK: padId(editId) });
export const statusEditsPartition = (statusId: string) => `EDITS#${padId(statusId)}`;
/**
 * A quote (lib/db/quotes.ts): one per quoting status, under the quoted status's partition, so that the quotes of a
 * status are one Query (GET /api/v1/statuses/:id/quotes), ordered by the quoting status's id.
 */
export const quote = (quotedStatusId: string, quotingStatusId: string): Key => ({ PK: `QUOTES#${padId(quotedStatusId)}`, SK: padId(quotingStatusId) });
export const quotesPartition = (quotedStatusId: string) => `QUOTES#${padId(quotedStatusId)}`;
/** A media attachment. GSI1: none; ownership is an attribute. */
export const media = (id: string): Key => ({ PK: `MEDIA#${padId(id)}`, SK: 'MEDIA' });

// ---- interactions (lib/db/interactions.ts) ----
/** The viewer-flag items: one per (account, status), looked up by exact key when rendering. */
export const favourite = (accountId: string, statusId: string): Key => ({ PK: `FAV#${padId(accountId)}#${padId(statusId)}`, SK: 'FAV' });
export const reblogFlag = (accountId: string, statusId: string): Key => ({ PK: `REBLOGGED#${padId(accountId)}#${padId(statusId)}`, SK: 'REBLOGGED' });
export const bookmark = (accountId: string, statusId: string): Key => ({ PK: `BOOKMARK#${padId(accountId)}#${padId(statusId)}`, SK: 'BOOKMARK' });
export const pin = (accountId: string, statusId: string): Key => ({ PK: `PIN#${padId(accountId)}#${padId(statusId)}`, SK: 'PIN' });
export const conversationMute = (accountId: string, conversationId: string): Key => ({ PK: `CONVMUTE#${padId(accountId)}#${padId(conversationId)}`, SK: 'CONVMUTE' });
/** Lists, each ordered by the interaction's own id (Link paging as Mastodon): who favourited / reblogged a status; what an account favourited / bookmarked / pinned. */
export const statusFavourites = (statusId: string, favId: string): Key => ({ PK: `STATUS_FAVS#${padId(statusId)}`, SK: padId(favId) });
export const statusFavouritesPartition = (statusId: string) => `STATUS_FAVS#${padId(statusId)}`;
export const statusReblogs = (statusId: string, reblogId: string): Key => ({ PK: `STATUS_REBLOGS#${padId(statusId)}`, SK: padId(reblogId) });
export const statusReblogsPartition = (statusId: string) => `STATUS_REBLOGS#${padId(statusId)}`;
export const accountFavourites = (accountId: string, favId: string): Key => ({ PK: `ACCOUNT_FAVS#${padId(accountId)}`, SK: padId(favId) });
export const accountFavouritesPartition = (accountId: string) => `ACCOUNT_FAVS#${padId(accountId)}`;
export const accountBookmarks = (accountId: string, bookmarkId: string): Key => ({ PK: `ACCOUNT_BOOKMARKS#${padId(accountId)}`, SK: padId(bookmarkId) });
export const accountBookmarksPartition = (accountId: string) => `ACCOUNT_BOOKMARKS#${padId(accountId)}`;
export const accountPins = (accountId: string, statusId: string): Key => ({ PK: `ACCOUNT_PINS#${padId(accountId)}`, SK: padId(statusId) });
export const accountPinsPartition = (accountId: string) => `ACCOUNT_PINS#${padId(accountId)}`;

// ---- social graph (lib/db/follows.ts) ----
/** A follow edge, stored once: PK the follower, SK the followed account; GSI1 inverts it (followers of). */
export const follow = (followerId: string, followedId: string): Key => ({ PK: `FOLLOWING#${padId(followerId)}`, SK: padId(followedId) });
export const followingPartition = (followerId: string) => `FOLLOWING#${padId(followerId)}`;
/** A pending follow request to a locked account, stored once, inverted by GSI1 (requests received). */
export const followRequest = (requesterId: string, targetId: string): Key => ({ PK: `REQUESTED#${padId(requesterId)}`, SK: padId(targetId) });
export const followRequestsSentPartition = (requesterId: string) => `REQUESTED#${padId(requesterId)}`;

// ---- timelines (lib/db/timelines.ts) ----
/** A home feed entry of `ownerId` for a status (or reblog) id; written by the fan-out worker. */
export const homeEntry = (ownerId: string, statusId: string): Key => ({ PK: `HOME#${padId(ownerId)}`, SK: padId(statusId) });
export const homePartition = (ownerId: string) => `HOME#${padId(ownerId)}`;
/**
 * One page of a status's fan-out (`create` or `delete`), starting after follower `after` ('' for the first):
 * the marker that lets a page be enqueued once and done once however often SQS delivers it. Expires by TTL.
 */
export const fanoutPage = (statusId: string, kind: 'create' | 'delete', after: string): Key => ({ PK: `FANOUT#${padId(statusId)}`, SK: `${kind}#${after ? padId(after) : 'FIRST'}` });
/**
 * A new status whose distribution is owed (lib/db/fanout_owed.ts): written in the posting transaction, removed
 * when the first fan-out page is done. Spread over FANOUT_OWED_SHARDS partitions by the status id's low bits (its
 * random sequence), so every post does not write one partition; each is read by the sweeper in id (time) order.
 */
export const FANOUT_OWED_SHARDS = 4;
export const fanoutOwedPartition = (shard: number) => `FANOUT_OWED#${shard}`;
export const fanoutOwed = (statusId: string): Key => ({ PK: fanoutOwedPartition(Number(BigInt(statusId) % BigInt(FANOUT_OWED_SHARDS))), SK: padId(statusId) });
/** The public timelines: `all` (local and remote), `local` and `remote`; each entry is a public, non-reply-hidden status id. */
export const publicEntry = (scope: PublicScope, statusId: string): Key => ({ PK: `PUBLIC#${scope}`, SK: padId(statusId) });
export const publicPartition = (scope: PublicScope) => `PUBLIC#${scope}`;
/** A hashtag timeline entry (tag name lower-cased, NFKC). */
export const tagEntry = (tag: string, statusId: string): Key => ({ PK: `TAG#${tag}`, SK: padId(statusId) });
export const tagPartition = (tag: string) => `TAG#${tag}`;
/** A hashtag's record (name as first used, usage counters). */
export const tag = (tag: string): Key => ({ PK: `TAGINFO#${tag}`, SK: 'TAG' });
/** Reading-position markers of an account (home, notifications). */
export const marker = (accountId: string, timeline: string): Key => ({ PK: `MARKER#${padId(accountId)}`, SK: timeline });
export const markerPartition = (accountId: string) => `MARKER#${padId(accountId)}`;

// ---- notifications (lib/db/notifications.ts) ----
export const notification = (accountId: string, notificationId: string): Key => ({ PK: `NOTIFS#${padId(accountId)}`, SK: padId(notificationId) });
export const notificationsPartition = (accountId: string) => `NOTIFS#${padId(accountId)}`;
/** Polls to close: one partition per minute bucket (YYYY-MM-DDTHH:MM) read by the sweeper. */
export const pollExpiry = (minute: string, pollId: string): Key => ({ PK: `POLL_EXPIRY#${minute}`, SK: padId(pollId) });
export const pollExpiryPartition = (minute: string) => `POLL_EXPIRY#${minute}`;
/** Our polls whose counts changed since their last Update(Question): the sweeper sends one per minute at most. */
export const pollChanged = (pollId: string): Key => ({ PK: 'POLL_CHANGED', SK: padId(pollId) });
export const pollChangedPartition = 'POLL_CHANGED';
/** At most one notification per (recipient, type, actor, status): written with the notification, removed with it. */
export const notificationOnce = (accountId: string, type: string, fromAccountId: string, statusId: string | null): Key => ({
  PK: `NOTIF_ONCE#${padId(accountId)}#${type}#${padId(fromAccountId)}#${statusId ? padId(statusId) : '-'}`,
  SK: 'NOTIF_ONCE',
});
/** The sweeper's watermark per job (`POLLS`: the last poll-expiry minute fully processed). */
export const sweeperWatermark = (job: string): Key => ({ PK: 'SWEEPER', SK: job });

// ---- lists (lib/db/lists.ts) ----
/** A list, under its owner: the partition is the owner's lists, oldest first. */
export const list = (ownerId: string, listId: string): Key => ({ PK: `LISTS#${padId(ownerId)}`, SK: padId(listId) });
export const listsPartition = (ownerId: string) => `LISTS#${padId(ownerId)}`;
/** An account in a list, stored once; GSI1 inverts it (the lists containing an account, by owner). */
export const listMember = (listId: string, accountId: string): Key => ({ PK: `LIST_MEMBERS#${padId(listId)}`, SK: padId(accountId) });
export const listMembersPartition = (listId: string) => `LIST_MEMBERS#${padId(listId)}`;
/** A list timeline entry (written by the fan-out, and by the backfill when an account is added). */
export const listEntry = (listId: string, statusId: string): Key => ({ PK: `LIST#${padId(listId)}`, SK: padId(statusId) });
export const listPartition = (listId: string) => `LIST#${padId(listId)}`;

// ---- scheduled statuses (lib/db/scheduled.ts) ----
/** A scheduled status under its owner (the owner's list, by id). */
export const scheduledStatus = (accountId: string, id: string): Key => ({ PK: `SCHEDULED#${padId(accountId)}`, SK: padId(id) });
export const scheduledPartition = (accountId: string) => `SCHEDULED#${padId(accountId)}`;
/** Due index read by the sweeper: one partition, ordered by due time (ISO) then id. */
export const scheduledDue = (scheduledAt: string, id: string): Key => ({ PK: 'SCHEDULED_DUE', SK: `${scheduledAt}#${padId(id)}` });
export const scheduledDuePartition = () => 'SCHEDULED_DUE';

// ---- filters v1 (lib/db/filters.ts) ----
/** A keyword filter of an account (the partition lists them all). */
export const filter = (accountId: string, id: string): Key => ({ PK: `FILTERS#${padId(accountId)}`, SK: padId(id) });
export const filtersPartition = (accountId: string) => `FILTERS#${padId(accountId)}`;
/** The account's irreversible filters, copied into one item so the fan-out can batch-read them for a page of recipients. */
export const irreversibleFilters = (accountId: string): Key => ({ PK: `FILTERS_IRREVERSIBLE#${padId(accountId)}`, SK: 'FILTERS_IRREVERSIBLE' });

// ---- hashtag usage, trends, featured tags (lib/db/tags.ts) ----
/** One status's tag uses were counted (the fan-out may run twice; counting happens once). */
export const tagUseCounted = (statusId: string): Key => ({ PK: `TAGCOUNTED#${padId(statusId)}`, SK: 'TAGCOUNTED' });
/** A tag's usage on one UTC day (uses, distinct accounts); the day partition lists every tag used that day (trends). */
export const tagDay = (day: string, tag: string): Key => ({ PK: `TAGDAY#${day}`, SK: tag });
export const tagDayPartition = (day: string) => `TAGDAY#${day}`;
/** Marker: this account used this tag on this day (decides the distinct accounts count); expires by TTL. */
export const tagDayAccount = (day: string, tag: string, accountId: string): Key => ({ PK: `TAGDAYACCT#${day}#${tag}#${padId(accountId)}`, SK: 'M' });
/** An account's own statuses with a tag (statuses_count, last_status_at of featured tags). */
export const accountTag = (accountId: string, tag: string): Key => ({ PK: `ACCOUNT_TAGS#${padId(accountId)}`, SK: tag });
/** An account's uses of a tag on one day: its partition read as a 7-day range gives featured tag suggestions. */
export const accountTagDay = (accountId: string, day: string, tag: string): Key => ({ PK: `ACCOUNT_TAG_DAYS#${padId(accountId)}`, SK: `${day}#${tag}` });
export const accountTagDaysPartition = (accountId: string) => `ACCOUNT_TAG_DAYS#${padId(accountId)}`;
/** A featured tag of an account, by its id; the name claim keeps one per (account, tag). */
export const featuredTag = (accountId: string, id: string): Key => ({ PK: `FEATURED_TAGS#${padId(accountId)}`, SK: padId(id) });
export const featuredTagsPartition = (accountId: string) => `FEATURED_TAGS#${padId(accountId)}`;
export const featuredTagName = (accountId: string, tag: string): Key => ({ PK: `FEATURED_TAG_NAME#${padId(accountId)}#${tag}`, SK: 'FEATURED_TAG_NAME' });
// ---- custom emoji (lib/db/emojis.ts) ----
/** A local custom emoji, by shortcode; the one partition is the instance's whole (small) emoji list. */
export const emoji = (shortcode: string): Key => ({ PK: 'EMOJIS', SK: shortcode });
export const emojisPartition = () => 'EMOJIS';
// ---- follow suggestions (lib/suggestions) ----
/** An account the user dismissed from their follow suggestions. */
export const suggestionDismissed = (accountId: string, dismissedId: string): Key => ({ PK: `SUGGESTION_DISMISSED#${padId(accountId)}#${padId(dismissedId)}`, SK: 'DISMISSED' });

// ---- Web Push subscriptions (lib/db/push_subscriptions.ts) ----
/** The push subscription of one access token (by the token's id), under its account: the partition is every subscription the push worker sends to. */
export const pushSubscription = (accountId: string, tokenId: string): Key => ({ PK: `PUSHSUB#${padId(accountId)}`, SK: padId(tokenId) });
export const pushSubscriptionsPartition = (accountId: string) => `PUSHSUB#${padId(accountId)}`;

// ---- blocks and mutes (lib/db/blocks.ts) ----
/** A block, stored once: PK the blocker, SK the blocked account; GSI1 inverts it (blocked by). */
export const block = (accountId: string, targetId: string): Key => ({ PK: `BLOCKING#${padId(accountId)}`, SK: padId(targetId) });
export const blockingPartition = (accountId: string) => `BLOCKING#${padId(accountId)}`;
/** A mute: PK the muting account, SK the muted one (notifications flag and expiry are attributes). */
export const mute = (accountId: string, targetId: string): Key => ({ PK: `MUTING#${padId(accountId)}`, SK: padId(targetId) });
export const mutingPartition = (accountId: string) => `MUTING#${padId(accountId)}`;

// ---- domain blocks (lib/db/domain_blocks.ts) ----
/**
 * A domain an account blocks (normalised: ASCII, lower-case), in the account's
 * blocking partition so that the one Query of its blocks also reads its domain
 * blocks; `DOMAIN#` sorts after every padded id (blocksPage bounds its range
 * below it). Exact lookup by domain. GSI1: by block id.
 */
export const domainBlock = (accountId: string, domain: string): Key => ({ PK: `BLOCKING#${padId(accountId)}`, SK: `${DOMAIN_BLOCK_PREFIX}${domain}` });

// ---- search (lib/db/search.ts) ----
/** Full-text index of a public status: one item per (lower-cased word, status), newest last. */
export const searchWord = (word: string, statusId: string): Key => ({ PK: `SEARCHWORD#${word}`, SK: padId(statusId) });
export const searchWordPartition = (word: string) => `SEARCHWORD#${word}`;
/** Full-text index of an author's non-public status, searched only by that author. */
export const ownSearchWord = (accountId: string, word: string, statusId: string): Key => ({ PK: `OWNWORD#${padId(accountId)}#${word}`, SK: padId(statusId) });
export const ownSearchWordPartition = (accountId: string, word: string) => `OWNWORD#${padId(accountId)}#${word}`;
/** Hashtag names for prefix search: one partition, sort key the normalised tag name. */
export const tagName = (tag: string): Key => ({ PK: 'TAGNAMES', SK: tag });
export const tagNamesPartition = () => 'TAGNAMES';
/** Display-name words for account prefix search: one partition, sort key `word#paddedAccountId`. */
export const displayNameWord = (word: string, accountId: string): Key => ({ PK: 'DISPLAYNAMES', SK: `${word}#${padId(accountId)}` });
export const displayNamesPartition = () => 'DISPLAYNAMES';
// ---- conversations (lib/db/conversations.ts) ----
/** One account's view of a direct conversation (by the thread's conversationId): the pointer to its list entry. */
export const conversation = (accountId: string, conversationId: string): Key => ({ PK: `CONVERSATION#${padId(accountId)}#${padId(conversationId)}`, SK: 'CONVERSATION' });
/** An account's conversations, ordered by their last status id (Link paging as Mastodon). */
export const conversationEntry = (accountId: string, lastStatusId: string): Key => ({ PK: `CONVERSATIONS#${padId(accountId)}`, SK: padId(lastStatusId) });
export const conversationsPartition = (accountId: string) => `CONVERSATIONS#${padId(accountId)}`;

// ---- federation (lib/db/remote.ts, lib/db/actor_keys.ts, lib/db/activity_seen.ts, lib/db/server_health.ts) ----
/** A remote account by its actor URI (the pointer holds accountId); unique. */
export const actorUri = (uri: string): Key => ({ PK: `ACTOR#${uri}`, SK: 'ACTOR' });
/** A remote account by `username@domain` (lower-cased), for WebFinger-free lookups; unique. */
export const remoteAcct = (username: string, domain: string): Key => ({ PK: `ACCT#${lower(username)}@${lower(domain)}`, SK: 'ACCT' });
/** A remote status by its ActivityPub id (the pointer holds statusId); unique. */
export const statusUri = (uri: string): Key => ({ PK: `STATUSURI#${uri}`, SK: 'STATUSURI' });
/** A remote author's approval stamp (QuoteAuthorization) of one of our quotes, by its id: the pointer holds the quote's two status ids. */
export const quoteApprovalUri = (uri: string): Key => ({ PK: `QUOTEAUTH#${uri}`, SK: 'QUOTEAUTH' });
/** A local account's RSA key pair (private key encrypted), and the instance actor's (`INSTANCE`). */
export const actorKeys = (accountId: string): Key => ({ PK: `ACTORKEYS#${accountId === 'INSTANCE' ? 'INSTANCE' : padId(accountId)}`, SK: 'ACTORKEYS' });
/** An inbound activity id already processed (at most once); expires by TTL. */
export const activitySeen = (activityId: string): Key => ({ PK: `ACTIVITY#${activityId}`, SK: 'SEEN' });
/** Delivery health of a remote server (consecutive failures, unavailable until). */
export const serverHealth = (domain: string): Key => ({ PK: deliveryServerPartition(domain), SK: 'HEALTH' });
/**
 * The inboxes of a local account's remote followers (shared inbox when the actor has one), one item per
 * inbox with a `followers` count, kept in the follow edge's transaction: where a post goes, in one Query.
 */
export const followerInbox = (accountId: string, inbox: string): Key => ({ PK: `FOLLOWER_INBOXES#${padId(accountId)}`, SK: inbox });
export const followerInboxesPartition = (accountId: string) => `FOLLOWER_INBOXES#${padId(accountId)}`;
/** The operator's block of a remote domain (suspend or silence): one partition, read whole and cached (lib/db/instance_domain_blocks.ts). */
export const instanceDomainBlock = (domain: string): Key => ({ PK: 'INSTANCE_DOMAIN_BLOCKS', SK: lower(domain) });
export const instanceDomainBlocksPartition = () => 'INSTANCE_DOMAIN_BLOCKS';
/** A domain we hold a remote account of (GET /api/v1/instance/peers): one partition, by domain. */
export const peer = (domain: string): Key => ({ PK: 'PEERS', SK: lower(domain) });
export const peersPartition = () => 'PEERS';
/** A remote account under its domain, written in its creating transaction: what suspending the domain removes. */
export const domainAccount = (domain: string, accountId: string): Key => ({ PK: `DOMAIN_ACCOUNTS#${lower(domain)}`, SK: padId(accountId) });
export const domainAccountsPartition = (domain: string) => `DOMAIN_ACCOUNTS#${lower(domain)}`;

// ---- followed hashtags (lib/db/tag_follows.ts) ----
/** A hashtag an account follows, by the follow's own id: the account's followed tags, paged as Mastodon pages them. */
export const tagFollow = (accountId: string, followId: string): Key => ({ PK: `TAG_FOLLOWS#${padId(accountId)}`, SK: padId(followId) });
export const tagFollowsPartition = (accountId: string) => `TAG_FOLLOWS#${padId(accountId)}`;
/** A follower of a hashtag (normalised name): one partition per tag, read by the fan-out; its key also keeps one follow per (account, tag). */
export const tagFollower = (tag: string, accountId: string): Key => ({ PK: `TAG_FOLLOWERS#${tag}`, SK: padId(accountId) });
export const tagFollowersPartition = (tag: string) => `TAG_FOLLOWERS#${tag}`;
// ---- trends of statuses and links (lib/db/trends.ts) ----
/** A status's trend counter on one UTC day (score in units decayed to that day's midnight, distinct accounts); the day partition lists the day's candidates. */
export const trendStatusDay = (day: string, statusId: string): Key => ({ PK: `TRENDSTATUSDAY#${day}`, SK: padId(statusId) });
export const trendStatusDayPartition = (day: string) => `TRENDSTATUSDAY#${day}`;
/** An account's interaction with a status was counted toward trends (once per pair, whatever kind); expires by TTL. */
export const trendStatusActor = (statusId: string, accountId: string): Key => ({ PK: `TRENDACT#${padId(statusId)}#${padId(accountId)}`, SK: 'TRENDACT' });
/** A link's trend counter on one UTC day, by the SHA-256 of its URL (uses, distinct accounts, score); the day partition lists the day's links. */
export const trendLinkDay = (day: string, urlHash: string): Key => ({ PK: `TRENDLINKDAY#${day}`, SK: urlHash });
export const trendLinkDayPartition = (day: string) => `TRENDLINKDAY#${day}`;
/** A status's share of a link was counted (once per pair); expires by TTL. */
export const trendLinkShare = (urlHash: string, statusId: string): Key => ({ PK: `TRENDLINKUSE#${urlHash}#${padId(statusId)}`, SK: 'TRENDLINKUSE' });
/** An account shared a link on a day (decides the day's distinct accounts); expires by TTL. */
export const trendLinkAccountDay = (day: string, urlHash: string, accountId: string): Key => ({ PK: `TRENDLINKACCT#${day}#${urlHash}#${padId(accountId)}`, SK: 'TRENDLINKACCT' });
/** How many candidates a day partition of status or link trends holds: the cap's counter. */
export const trendDayCandidates = (kind: 'status' | 'link', day: string): Key => ({ PK: `TRENDCANDIDATES#${kind}#${day}`, SK: 'TRENDCANDIDATES' });
/**
 * A moderator's decision about a trend (`status#<id>`, `link#<url hash>`, `tag#<tag>`, `publisher#<domain>`): approved,
 * rejected (the operator's `trends hide`), and a tag's usable/listable: one partition, read whole by every trends read.
 */
export const trendHidden = (kind: 'status' | 'link' | 'tag' | 'publisher', value: string): Key => ({ PK: 'TRENDS_HIDDEN', SK: `${kind}#${value}` });
export const trendsHiddenPartition = () => 'TRENDS_HIDDEN';
/** A public status sharing a link, by the link's URL hash then the status id: the link's timeline (GET /api/v1/timelines/link), newest first. */
export const trendLinkStatus = (urlHash: string, statusId: string): Key => ({ PK: `TRENDLINKSTATUSES#${urlHash}`, SK: padId(statusId) });
export const trendLinkStatusesPartition = (urlHash: string) => `TRENDLINKSTATUSES#${urlHash}`;
// ---- machine translations (lib/db/translations.ts) ----
/**
 * A status's texts as translated by the configured service, by the SHA-256 (hex) of what was sent, from which
 * language, to which, by which service: an edit sends other texts, so it is never served a stale translation.
 * Expires by TTL (a day, as Mastodon keeps its translations).
 */
export const translation = (digest: string): Key => ({ PK: `TRANSLATION#${digest}`, SK: 'TRANSLATION' });
// ---- async refreshes (lib/db/async_refreshes.ts) ----
/** Work started for a client that it may poll (Mastodon 4.4's async refreshes): a thread's replies being fetched. */
export const asyncRefresh = (id: string): Key => ({ PK: `ASYNCREFRESH#${id}`, SK: 'ASYNCREFRESH' });
// ---- annual reports, "Wrapstodon" (lib/db/annual_reports.ts) ----
/** An account's generated reports (one per year) and its generation claims, in one small partition. */
export const annualReportsPartition = (accountId: string) => `ANNUAL_REPORTS#${padId(accountId)}`;
/** The sort-key prefix of the reports themselves, apart from the claims. */
export const ANNUAL_REPORT_PREFIX = 'REPORT#';
export const annualReport = (accountId: string, year: number): Key => ({ PK: annualReportsPartition(accountId), SK: `${ANNUAL_REPORT_PREFIX}${year}` });
/** The claim that one year's report is being generated (Mastodon's `wrapstodon:<account>:<year>` async refresh); expires by TTL. */
export const annualReportGeneration = (accountId: string, year: number): Key => ({ PK: annualReportsPartition(accountId), SK: `GENERATING#${year}` });

// ---- preview cards (lib/db/cards.ts) ----
/**
 * The preview card of a normalised URL (or the last failure to fetch one), by the URL's SHA-256: a URL may be
 * longer than a key may hold. Statuses name it in `cardUrl`; a page of statuses reads it in its batch.
 */
export const card = (url: string): Key => ({ PK: `CARD#${sha256(url)}`, SK: 'CARD' });
// ---- filters v2 (lib/db/filters.ts) ----
// A v2 filter is its item at keys.filter (above) plus one item per keyword and per filtered status in the same
// partition, sorted under the filter's id so that one Query of the partition reads every filter whole.
/** A keyword of a v2 filter (a v1 filter is one keyword: the v1 id is the keyword's id). */
export const filterKeyword = (accountId: string, filterId: string, keywordId: string): Key => ({ PK: `FILTERS#${padId(accountId)}`, SK: `${padId(filterId)}#K#${padId(keywordId)}` });
/** A status a v2 filter names (FilterStatus). */
export const filterStatus = (accountId: string, filterId: string, id: string): Key => ({ PK: `FILTERS#${padId(accountId)}`, SK: `${padId(filterId)}#S#${padId(id)}` });
/** The sort-key prefix of one filter's items (the filter, its keywords, its statuses). */
export const filterItemsPrefix = (filterId: string) => padId(filterId);
// ---- grouped notifications (lib/db/notifications.ts, lib/db/notification_groups.ts) ----
/**
 * The hour bucket a recipient's current group of one kind (`favourite-<status>`, `reblog-<status>`, `follow`) started in:
 * a new notification of that kind joins it while it is younger than 12 hours (Mastodon's notif-group key). Expires by TTL.
 */
export const notificationGroupBucket = (accountId: string, groupPrefix: string): Key => ({ PK: `NOTIF_BUCKET#${padId(accountId)}#${groupPrefix}`, SK: 'NOTIF_BUCKET' });
/** A recipient's notification policy (Mastodon 4.3's NotificationPolicy); absent until the recipient first sets one. */
export const notificationPolicy = (accountId: string): Key => ({ PK: `NOTIF_POLICY#${padId(accountId)}`, SK: 'NOTIF_POLICY' });
/** The notification request of filtered notifications from one sender to one recipient (listed through GSI1). */
export const notificationRequest = (accountId: string, fromAccountId: string): Key => ({ PK: `NOTIF_REQ#${padId(accountId)}#${padId(fromAccountId)}`, SK: 'NOTIF_REQ' });
/** A recipient accepted a sender's request: the sender's later notifications are never filtered (NotificationPermission). */
export const notificationPermission = (accountId: string, fromAccountId: string): Key => ({ PK: `NOTIF_PERMIT#${padId(accountId)}#${padId(fromAccountId)}`, SK: 'NOTIF_PERMIT' });
// ---- account notes, familiar followers, suggestions (lib/db/account_notes.ts, lib/db/familiar_followers.ts) ----
/** The private note an account keeps about another (Relationship.note), by exact key; the partition is every note it wrote. */
export const accountNote = (accountId: string, targetId: string): Key => ({ PK: `ACCOUNT_NOTES#${padId(accountId)}`, SK: padId(targetId) });
// ---- announcements (lib/db/announcements.ts) ----
/** An operator's announcement (with its reaction counts); the one partition is every announcement, read whole (there are few). */
export const announcement = (id: string): Key => ({ PK: 'ANNOUNCEMENTS', SK: padId(id) });
export const announcementsPartition = () => 'ANNOUNCEMENTS';
/** An account dismissed (read) an announcement; under the announcement, so deleting it finds its marks. */
export const announcementRead = (announcementId: string, accountId: string): Key => ({ PK: `ANNOUNCEMENT_MARKS#${padId(announcementId)}`, SK: `READ#${padId(accountId)}` });
/** An account's reaction (emoji name) to an announcement: counted once per (account, name). */
export const announcementReaction = (announcementId: string, accountId: string, name: string): Key => ({
  PK: `ANNOUNCEMENT_MARKS#${padId(announcementId)}`,
  SK: `REACTION#${padId(accountId)}#${name}`,
});
export const announcementMarksPartition = (announcementId: string) => `ANNOUNCEMENT_MARKS#${padId(announcementId)}`;

// ---- reports (lib/db/reports.ts) ----
/** A report about an account (and some of its statuses), filed here or received in a Flag. GSI1: every report, newest first. */
export const report = (id: string): Key => ({ PK: `REPORT#${padId(id)}`, SK: 'REPORT' });
/** A received Flag's report about one of our accounts was stored (the Flag's id and the account): stored once. */
export const reportOnce = (flagUri: string, targetId: string): Key => ({ PK: `REPORTURI#${flagUri}#${padId(targetId)}`, SK: 'REPORTURI' });

// ---- profile directory (lib/db/directory.ts) ----
/** A discoverable account in the directory's `new` order (newest account first), in the partition of its origin (`local` or `remote`). */
export const directoryNew = (origin: DirectoryOrigin, accountId: string): Key => ({ PK: `DIRECTORY_NEW#${origin}`, SK: padId(accountId) });
export const directoryNewPartition = (origin: DirectoryOrigin) => `DIRECTORY_NEW#${origin}`;
/**
 * A discoverable account in the `active` order: by the time of its latest status (Mastodon's last_status_at), moved
 * in the posting transaction; an account that never posted sorts below every time (`#` before digits): nulls last.
 */
export const directoryActive = (origin: DirectoryOrigin, lastStatusAt: string | null, accountId: string): Key => ({
  PK: `DIRECTORY_ACTIVE#${origin}`,
  SK: `${lastStatusAt ?? ''}#${padId(accountId)}`,
});
export const directoryActivePartition = (origin: DirectoryOrigin) => `DIRECTORY_ACTIVE#${origin}`;

// ---- endorsements (lib/db/endorsements.ts) ----
/** An account the endorser features on its profile (Mastodon's AccountPin): exact key for Relationship.endorsed, the partition pages by account id. */
export const endorsement = (accountId: string, targetId: string): Key => ({ PK: `ENDORSEMENTS#${padId(accountId)}`, SK: padId(targetId) });
export const endorsementsPartition = (accountId: string) => `ENDORSEMENTS#${padId(accountId)}`;

// ---- collections (lib/db/collections.ts; Mastodon 4.6) ----
/** A collection with its items (at most Collection::MAX_ITEMS live ones), by id alone: GET /api/v1/collections/:id is one GetItem. */
export const collection = (collectionId: string): Key => ({ PK: `COLLECTION#${padId(collectionId)}`, SK: 'COLLECTION' });
/** A collection's entry under its owner, newest last in key order: an account's collections are one Query of the partition. */
export const ownedCollection = (ownerId: string, collectionId: string): Key => ({ PK: `COLLECTIONS#${padId(ownerId)}`, SK: padId(collectionId) });
export const ownedCollectionsPartition = (ownerId: string) => `COLLECTIONS#${padId(ownerId)}`;
/** How many collections an account owns: the per-account limit holds through a conditional update of this one item. */
export const collectionCount = (ownerId: string): Key => ({ PK: `COLLECTION_COUNT#${padId(ownerId)}`, SK: 'COUNT' });
/** An account featured in a collection (the inverse of an item): GET /api/v1/accounts/:id/in_collections is one Query. */
export const featuredIn = (accountId: string, collectionId: string): Key => ({ PK: `IN_COLLECTIONS#${padId(accountId)}`, SK: padId(collectionId) });
export const featuredInPartition = (accountId: string) => `IN_COLLECTIONS#${padId(accountId)}`;

// ---- admin reports API: the report queues (lib/db/reports.ts; issue 26, reports) ----
/** Open (unresolved) or resolved: the two queues of Mastodon's ReportFilter. */
export type ReportState = 'open' | 'resolved';
/**
 * A report's entry in its state's queue, newest first (GET /api/v1/admin/reports). Two more entries per report, in
 * the partitions of its reporter and of its target in that state, serve the `account_id` / `target_account_id` filters.
 * All three move together when the report is resolved or reopened.
 */
export const reportQueueEntry = (state: ReportState, reportId: string): Key => ({ PK: `REPORTQ#${state}`, SK: padId(reportId) });
export const reportQueueByEntry = (state: ReportState, accountId: string, reportId: string): Key => ({ PK: `REPORTQ#${state}#BY#${padId(accountId)}`, SK: padId(reportId) });
export const reportQueueAboutEntry = (state: ReportState, targetId: string, reportId: string): Key => ({ PK: `REPORTQ#${state}#ABOUT#${padId(targetId)}`, SK: padId(reportId) });
export const reportQueuePartition = (state: ReportState) => `REPORTQ#${state}`;
export const reportQueueByPartition = (state: ReportState, accountId: string) => `REPORTQ#${state}#BY#${padId(accountId)}`;
export const reportQueueAboutPartition = (state: ReportState, targetId: string) => `REPORTQ#${state}#ABOUT#${padId(targetId)}`;
// ---- moderation: trends review, admin tags, dashboard counters (lib/db/trends.ts, lib/db/daily_stats.ts) ----
/** A link publisher (the host of trending links, Mastodon's PreviewCardProvider), by its id: the list moderators page by id. */
export const trendPublisher = (id: string): Key => ({ PK: 'TREND_PUBLISHERS', SK: padId(id) });
export const trendPublishersPartition = () => 'TREND_PUBLISHERS';
/** The instance's counters of one UTC day (new users, statuses, interactions, reports, ...): the dashboard's measures. */
export const dailyStats = (day: string): Key => ({ PK: 'DAILY_STATS', SK: day });
export const dailyStatsPartition = () => 'DAILY_STATS';
/** Accounts of a sign-up cohort (a day or a month) active in each later period: the admin retention cohorts. */
export const retentionCohort = (frequency: 'day' | 'month', cohort: string): Key => ({ PK: `RETENTION#${frequency}`, SK: cohort });
export const retentionPartition = (frequency: 'day' | 'month') => `RETENTION#${frequency}`;
/** Marker: a server's statuses used this tag on this day (decides the distinct servers count, tag_servers); expires by TTL. */
export const tagDayServer = (day: string, tag: string, server: string): Key => ({ PK: `TAGDAYSRV#${day}#${tag}#${server}`, SK: 'M' });
// ---- moderation: blocks and allows (issue 26, part "blocks": lib/db/domain_allows.ts, lib/db/sign_up_blocks.ts) ----
/** A domain allowed to federate in limited federation mode (Mastodon's DomainAllow): one partition, read whole. */
export const domainAllow = (domain: string): Key => ({ PK: 'DOMAIN_ALLOWS', SK: lower(domain) });
export const domainAllowsPartition = () => 'DOMAIN_ALLOWS';
/** An e-mail domain refused (or held for approval) at sign-up, by exact domain: a sign-up reads its domain and parents by key. */
export const emailDomainBlock = (domain: string): Key => ({ PK: 'EMAIL_DOMAIN_BLOCKS', SK: lower(domain) });
/** Sign-up attempts a block refused on one day (Admin::EmailDomainBlock history): accounts tried, addresses they came from. */
export const emailDomainBlockDay = (blockId: string, day: string): Key => ({ PK: `EMAIL_DOMAIN_BLOCK_DAYS#${padId(blockId)}`, SK: day });
export const emailDomainBlockDayIp = (blockId: string, day: string, ip: string): Key => ({ PK: `EMAIL_DOMAIN_BLOCK_DAYS#${padId(blockId)}`, SK: `${day}#IP#${ip}` });
/** A canonical e-mail refused at sign-up, by the SHA-256 hex of its canonical form. */
export const canonicalEmailBlock = (hash: string): Key => ({ PK: 'CANONICAL_EMAIL_BLOCKS', SK: lower(hash) });
/** An IP range rule (sign-up approval, sign-up block, no access), by its canonical CIDR: one partition, read whole. */
export const ipBlock = (cidr: string): Key => ({ PK: 'IP_BLOCKS', SK: lower(cidr) });
export const ipBlocksPartition = () => 'IP_BLOCKS';
// ---- admin accounts API (lib/db/admin_accounts.ts, lib/db/strikes.ts) ----
/**
 * An account in one facet of the moderators' account list (`all`, `local`, `remote`, `pending`, `staff`, `silenced`,
 * `suspended`, `disabled`, `sensitized`, `ip#<address>`), by account id: each facet is a sparse partition kept by the
 * writes that change the state it names.
 */
export const adminAccountFacet = (facet: string, accountId: string): Key => ({ PK: `ADMIN_ACCOUNTS#${facet}`, SK: padId(accountId) });
export const adminAccountFacetPartition = (facet: string) => `ADMIN_ACCOUNTS#${facet}`;
/** A strike (Mastodon's AccountWarning) by its id. */
export const strike = (id: string): Key => ({ PK: `STRIKE#${padId(id)}`, SK: 'STRIKE' });
/** The strikes of one account, newest first read backwards. */
export const accountStrike = (accountId: string, strikeId: string): Key => ({ PK: `STRIKES#${padId(accountId)}`, SK: padId(strikeId) });
export const accountStrikesPartition = (accountId: string) => `STRIKES#${padId(accountId)}`;
/** An appeal waiting for a moderator's decision, by appeal id (removed when decided). */
export const pendingAppeal = (appealId: string): Key => ({ PK: 'APPEALS_PENDING', SK: padId(appealId) });
export const pendingAppealsPartition = () => 'APPEALS_PENDING';
// ---- moderation: suspensions (lib/db/suspensions.ts; issue 26) ----
/**
 * What a suspension still has to do in the background, in one partition the sweeper reads: the follows to sever
 * now (or restore after an unsuspension), `GRAPH#<account>`, and the purge due 30 days after, `PURGE#<due>#<account>`.
 */
export const SUSPENSION_WORK = 'SUSPENSION_WORK';
export const suspensionGraphWork = (accountId: string): Key => ({ PK: SUSPENSION_WORK, SK: `GRAPH#${padId(accountId)}` });
export const suspensionPurgeWork = (dueAt: string, accountId: string): Key => ({ PK: SUSPENSION_WORK, SK: `PURGE#${dueAt}#${padId(accountId)}` });
/** A follow edge a suspension severed, kept so that unsuspending restores it (`follower#<id>` or `following#<id>`). */
export const severedFollow = (accountId: string, direction: 'follower' | 'following', otherId: string): Key => ({
  PK: `SEVERED#${padId(accountId)}`,
  SK: `${direction}#${padId(otherId)}`,
});
export const severedFollowsPartition = (accountId: string) => `SEVERED#${padId(accountId)}`;
// ---- moderation: the purge of a suspended account (lib/db/account_purge.ts) ----
/** The notes an account wrote about others (one item per account noted, lib/db/account_notes.ts). */
export const accountNotesPartition = (accountId: string) => `ACCOUNT_NOTES#${padId(accountId)}`;
// ---- moderation: warning presets and the appeals page (lib/db/warning_presets.ts, lib/db/strikes.ts) ----
/** A warning preset (Mastodon's AccountWarningPreset) by its id: the operator's few, one partition read whole. */
export const warningPreset = (id: string): Key => ({ PK: 'WARNING_PRESETS', SK: padId(id) });
export const warningPresetsPartition = () => 'WARNING_PRESETS';
/** Where a page of pending appeals starts: after this appeal's key (the queue is read oldest first). */
export const pendingAppealsAfter = (appealId: string) => padId(appealId);
// ---- federation: delivery fair per destination server (lib/db/delivery_slots.ts; issue 27) ----
/** A server's name as its keys spell it: lower-case, and its SHA-256 when it is longer or odder than a host[:port] can be. */
const serverSegment = (host: string): string => {
  const name = host.toLowerCase();
  return name.length <= 262 && /^[a-z0-9.\-_[\]:]+$/.test(name) ? name : `#${sha256(name)}`;
};
/**
 * One remote server's delivery state, read in one Query: its health (`HEALTH`, ./server_health.ts) and the few
 * deliveries it may have in flight at once (`SLOT#<n>`, ./delivery_slots.ts). Bounded whatever the inbox's host.
 */
export function deliveryServerPartition(host: string): string {
  return `SERVER#${serverSegment(host)}`;
}
/** One of a server's delivery slots, held by a lease until its `until`. */
export const deliverySlot = (host: string, slot: number): Key => ({ PK: deliveryServerPartition(host), SK: `SLOT#${slot}` });
// ---- streaming: sharded online set and shared channels (lib/db/connections.ts; issue 27) ----
/**
 * Partitions the online set and each public or hashtag channel are spread over, an item going to the shard of its
 * connection (or SSE listener) id. A partition takes 3,000 read and 1,000 write units a second:
 * - writes: a connect is one transaction, 2 WRU for its ~100-byte online item (and 2 per shared-channel
 *   subscription), so one partition holds ~500 connects/s; 16 shards hold ~8,000/s for the online set, and ~8,000
 *   subscribes/s to one channel.
 * - online reads: every fan-out page reads every shard. With L listeners a shard holds L/16 items of ~100 bytes;
 *   at P pages a second each shard takes P * L/16 * 100 / 8,192 RRU/s (eventually consistent): at 167 pages/s
 *   (10,000 posts a minute) that stays under 3,000 up to about 23,000 open streams, and at 20 pages/s up to
 *   about 190,000. (A per-container cache of a few seconds would multiply these by the pages it saves, but it
 *   hides a stream opened on another container for as long: lib/db/connections.ts, recentOnlineListeners.)
 * - channel reads: a public post to a 10,000-listener channel reads its ~2.5 MB of subscriptions once over its
 *   pages, ~310 RRU; spread over 16 shards ~20 RRU each, so a shard takes ~150 such posts a second.
 * 32 would double every bound but also the Queries of a publish to an empty channel (one per shard).
 */
export const STREAM_SHARDS = 16;
/** The shard of a connection or listener id: FNV-1a (32 bits) of its characters, modulo STREAM_SHARDS; the same on every container. */
export function shardOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % STREAM_SHARDS;
}
/** One shard of the online set. */
export const onlineShardPartition = (shard: number) => `ONLINE#${String(shard).padStart(2, '0')}`;
/** Public and hashtag channels (lib/streaming/connections.ts `channels.public`, `hashtag`, `hashtagLocal`): many listeners each, so sharded. */
export const isShardedChannel = (channel: string) => channel.startsWith('timeline:public') || channel.startsWith('timeline:hashtag:');
/** One shard of a public or hashtag channel. */
export const channelShardPartition = (channel: string, shard: number) => `CHANNEL#${channel}#${String(shard).padStart(2, '0')}`;
/** The partitions holding a channel's subscriptions: its shards, or its one partition for an account's own channel. */
export const channelPartitions = (channel: string): string[] =>
  isShardedChannel(channel) ? Array.from({ length: STREAM_SHARDS }, (_, i) => channelShardPartition(channel, i)) : [channelPartition(channel)];
