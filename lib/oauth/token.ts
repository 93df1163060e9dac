// The token endpoint's grants (RFC 6749 sections 4.1.3, 4.3 and 4.4), checked in
// the order Doorkeeper checks them so that each failure answers the same error.
import { z } from 'zod';
import { sha256 } from '../crypto';
import type { App } from '../db/apps';
import { consumeAuthCode, type Token } from '../db/tokens';
import { issueAccessToken } from '../tokens';
import { authenticatedClient } from './client';
import { invalidClient, invalidGrant, invalidRequest, invalidScope, missingParam, unsupportedGrantType } from './errors';
import { checkLogin, countSignInAttempt, recordSignInLater } from './login';
import { verifierMatches } from './pkce';
import { redirectUriMatches } from './redirect';
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
 * Exchanges a code. The code is taken out of the table before the redirect URI and
 * the PKCE verifier are compared, so a failed attempt also spends it: a code
 * presented wrongly is treated as compromised (RFC 6749 section 10.5).
 */
async function authorizationCode(code: string, redirectUri: string, verifier: string | undefined, app: App): Promise<Issued> {
  const grant = await consumeAuthCode(sha256(code));
  if (!grant || grant.clientId !== app.clientId) throw invalidGrant();
  if (grant.codeChallenge && !verifier) throw invalidRequest(missingParam('code_verifier'));
  if (!redirectUriMatches(redirectUri, grant.redirectUri)) throw invalidGrant();
  if (!verifierMatches(grant.codeChallenge, grant.codeChallengeMethod, verifier)) throw invalidGrant();
  return issueAccessToken(app, grant.accountId, grant.scopes);
}
