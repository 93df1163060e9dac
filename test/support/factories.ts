// Small fixture builders that write through lib/, the way the endpoints do.
import { createAppInput, registerApp } from '../../lib/apps';
import { createLocalAccount, type Account } from '../../lib/db/accounts';
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
