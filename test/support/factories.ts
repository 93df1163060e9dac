// Small fixture builders that write through lib/, the way the endpoints do.
import { generateKeyPairSync } from 'node:crypto';
import { createAppInput, registerApp } from '../../lib/apps';
import { accountItem, createLocalAccount, type Account } from '../../lib/db/accounts';
import { createRemoteAccount } from '../../lib/db/remote';
import type { Signer } from '../../lib/federation/signatures';
import type { App } from '../../lib/db/apps';
import { newId } from '../../lib/ids';
import { hashPassword } from '../../lib/password';
import { issueAccessToken } from '../../lib/tokens';

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

export async function anApp(overrides: Partial<{ client_name: string; redirect_uris: string; scopes: string; website: string }> = {}) {
  const input = createAppInput.parse({
    client_name: 'Test app',
    redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
    scopes: 'read write follow push',
    ...overrides,
  });
  return registerApp(input);
}

export const DEFAULT_PASSWORD = 'correct horse battery staple';

export type UserFixture = { account: Account; app: App; token: string; password: string };

/** A confirmed, approved local user with a token (scopes default to read write follow push). */
export async function aUser(opts: Partial<{
  username: string;
  email: string;
  password: string;
  scopes: string[];
  confirmed: boolean;
  approved: boolean;
  locked: boolean;
}> = {}): Promise<UserFixture> {
  const username = opts.username ?? `user_${unique()}`.slice(0, 30);
  const password = opts.password ?? DEFAULT_PASSWORD;
  const created = await createLocalAccount({
    id: newId(),
    username,
    email: opts.email ?? `${username}@example.com`,
    passwordHash: await hashPassword(password),
    confirmedAt: opts.confirmed === false ? null : new Date().toISOString(),
    approved: opts.approved ?? true,
  });
  if (!created.ok) throw new Error(`fixture: ${created.taken} taken`);
  const { app } = await anApp();
  const { raw } = await issueAccessToken(app, created.account.id, opts.scopes ?? ['read', 'write', 'follow', 'push']);
  return { account: created.account, app, token: raw, password };
}

const rsaKeyPair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
};

export type RemoteAccountFixture = { account: Account; signer: Signer };

/**
 * A remote account stored as lib/federation/actors.ts stores a fetched actor (fetched just now,
 * so never refetched), on `domain` with Mastodon's URLs and a shared inbox unless `sharedInboxUrl`
 * is null. `signer` holds its own RSA key (one per account, so one account's key never verifies
 * another's signature); `keyless` stores none, for tests that sign nothing.
 */
export async function aRemoteAccount(opts: Partial<{
  domain: string;
  username: string;
  uri: string;
  inboxUrl: string;
  sharedInboxUrl: string | null;
  followersUrl: string;
  displayName: string;
  keyless: boolean;
}> = {}): Promise<RemoteAccountFixture> {
  const domain = opts.domain ?? 'remote.example';
  const username = opts.username ?? `r${unique()}`.slice(0, 30);
  const uri = opts.uri ?? `https://${domain}/users/${username}`;
  const keyId = `${uri}#main-key`;
  const pair = opts.keyless ? undefined : rsaKeyPair();
  const now = new Date().toISOString();
  const account = accountItem.parse({
    id: newId(),
    username,
    domain,
    displayName: opts.displayName ?? '',
    createdAt: now,
    uri,
    url: `https://${domain}/@${username}`,
    actorType: 'Person',
    inboxUrl: opts.inboxUrl ?? `${uri}/inbox`,
    sharedInboxUrl: opts.sharedInboxUrl === undefined ? `https://${domain}/inbox` : opts.sharedInboxUrl,
    followersUrl: opts.followersUrl ?? `${uri}/followers`,
    publicKeyId: pair ? keyId : null,
    publicKeyPem: pair?.publicKeyPem ?? null,
    fetchedAt: now,
  });
  if (!(await createRemoteAccount(account))) throw new Error(`fixture: remote account ${username}@${domain} taken`);
  return { account, signer: { keyId, privateKeyPem: pair?.privateKeyPem ?? '' } };
}

