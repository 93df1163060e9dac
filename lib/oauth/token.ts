// The token endpoint's grants (RFC 6749 sections 4.1.3, 4.3 and 4.4), checked in
// the order Doorkeeper checks them so that each failure answers the same error.
import { z } from 'zod';
import { sha256 } from '../crypto';
import type { App } from '../db/apps';
import { authCodeByHash, exchangeAuthCode, spendAuthCode, tokenByHash, type Token } from '../db/tokens';
import { log } from '../log';
import { issueAccessToken, newAccessToken } from '../tokens';
import { addressSubject, enforce, exemptFromRateLimits, hit, throttles } from '../http/ratelimit';
import { authenticatedClient } from './client';
import { invalidClient, invalidGrant, invalidRequest, invalidScope, missingParam, unsupportedGrantType } from './errors';
import { checkLogin, countSignInAttempt, recordSignInLater } from './login';
import { verifierMatches } from './pkce';
import { redirectUriMatches } from './redirect';
import { withdrawToken } from './revoke';
import { requestedScopes } from './scopes';

const param = (max: number) => z.string().max(max).optional();

/** Every parameter is optional here: a missing one answers its own OAuth error below. */
export const tokenParams = z.object({
  grant_type: param(100),
  client_id: param(200),
  client_secret: param(200),
  scope: z.union([z.string().max(1000), z.array(z.string().max(100)).max(50)]).optional(),
  code: param(200),
  redirect_uri: param(2000),
  code_verifier: param(200),
  username: param(320),
  password: param(1000),
});
export type TokenParams = z.infer<typeof tokenParams>;

export const GRANT_TYPES = ['authorization_code', 'password', 'client_credentials'] as const;

export type Issued = { raw: string; token: Token };

/**
 * Runs a token request from the address `ip`; throws the OAuth error that
 * Doorkeeper would answer, or 429 when the password grant's sign-in budget is spent.
 */
export async function exchange(input: unknown, authorization: string | undefined, ip: string): Promise<Issued> {
  const parsed = tokenParams.safeParse(input);
  if (!parsed.success) throw invalidRequest();
  const params = parsed.data;
  if (!params.grant_type) throw invalidRequest(missingParam('grant_type'));
  switch (params.grant_type) {
    case 'client_credentials':
      // Counted before anything is checked, as the password grant: every grant stores a token.
      if (!exemptFromRateLimits(ip)) enforce([await hit(throttles.appToken, addressSubject(ip))]);
      return clientCredentials(params, await client(params, authorization));
    case 'password':
      // Counted before anything is checked, so that no answer (not even a wrong client) comes uncounted.
      await countSignInAttempt(ip, params.username);
      return passwordGrant(params, await client(params, authorization));
    case 'authorization_code': {
      if (!params.code) throw invalidRequest(missingParam('code'));
      if (!params.redirect_uri) throw invalidRequest(missingParam('redirect_uri'));
      return authorizationCode(params.code, params.redirect_uri, params.code_verifier, await client(params, authorization));
    }
    default:
      throw unsupportedGrantType();
  }
}

async function client(params: TokenParams, authorization: string | undefined): Promise<App> {
  const app = await authenticatedClient(authorization, params);
  if (!app) throw invalidClient();
  return app;
}

async function clientCredentials(params: TokenParams, app: App): Promise<Issued> {
  const scopes = requestedScopes(params.scope, app);
  if (!scopes) throw invalidScope();
  return issueAccessToken(app, null, scopes);
}

async function passwordGrant(params: TokenParams, app: App): Promise<Issued> {
  const login = await checkLogin(params.username, params.password);
  if (!login.ok) throw invalidGrant();
  const scopes = requestedScopes(params.scope, app);
  if (!scopes) throw invalidScope();
  const issued = await issueAccessToken(app, login.account.id, scopes);
  await recordSignInLater(login.account.id);
  return issued;
}

/**
 * Exchanges a code. A code works once: its first presentation marks it used, and a
 * presentation that fails (another client, redirect URI or PKCE verifier) spends it
 * too, as a code presented wrongly is treated as compromised (RFC 6749 section 10.5).
 * A used code presented again revokes the token its exchange issued, with that token's
 * streams and push subscription (section 4.1.2): the code leaked, and whoever holds the
 * token may not be its owner.
 */
async function authorizationCode(code: string, redirectUri: string, verifier: string | undefined, app: App): Promise<Issued> {
  const codeHash = sha256(code);
  const grant = await authCodeByHash(codeHash);
  if (!grant) throw invalidGrant();
  if (grant.usedAt) {
    await revokeWhatCodeIssued(codeHash);
    throw invalidGrant();
  }
  // TTL deletion is lazy; exchangeAuthCode and spendAuthCode check expiry again.
  if (grant.expiresAt <= Date.now() / 1000) throw invalidGrant();
  const failure =
    grant.clientId !== app.clientId ? invalidGrant()
    : grant.codeChallenge && !verifier ? invalidRequest(missingParam('code_verifier'))
    : !redirectUriMatches(redirectUri, grant.redirectUri) ? invalidGrant()
    : !verifierMatches(grant.codeChallenge, grant.codeChallengeMethod, verifier) ? invalidGrant()
    : undefined;
  if (failure) {
    // Used by another presentation meanwhile: this one is the replay.
    if (!(await spendAuthCode(codeHash))) await revokeWhatCodeIssued(codeHash);
    throw failure;
  }
  const issued = newAccessToken(app, grant.accountId, grant.scopes);
  if (!(await exchangeAuthCode(codeHash, issued.token))) {
    // Two presentations at once: the other one won, and this one revokes what it got.
    await revokeWhatCodeIssued(codeHash);
    throw invalidGrant();
  }
  return issued;
}

/** Revokes the token a used code issued, if it issued one and it still stands. */
async function revokeWhatCodeIssued(codeHash: string): Promise<void> {
  const used = await authCodeByHash(codeHash);
  const token = used?.tokenHash ? await tokenByHash(used.tokenHash) : undefined;
  if (token && (await withdrawToken(token))) log.warn('oauth: an authorization code was presented again; the token it issued is revoked', { clientId: token.clientId, tokenId: token.id });
}
