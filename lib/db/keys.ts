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
};

/** GSI1 keys: each pattern names its partition prefix. */
export const gsi1 = {
  /** Accounts waiting for approval, oldest first (admin CLI). */
  pendingAccount: (accountId: string) => ({ GSI1PK: 'PENDING_ACCOUNTS', GSI1SK: padId(accountId) }),
  pendingAccountsPartition: 'PENDING_ACCOUNTS',
  /** Access tokens of an account, newest first. */
  accountToken: (accountId: string, tokenId: string) => ({ GSI1PK: `TOKENS#${padId(accountId)}`, GSI1SK: padId(tokenId) }),
  accountTokensPartition: (accountId: string) => `TOKENS#${padId(accountId)}`,
};

export const GSI1 = 'GSI1';