/** An app token (client_credentials) for the given scopes. */
export async function anAppToken(scopes = ['read', 'write']) {
  const { app, clientSecret } = await anApp();
  const { raw } = await issueAccessToken(app, null, scopes);
  return { app, clientSecret, token: raw };
}

/** A raw authorization code, as the approval page issues it (10 minutes, single use). */
export async function anAuthorizationCode(opts: {
  app: App;
  accountId: string;
  scopes?: string[];
  redirectUri?: string;
  codeChallenge?: string;
}): Promise<string> {
  const { issueAuthorizationCode } = await import('../../lib/oauth/authorize');
  return issueAuthorizationCode(
    {
      app: opts.app,
      redirectUri: opts.redirectUri ?? opts.app.redirectUris[0] ?? 'urn:ietf:wg:oauth:2.0:oob',
      scopes: opts.scopes ?? ['read'],
      codeChallenge: opts.codeChallenge ?? null,
      codeChallengeMethod: opts.codeChallenge ? 'S256' : null,
    },
    opts.accountId,
  );
}

// ---- notifications and sweeper: statuses and polls stored directly (polls already past their end cannot be posted) ----
export async function aStoredStatus(author: Account, overrides: Partial<import('../../lib/db/statuses').Status> = {}) {
  const { statusItem, statusRecord } = await import('../../lib/db/statuses');
  const { putItem } = await import('../../lib/db/table');
  const id = overrides.id ?? newId();
  const status = statusItem.parse({
    id,
    accountId: author.id,
    createdAt: new Date().toISOString(),
    visibility: 'public',
    conversationId: id,
    text: 'hello',
    contentHtml: '<p>hello</p>',
    ...overrides,
  });
  await putItem(statusRecord(status));
  return status;
}

/** A status with a poll ending at `expiresAt`, its sweeper bucket entry, and one vote (option 0) per voter. */
export async function aStoredPoll(author: Account, opts: { expiresAt: Date; voters?: Account[]; visibility?: 'public' | 'private' }) {
  const { pollExpiryRecord, pollRecord, pollVoteItem } = await import('../../lib/db/polls');
  const keys = await import('../../lib/db/keys');
  const { batchWrite } = await import('../../lib/db/table');
  const pollId = newId();
  const status = await aStoredStatus(author, { pollId, visibility: opts.visibility ?? 'public' });
  const voters = opts.voters ?? [];
  const poll = {
    id: pollId,
    statusId: status.id,
    accountId: author.id,
    options: [{ title: 'yes', votesCount: voters.length }, { title: 'no', votesCount: 0 }],
    multiple: false,
    hideTotals: false,
    expiresAt: opts.expiresAt.toISOString(),
    votesCount: voters.length,
    votersCount: voters.length,
    createdAt: new Date().toISOString(),
  };
  const votes = voters.map((v) => ({
    ...keys.pollVote(pollId, v.id),
    ...pollVoteItem.parse({ pollId, accountId: v.id, choices: [0], createdAt: new Date().toISOString() }),
  }));
  await batchWrite([pollRecord(poll), pollExpiryRecord(pollRecord(poll)), ...votes]);
  return { status, poll: pollRecord(poll) };
}

// ---- timelines and fan-out: statuses stored as the posting transaction stores them, and follow edges ----
/** A status with what posting writes at once: the status, its author's home entry, its public and tag entries. */
export async function aPostedStatus(author: Account, overrides: Partial<import('../../lib/db/statuses').Status> = {}) {
  const { statusItem, statusRecord } = await import('../../lib/db/statuses');
  const { homeEntryRecord, publicEntryRecords } = await import('../../lib/db/timelines');
  const { entersPublicTimelines } = await import('../../lib/policy/visibility');
  const { batchWrite } = await import('../../lib/db/table');
  const id = overrides.id ?? newId();
  const status = statusItem.parse({
    id,
    accountId: author.id,
    createdAt: new Date().toISOString(),
    visibility: 'public',
    conversationId: id,
    text: `status ${id}`,
    contentHtml: `<p>status ${id}</p>`,
    ...overrides,
  });
  const hasMedia = status.mediaIds.length > 0;
  await batchWrite([statusRecord(status), homeEntryRecord(author.id, status, hasMedia), ...publicEntryRecords(status, hasMedia, entersPublicTimelines(status))]);
  return status;
}

