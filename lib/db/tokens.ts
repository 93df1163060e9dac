// Access tokens (by hash), authorization codes and authorize-page sessions.
import { z } from 'zod';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { batchWrite, deleteItem, expiresIn, getItem, nowIso, putItem, query, queryAll, transact, updateItem, type Item } from './table';

export const tokenItem = z.object({
  id: z.string(),
  tokenHash: z.string(),
  clientId: z.string(),
  appName: z.string(),
  appWebsite: z.string().nullable().default(null),
  /** null for an app token (client_credentials). */
  accountId: z.string().nullable(),
  scopes: z.array(z.string()),
  createdAt: z.string(),
});
export type Token = z.infer<typeof tokenItem>;

export const tokenByHash = (tokenHash: string) => getItem(keys.token(tokenHash), tokenItem);

/** The entry of a token in its application's index: enough to find the token item again. */
export const appTokenItem = z.object({ tokenId: z.string(), tokenHash: z.string(), accountId: z.string().nullable() });

/**
 * Writes a token with its entry in the application's index, so that deleting the
 * app finds every token. One BatchWrite rather than a transaction (half the write
 * units): if it fails, the raw token never reaches the client, so a token item
 * left without its entry can never be used.
 */
export async function saveToken(token: Token): Promise<void> {
  await batchWrite(tokenItems(token));
}

/** A token's item and its entry in the application's index. */
function tokenItems(token: Token): (keys.Key & Item)[] {
  const index = token.accountId ? gsi1.accountToken(token.accountId, token.id) : {};
  return [
    { ...keys.token(token.tokenHash), ...index, ...tokenItem.parse(token) },
    { ...keys.appToken(token.clientId, token.id), ...appTokenItem.parse({ tokenId: token.id, tokenHash: token.tokenHash, accountId: token.accountId }) },
  ];
}

/**
 * Deletes a token, but only if it (still) belongs to the given application
 * (RFC 7009), with its entry in the application's index. Answers false when
 * the token was not there to delete.
 */
export async function revokeToken(token: Pick<Token, 'id' | 'tokenHash' | 'clientId'>, clientId: string): Promise<boolean> {
  const result = await transact([
    {
      Delete: {
        Key: keys.token(token.tokenHash),
        ConditionExpression: 'attribute_exists(PK) AND clientId = :c',
        ExpressionAttributeValues: { ':c': clientId },
      },
    },
    { Delete: { Key: keys.appToken(token.clientId, token.id) } },
  ]);
  return result.ok;
}

/** Every token of an application, from its index (consistent: a token issued a moment ago is among them). */
export const tokensOfApp = (clientId: string) =>
  queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.appTokensPartition(clientId) }, ConsistentRead: true },
    appTokenItem,
  );

/** Deletes tokens of an application and their index entries (25 per BatchWrite). */
export const deleteAppTokens = (clientId: string, tokens: z.infer<typeof appTokenItem>[]) =>
  batchWrite([], tokens.flatMap((t) => [keys.token(t.tokenHash), keys.appToken(clientId, t.tokenId)]));

export async function tokensOfAccount(accountId: string): Promise<Token[]> {
  const page = await query(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p',
      ExpressionAttributeValues: { ':p': gsi1.accountTokensPartition(accountId) },
      ScanIndexForward: false,
    },
    tokenItem,
  );
  return page.items;
}

export const authCodeItem = z.object({
  codeHash: z.string(),
  clientId: z.string(),
  accountId: z.string(),
  scopes: z.array(z.string()),
  redirectUri: z.string(),
  codeChallenge: z.string().nullable().default(null),
  codeChallengeMethod: z.enum(['S256', 'plain']).nullable().default(null),
  createdAt: z.string(),
  /** Until then the code can be exchanged; once used, until then it is remembered (TTL). */
  expiresAt: z.number(),
  /** Set by its first presentation, successful or not: a code works once. */
  usedAt: z.string().nullable().default(null),
  /** The token its exchange issued, written with usedAt: what a replay revokes (RFC 6749 section 4.1.2). */
  tokenHash: z.string().nullable().default(null),
});
export type AuthCode = z.infer<typeof authCodeItem>;

const CODE_TTL_SECONDS = 600;
/**
 * A used code is kept this long, so that a replay is recognised and revokes what the code issued.
 * A stolen code is tried at once; a week is far past that, and the item is a few hundred bytes.
 */
const USED_CODE_KEEP_SECONDS = 7 * 24 * 60 * 60;

export async function saveAuthCode(code: Omit<AuthCode, 'createdAt' | 'expiresAt' | 'usedAt' | 'tokenHash'>): Promise<void> {
  await putItem({ ...keys.authCode(code.codeHash), ...authCodeItem.parse({ ...code, createdAt: nowIso(), expiresAt: expiresIn(CODE_TTL_SECONDS) }) });
}

/** A code as stored, used or not (consistent: a use a moment ago is seen). */
export const authCodeByHash = (codeHash: string) => getItem(keys.authCode(codeHash), authCodeItem, true);

/** Only an unused, unexpired code may be used; TTL deletion is lazy, so expiry is checked here. */
const unusedCode = (now: number) => ({
  // A code saved by authCodeItem.parse carries usedAt: null.
  ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(usedAt) OR usedAt = :unused) AND expiresAt > :now',
  ExpressionAttributeValues: { ':now': now, ':unused': null, ':used': nowIso(), ':keep': now + USED_CODE_KEEP_SECONDS },
});

/**
 * Exchanges a code for a token in one transaction: the code marked used with the token it issued, the token
 * and its index entry written. Answers false when the code was used (or expired) meanwhile: nothing is written.
 */
export async function exchangeAuthCode(codeHash: string, token: Token): Promise<boolean> {
  const condition = unusedCode(Math.floor(Date.now() / 1000));
  const result = await transact([
    {
      Update: {
        Key: keys.authCode(codeHash),
        UpdateExpression: 'SET usedAt = :used, tokenHash = :token, expiresAt = :keep',
        ...condition,
        ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':token': token.tokenHash },
      },
    },
    ...tokenItems(token).map((Item) => ({ Put: { Item } })),
  ]);
  return result.ok;
}

/** Marks a code used without a token (presented wrongly: treated as compromised). Answers false when it already was. */
export async function spendAuthCode(codeHash: string): Promise<boolean> {
  const spent = await updateItem(
    { Key: keys.authCode(codeHash), UpdateExpression: 'SET usedAt = :used, expiresAt = :keep', ...unusedCode(Math.floor(Date.now() / 1000)) },
    authCodeItem,
  );
  return spent !== undefined;
}

export const sessionItem = z.object({
  sessionHash: z.string(),
  accountId: z.string(),
  csrf: z.string(),
  createdAt: z.string(),
  expiresAt: z.number(),
});
export type Session = z.infer<typeof sessionItem>;

const SESSION_TTL_SECONDS = 60 * 60 * 24 * 7;

export async function saveSession(session: Pick<Session, 'sessionHash' | 'accountId' | 'csrf'>): Promise<Session> {
  const item = sessionItem.parse({ ...session, createdAt: nowIso(), expiresAt: expiresIn(SESSION_TTL_SECONDS) });
  await putItem({ ...keys.session(session.sessionHash), ...item });
  return item;
}

export async function sessionByHash(sessionHash: string): Promise<Session | undefined> {
  const session = await getItem(keys.session(sessionHash), sessionItem);
  return session && session.expiresAt > Date.now() / 1000 ? session : undefined;
}

export const deleteSession = (sessionHash: string) => deleteItem(keys.session(sessionHash), sessionItem);
