// Every key of the single table is built here, and only here.
// The access patterns they serve are listed in lib/db/README.md.
import { padId } from '../ids';

export type Key = { PK: string; SK: string };

const lower = (s: string) => s.toLowerCase();

export const keys = {
  /** The account profile, its counters and, for local users, their login state. */
  account: (id: string): Key => ({ PK: `ACCOUNT#${padId(id)}`, SK: 'ACCOUNT' }),
  /** Uniqueness and lookup of a local username (case-insensitive, as Mastodon). */
  username: (username: string): Key => ({ PK: `USERNAME#${lower(username)}`, SK: 'USERNAME' }),
  /** Uniqueness and lookup of a login e-mail address. */
  email: (email: string): Key => ({ PK: `EMAIL#${lower(email)}`, SK: 'EMAIL' }),
  /** An OAuth application, by client_id. */
  app: (clientId: string): Key => ({ PK: `APP#${clientId}`, SK: 'APP' }),
  /** An access token, by the SHA-256 of its value. */
  token: (tokenHash: string): Key => ({ PK: `TOKEN#${tokenHash}`, SK: 'TOKEN' }),
  /** An authorization code, by the SHA-256 of its value; expires by TTL. */
  authCode: (codeHash: string): Key => ({ PK: `CODE#${codeHash}`, SK: 'CODE' }),
  /** A browser login session of the authorize page, by the SHA-256 of the cookie. */
  session: (sessionHash: string): Key => ({ PK: `SESSION#${sessionHash}`, SK: 'SESSION' }),
  /** An e-mail confirmation link, by the SHA-256 of its token. */
  confirmation: (tokenHash: string): Key => ({ PK: `CONFIRM#${tokenHash}`, SK: 'CONFIRM' }),
  /** The instance settings (registration mode, confirmation, public preview, texts). */
  instanceSettings: (): Key => ({ PK: 'INSTANCE', SK: 'SETTINGS' }),
  /** Instance-wide counters (users, statuses, domains) kept with atomic updates. */
  instanceStats: (): Key => ({ PK: 'INSTANCE', SK: 'STATS' }),
  /** A WebSocket connection of the streaming API. */
  connection: (connectionId: string): Key => ({ PK: `CONN#${connectionId}`, SK: 'CONN' }),
  /** A streaming subscription: one per (connection, stream), under the channel events are published to. */
  channelSubscription: (channel: string, connectionId: string, stream: string): Key => ({ PK: `CHANNEL#${channel}`, SK: `${connectionId}#${stream}` }),
  channelPartition: (channel: string) => `CHANNEL#${channel}`,
  /** Membership of an admin account; the partition lists admins oldest first (the instance's contact fallback). */
  admin: (accountId: string): Key => ({ PK: 'ADMINS', SK: padId(accountId) }),
  adminsPartition: () => 'ADMINS',
  /** Distinct active users whose latest activity fell on a day (YYYY-MM-DD); one partition, read as a day range. */
  activityDay: (day: string): Key => ({ PK: 'ACTIVITY', SK: `DAY#${day}` }),
  activityPartition: () => 'ACTIVITY',
  /** The day of an account's latest recorded activity (moves its count between activity days). */
  accountActivity: (accountId: string): Key => ({ PK: `ACTIVE#${padId(accountId)}`, SK: 'ACTIVE' }),

  // ---- statuses (lib/db/statuses.ts) ----
  /** A status or a reblog (a status whose `reblogOfId` is set). GSI1: the author's statuses. */
  status: (id: string): Key => ({ PK: `STATUS#${padId(id)}`, SK: 'STATUS' }),
  /** A reply under its parent, for /context descendants: partition per parent, newest last. */
  reply: (parentId: string, replyId: string): Key => ({ PK: `REPLIES#${padId(parentId)}`, SK: padId(replyId) }),
  repliesPartition: (parentId: string) => `REPLIES#${padId(parentId)}`,
  /** Idempotency-Key of POST /api/v1/statuses, per account; expires after an hour. */
  idempotency: (accountId: string, keyHash: string): Key => ({ PK: `IDEMPOTENCY#${padId(accountId)}#${keyHash}`, SK: 'IDEMPOTENCY' }),
  /** A poll, by its id (the status carries `pollId`). */
  poll: (id: string): Key => ({ PK: `POLL#${padId(id)}`, SK: 'POLL' }),
  /** One account's vote on a poll (uniqueness and `own_votes`). */
  pollVote: (pollId: string, accountId: string): Key => ({ PK: `POLL#${padId(pollId)}`, SK: `VOTE#${padId(accountId)}` }),
  pollPartition: (pollId: string) => `POLL#${padId(pollId)}`,
  /** A media attachment. GSI1: none; ownership is an attribute. */
  media: (id: string): Key => ({ PK: `MEDIA#${padId(id)}`, SK: 'MEDIA' }),

  // ---- interactions (lib/db/interactions.ts) ----
  /** The viewer-flag items: one per (account, status), looked up by exact key when rendering. */
  favourite: (accountId: string, statusId: string): Key => ({ PK: `FAV#${padId(accountId)}#${padId(statusId)}`, SK: 'FAV' }),
  reblogFlag: (accountId: string, statusId: string): Key => ({ PK: `REBLOGGED#${padId(accountId)}#${padId(statusId)}`, SK: 'REBLOGGED' }),
  bookmark: (accountId: string, statusId: string): Key => ({ PK: `BOOKMARK#${padId(accountId)}#${padId(statusId)}`, SK: 'BOOKMARK' }),
  pin: (accountId: string, statusId: string): Key => ({ PK: `PIN#${padId(accountId)}#${padId(statusId)}`, SK: 'PIN' }),
  conversationMute: (accountId: string, conversationId: string): Key => ({ PK: `CONVMUTE#${padId(accountId)}#${padId(conversationId)}`, SK: 'CONVMUTE' }),
  /** Lists, each ordered by the interaction's own id (Link paging as Mastodon): who favourited / reblogged a status; what an account favourited / bookmarked / pinned. */
  statusFavourites: (statusId: string, favId: string): Key => ({ PK: `STATUS_FAVS#${padId(statusId)}`, SK: padId(favId) }),
  statusFavouritesPartition: (statusId: string) => `STATUS_FAVS#${padId(statusId)}`,
  statusReblogs: (statusId: string, reblogId: string): Key => ({ PK: `STATUS_REBLOGS#${padId(statusId)}`, SK: padId(reblogId) }),
  statusReblogsPartition: (statusId: string) => `STATUS_REBLOGS#${padId(statusId)}`,
  accountFavourites: (accountId: string, favId: string): Key => ({ PK: `ACCOUNT_FAVS#${padId(accountId)}`, SK: padId(favId) }),
  accountFavouritesPartition: (accountId: string) => `ACCOUNT_FAVS#${padId(accountId)}`,
  accountBookmarks: (accountId: string, bookmarkId: string): Key => ({ PK: `ACCOUNT_BOOKMARKS#${padId(accountId)}`, SK: padId(bookmarkId) }),
  accountBookmarksPartition: (accountId: string) => `ACCOUNT_BOOKMARKS#${padId(accountId)}`,
  accountPins: (accountId: string, statusId: string): Key => ({ PK: `ACCOUNT_PINS#${padId(accountId)}`, SK: padId(statusId) }),
  accountPinsPartition: (accountId: string) => `ACCOUNT_PINS#${padId(accountId)}`,

  // ---- social graph (lib/db/follows.ts) ----
  /** A follow edge, stored once: PK the follower, SK the followed account; GSI1 inverts it (followers of). */
  follow: (followerId: string, followedId: string): Key => ({ PK: `FOLLOWING#${padId(followerId)}`, SK: padId(followedId) }),
  followingPartition: (followerId: string) => `FOLLOWING#${padId(followerId)}`,
  /** A pending follow request to a locked account, stored once, inverted by GSI1 (requests received). */
  followRequest: (requesterId: string, targetId: string): Key => ({ PK: `REQUESTED#${padId(requesterId)}`, SK: padId(targetId) }),

  // ---- timelines (lib/db/timelines.ts) ----
  /** A home feed entry of `ownerId` for a status (or reblog) id; written by the fan-out worker. */
  homeEntry: (ownerId: string, statusId: string): Key => ({ PK: `HOME#${padId(ownerId)}`, SK: padId(statusId) }),
  homePartition: (ownerId: string) => `HOME#${padId(ownerId)}`,
  /** The public timelines: `all` (local and remote) and `local`; each entry is a public, non-reply-hidden status id. */
  publicEntry: (scope: 'all' | 'local', statusId: string): Key => ({ PK: `PUBLIC#${scope}`, SK: padId(statusId) }),
  publicPartition: (scope: 'all' | 'local') => `PUBLIC#${scope}`,
  /** A hashtag timeline entry (tag name lower-cased, NFKC). */
  tagEntry: (tag: string, statusId: string): Key => ({ PK: `TAG#${tag}`, SK: padId(statusId) }),
  tagPartition: (tag: string) => `TAG#${tag}`,
  /** A hashtag's record (name as first used, usage counters). */
  tag: (tag: string): Key => ({ PK: `TAGINFO#${tag}`, SK: 'TAG' }),
  /** Reading-position markers of an account (home, notifications). */
  marker: (accountId: string, timeline: string): Key => ({ PK: `MARKER#${padId(accountId)}`, SK: timeline }),
  markerPartition: (accountId: string) => `MARKER#${padId(accountId)}`,

  // ---- notifications (lib/db/notifications.ts) ----
  notification: (accountId: string, notificationId: string): Key => ({ PK: `NOTIFS#${padId(accountId)}`, SK: padId(notificationId) }),
  notificationsPartition: (accountId: string) => `NOTIFS#${padId(accountId)}`,
  /** Polls to close: one partition per minute bucket (YYYY-MM-DDTHH:MM) read by the sweeper. */
  pollExpiry: (minute: string, pollId: string): Key => ({ PK: `POLL_EXPIRY#${minute}`, SK: padId(pollId) }),
  pollExpiryPartition: (minute: string) => `POLL_EXPIRY#${minute}`,
  /** At most one notification per (recipient, type, actor, status): written with the notification, removed with it. */
  notificationOnce: (accountId: string, type: string, fromAccountId: string, statusId: string | null): Key => ({
    PK: `NOTIF_ONCE#${padId(accountId)}#${type}#${padId(fromAccountId)}#${statusId ? padId(statusId) : '-'}`,
    SK: 'NOTIF_ONCE',
  }),
  /** The sweeper's watermark per job (`POLLS`: the last poll-expiry minute fully processed). */
  sweeperWatermark: (job: string): Key => ({ PK: 'SWEEPER', SK: job }),
};