/** A reblog of `original` by `reblogger`, stored as the reblog endpoint stores it. */
export async function aPostedReblog(reblogger: Account, original: import('../../lib/db/statuses').Status) {
  const id = newId();
  return aPostedStatus(reblogger, { id, reblogOfId: original.id, visibility: original.visibility, text: '', contentHtml: '', conversationId: original.conversationId });
}

/** `follower` follows `followed` (an accepted edge, as the follow endpoint writes it). */
export async function aFollow(follower: Account, followed: Account, opts: { showReblogs?: boolean } = {}) {
  const { followRecord } = await import('../../lib/db/follows');
  const { putItem } = await import('../../lib/db/table');
  const follow = { id: newId(), followerId: follower.id, followedId: followed.id, showReblogs: opts.showReblogs ?? true, notify: false, createdAt: new Date().toISOString() };
  await putItem(followRecord(follow));
  return follow;
}

// ---- statuses: media attachments stored as the media endpoints leave them ----
/** A media attachment of `owner` (ready and unattached unless told otherwise). */
export async function aMediaAttachment(owner: Account, opts: Partial<{ state: 'processing' | 'ready' | 'failed'; statusId: string | null; description: string }> = {}) {
  const { mediaItem, uploadRecord } = await import('../../lib/db/media');
  const keys = await import('../../lib/db/keys');
  const { putItem } = await import('../../lib/db/table');
  const id = newId();
  const media = mediaItem.parse({
    id,
    accountId: owner.id,
    type: 'image',
    fileKey: `media_attachments/files/${id}/original.png`,
    previewKey: `media_attachments/files/${id}/small.png`,
    contentType: 'image/png',
    fileSize: 100,
    original: { width: 10, height: 10 },
    small: { width: 10, height: 10 },
    description: opts.description ?? null,
    statusId: opts.statusId ?? null,
    state: opts.state ?? 'ready',
    createdAt: new Date().toISOString(),
  });
  // A local account's upload is listed under it (lib/db/media.ts uploadRecord); a remote one's is not.
  await putItem(owner.domain === null ? uploadRecord(media) : { ...keys.media(id), ...media });
  return media;
}

// ---- social graph: accounts that never sign in (no password hashing, so many are cheap) ----
/**
 * A confirmed, approved local account without a usable password or token. With
 * `domain`, it stands for a remote account on that domain (no federation yet:
 * the same item with `domain` set; its username claim stays, harmlessly).
 */
export async function aBareAccount(opts: Partial<{ username: string; displayName: string; approved: boolean; domain: string }> = {}): Promise<Account> {
  const username = opts.username ?? `acct_${unique()}`.slice(0, 30);
  const created = await createLocalAccount({
    id: newId(),
    username,
    email: `${username}@example.com`,
    passwordHash: 'not-a-password-hash',
    confirmedAt: new Date().toISOString(),
    approved: opts.approved ?? true,
    displayName: opts.displayName,
  });
  if (!created.ok) throw new Error(`fixture: ${created.taken} taken`);
  if (opts.domain === undefined) return created.account;
  const { accountItem } = await import('../../lib/db/accounts');
  const keys = await import('../../lib/db/keys');
  const { updateItem } = await import('../../lib/db/table');
  const remote = await updateItem(
    { Key: keys.account(created.account.id), UpdateExpression: 'SET #d = :d', ExpressionAttributeNames: { '#d': 'domain' }, ExpressionAttributeValues: { ':d': opts.domain } },
    accountItem,
  );
  if (!remote) throw new Error('fixture: account vanished');
  return remote;
}