/** GSI1 keys: each pattern names its partition prefix. */
export const gsi1 = {
  /** Accounts waiting for approval, oldest first (admin CLI). */
  pendingAccount: (accountId: string) => ({ GSI1PK: 'PENDING_ACCOUNTS', GSI1SK: padId(accountId) }),
  pendingAccountsPartition: 'PENDING_ACCOUNTS',
  /** Access tokens of an account, newest first. */
  accountToken: (accountId: string, tokenId: string) => ({ GSI1PK: `TOKENS#${padId(accountId)}`, GSI1SK: padId(tokenId) }),
  accountTokensPartition: (accountId: string) => `TOKENS#${padId(accountId)}`,
  /** An account's own statuses and reblogs, newest first (GSI1 on the status item). */
  accountStatus: (accountId: string, statusId: string) => ({ GSI1PK: `ACCOUNT_STATUSES#${padId(accountId)}`, GSI1SK: padId(statusId) }),
  accountStatusesPartition: (accountId: string) => `ACCOUNT_STATUSES#${padId(accountId)}`,
  /** Followers of an account (GSI1 on the follow edge). */
  follower: (followedId: string, followerId: string) => ({ GSI1PK: `FOLLOWERS#${padId(followedId)}`, GSI1SK: padId(followerId) }),
  followersPartition: (followedId: string) => `FOLLOWERS#${padId(followedId)}`,
  /** Follow requests received by a locked account (GSI1 on the request item), by request id. */
  followRequestReceived: (targetId: string, requestId: string) => ({ GSI1PK: `FOLLOW_REQUESTS#${padId(targetId)}`, GSI1SK: padId(requestId) }),
  followRequestsPartition: (targetId: string) => `FOLLOW_REQUESTS#${padId(targetId)}`,
  /** Local usernames, lower-cased, for prefix search (GSI1 on the username claim item). */
  usernameIndex: (username: string) => ({ GSI1PK: 'USERNAMES', GSI1SK: lower(username) }),
  usernamesPartition: 'USERNAMES',
};

export const GSI1 = 'GSI1';
