import { createHash } from 'node:crypto';
import { jest } from '@jest/globals';
import { handler as verify } from '../../functions/apps/verify_credentials';
import { handler as token } from '../../functions/oauth/token';
import { handler as signinWorker } from '../../functions/workers/signin';
import { accountById, updateAccount } from '../../lib/db/accounts';
import { tokensOfAccount, tokensOfApp } from '../../lib/db/tokens';
import { registerInlineWorker } from '../../lib/queue';
import { call, type Call } from '../support/http';
import { anApp, anAuthorizationCode, aUser, DEFAULT_PASSWORD } from '../support/factories';

registerInlineWorker('signin', signinWorker);

let lastOctet = 0;
/** Each request from an address of its own: grants are throttled per address (test/integration/ratelimit-*.test.ts). */
const post = (form: Record<string, string>, extra: Partial<Call> = {}) =>
  call(token, { method: 'POST', path: '/oauth/token', form, sourceIp: `198.51.100.${++lastOctet % 250}`, ...extra });

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};
const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
};
const INVALID_SCOPE = { error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' };

async function aClient(scopes = 'read write follow push', redirect_uris = 'https://client.example/callback') {
  const { app, clientSecret } = await anApp({ scopes, redirect_uris });
  return { app, clientId: app.clientId, clientSecret };
}

/** A user with no token yet (the factory's own token belongs to another app). */
async function aLogin(opts: Parameters<typeof aUser>[0] = {}) {
  const user = await aUser(opts);
  return { account: user.account, email: user.account.email ?? '', password: user.password };
}

describe('POST /oauth/token: client_credentials', () => {
  it('issues an app token with the default read scope, not cacheable, that works on the API', async () => {
    const { clientId, clientSecret } = await aClient();
    const res = await post({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', scope: 'read', created_at: expect.any(Number) });
    expect(Math.abs(res.body.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const me = await call(verify, { path: '/api/v1/apps/verify_credentials', token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.name).toBe('Test app');
  });

  it('accepts HTTP Basic client authentication and a JSON body', async () => {
    const { clientId, clientSecret } = await aClient();
    const res = await call(token, {
      method: 'POST',
      path: '/oauth/token',
      json: { grant_type: 'client_credentials', scope: 'read write' },
      headers: { authorization: basic(clientId, clientSecret) },
    });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read write');
  });

  it('grants a narrower scope than a registered one', async () => {
    const { clientId, clientSecret } = await aClient('read');
    const res = await post({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'read:statuses read:accounts' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read:statuses read:accounts');
  });

  it.each([
    ['a scope the app did not register', 'read write'],
    ['an unknown scope', 'read admin:everything'],
    ['an unknown sub-scope of a registered one', 'read:nonsense'],
  ])('refuses %s with invalid_scope', async (_name, scope) => {
    const { clientId, clientSecret } = await aClient('read');
    const res = await post({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_SCOPE);
  });

  it('refuses the default read scope to an app registered without it', async () => {
    const { clientId, clientSecret } = await aClient('write');
    const res = await post({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    expect(res.body).toEqual(INVALID_SCOPE);
  });
});

describe('POST /oauth/token: password', () => {
  it('issues a user token for the e-mail address and password, and records the sign-in', async () => {
    const { clientId, clientSecret } = await aClient();
    const { account, email, password } = await aLogin();
    const res = await post({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: email.toUpperCase(), password, scope: 'read write' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read write');
    const tokens = await tokensOfAccount(account.id);
    expect(tokens).toHaveLength(2); // the fixture's own token and this one
    expect(tokens.find((t) => t.clientId === clientId)?.scopes).toEqual(['read', 'write']);
    const signedIn = await accountById(account.id);
    expect(signedIn?.signInCount).toBe(1);
    expect(signedIn?.lastSignInAt).not.toBeNull();
    const me = await call(verify, { path: '/api/v1/apps/verify_credentials', token: res.body.access_token });
    expect(me.status).toBe(200);
  });

  it('issues a token to an unconfirmed account, which the API then answers with 403', async () => {
    const { clientId, clientSecret } = await aClient();
    const { email, password } = await aLogin({ confirmed: false });
    const res = await post({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: email, password });
    expect(res.status).toBe(200);
    const me = await call(verify, { path: '/api/v1/apps/verify_credentials', token: res.body.access_token });
    expect(me.status).toBe(403);
    expect(me.body).toEqual({ error: 'Your login is missing a confirmed e-mail address' });
  });

  it('issues a token to an account awaiting approval, which the API then answers with 403', async () => {
    const { clientId, clientSecret } = await aClient();
    const { email, password } = await aLogin({ approved: false });
    const res = await post({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: email, password });
    expect(res.status).toBe(200);
    const me = await call(verify, { path: '/api/v1/apps/verify_credentials', token: res.body.access_token });
    expect(me.body).toEqual({ error: 'Your login is currently pending approval' });
  });

  it('refuses a disabled account with invalid_grant and issues nothing', async () => {
    const { clientId, clientSecret } = await aClient();
    const { account, email, password } = await aLogin();
    await updateAccount(account.id, { disabled: true });
    const res = await post({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: email, password });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_GRANT);
    expect(await tokensOfAccount(account.id)).toHaveLength(1);
  });

  it.each([
    ['a wrong password', (email: string) => ({ username: email, password: 'wrong password' })],
    ['an unknown e-mail address', () => ({ username: 'nobody@example.com', password: DEFAULT_PASSWORD })],
    ['a username instead of the e-mail address', (_e: string, username: string) => ({ username, password: DEFAULT_PASSWORD })],
    ['no password', (email: string) => ({ username: email })],
    ['an empty password', (email: string) => ({ username: email, password: '' })],
    ['no username', () => ({ password: DEFAULT_PASSWORD })],
  ])('refuses %s with the same invalid_grant and writes nothing', async (_name, creds) => {
    const { clientId, clientSecret } = await aClient();
    const { account, email } = await aLogin();
    const res = await post({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, ...creds(email, account.username) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_GRANT);
    expect(await tokensOfAccount(account.id)).toHaveLength(1);
    expect((await accountById(account.id))?.signInCount).toBe(0);
  });

  it('refuses a scope beyond the app with invalid_scope once the credentials are right', async () => {
    const { clientId, clientSecret } = await aClient('read');
    const { account, email, password } = await aLogin();
    const res = await post({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: email, password, scope: 'read write' });
    expect(res.body).toEqual(INVALID_SCOPE);
    expect(await tokensOfAccount(account.id)).toHaveLength(1);
  });
});

describe('POST /oauth/token: authorization_code', () => {
  it('exchanges a code with its PKCE verifier for a token carrying the code scopes and user', async () => {
    const { app, clientId, clientSecret } = await aClient();
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id, scopes: ['read', 'push'], codeChallenge: s256(VERIFIER) });
    const res = await post({
      grant_type: 'authorization_code', client_id: clientId, client_secret: clientSecret, code,
      redirect_uri: 'https://client.example/callback', code_verifier: VERIFIER, scope: 'read write follow',
    });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read push');
    expect(res.headers['cache-control']).toBe('no-store');
    const issued = (await tokensOfAccount(account.id)).find((t) => t.clientId === clientId);
    expect(issued?.scopes).toEqual(['read', 'push']);
    const me = await call(verify, { path: '/api/v1/apps/verify_credentials', token: res.body.access_token });
    expect(me.status).toBe(200);
  });

  it('exchanges a code issued without PKCE when no verifier is sent', async () => {
    const { app, clientId, clientSecret } = await aClient();
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id });
    const res = await call(token, {
      method: 'POST', path: '/oauth/token',
      json: { grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' },
      headers: { authorization: basic(clientId, clientSecret) },
    });
    expect(res.status).toBe(200);
  });

  it('answers a reused code with invalid_grant and revokes the token its first use issued (RFC 6749 section 4.1.2)', async () => {
    const { app, clientId, clientSecret } = await aClient();
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id });
    const form = { grant_type: 'authorization_code', client_id: clientId, client_secret: clientSecret, code, redirect_uri: 'https://client.example/callback' };
    const first = await post(form);
    expect(first.status).toBe(200);
    expect((await call(verify, { path: '/api/v1/apps/verify_credentials', token: first.body.access_token })).status).toBe(200);
    const again = await post(form);
    expect(again.status).toBe(400);
    expect(again.body).toEqual(INVALID_GRANT);
    const after = await call(verify, { path: '/api/v1/apps/verify_credentials', token: first.body.access_token });
    expect(after.status).toBe(401);
    // Only the factory's own token is left; nothing was issued to the replay.
    expect((await tokensOfAccount(account.id)).map((t) => t.clientId)).not.toContain(clientId);
    expect((await tokensOfApp(clientId))).toEqual([]);
    // A third presentation changes nothing more.
    expect((await post(form)).body).toEqual(INVALID_GRANT);
  });

  it('revokes the first token also when the replay comes from another client', async () => {
    const { app, clientId, clientSecret } = await aClient();
    const other = await aClient();
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id });
    const first = await post({ grant_type: 'authorization_code', client_id: clientId, client_secret: clientSecret, code, redirect_uri: 'https://client.example/callback' });
    expect(first.status).toBe(200);
    const replay = await post({ grant_type: 'authorization_code', client_id: other.clientId, client_secret: other.clientSecret, code, redirect_uri: 'https://client.example/callback' });
    expect(replay.body).toEqual(INVALID_GRANT);
    expect((await call(verify, { path: '/api/v1/apps/verify_credentials', token: first.body.access_token })).status).toBe(401);
  });

  it('issues one token, and then none, when a code is presented twice at once', async () => {
    const { app, clientId, clientSecret } = await aClient();
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id });
    const form = { grant_type: 'authorization_code', client_id: clientId, client_secret: clientSecret, code, redirect_uri: 'https://client.example/callback' };
    const answers = await Promise.all([post(form), post(form)]);
    // Whichever came second revoked what the first got, or found the code used: no token stands.
    expect(answers.map((a) => a.status).sort()).toEqual(answers.some((a) => a.status === 200) ? [200, 400] : [400, 400]);
    expect(await tokensOfApp(clientId)).toEqual([]);
  });

  it('answers a code older than ten minutes with invalid_grant', async () => {
    const { app, clientId, clientSecret } = await aClient();
    const { account } = await aLogin();
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now - 11 * 60 * 1000);
    let code: string;
    try {
      code = await anAuthorizationCode({ app, accountId: account.id });
    } finally {
      clock.mockRestore();
    }
    const res = await post({ grant_type: 'authorization_code', client_id: clientId, client_secret: clientSecret, code, redirect_uri: 'https://client.example/callback' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_GRANT);
    expect(await tokensOfAccount(account.id)).toHaveLength(1);
  });

  type Case = [string, (c: { code: string; clientId: string; clientSecret: string; other: { clientId: string; clientSecret: string } }) => Record<string, string>, number, Record<string, string>];
  const cases: Case[] = [
    ['a wrong PKCE verifier', (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, code: c.code, redirect_uri: 'https://client.example/callback', code_verifier: `${VERIFIER}x` }), 400, INVALID_GRANT],
    ['a missing PKCE verifier', (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, code: c.code, redirect_uri: 'https://client.example/callback' }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: code_verifier.' }],
    ['the verifier itself as a plain challenge', (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, code: c.code, redirect_uri: 'https://client.example/callback', code_verifier: s256(VERIFIER) }), 400, INVALID_GRANT],
    ['another redirect_uri', (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, code: c.code, redirect_uri: 'https://client.example/other', code_verifier: VERIFIER }), 400, INVALID_GRANT],
    ['another client', (c) => ({ client_id: c.other.clientId, client_secret: c.other.clientSecret, code: c.code, redirect_uri: 'https://client.example/callback', code_verifier: VERIFIER }), 400, INVALID_GRANT],
    ['an unknown code', (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, code: 'nope', redirect_uri: 'https://client.example/callback', code_verifier: VERIFIER }), 400, INVALID_GRANT],
    ['a missing code', (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, redirect_uri: 'https://client.example/callback', code_verifier: VERIFIER }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: code.' }],
    ['a missing redirect_uri', (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, code: c.code, code_verifier: VERIFIER }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: redirect_uri.' }],
    ['a wrong client secret', (c) => ({ client_id: c.clientId, client_secret: 'wrong', code: c.code, redirect_uri: 'https://client.example/callback', code_verifier: VERIFIER }), 401, INVALID_CLIENT],
  ];

  it.each(cases)('refuses %s and issues no token', async (_name, build, status, body) => {
    const { app, clientId, clientSecret } = await aClient();
    const other = await aClient();
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id, codeChallenge: s256(VERIFIER) });
    const res = await post({ grant_type: 'authorization_code', ...build({ code, clientId, clientSecret, other }) });
    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
    expect(await tokensOfAccount(account.id)).toHaveLength(1);
  });

  it('refuses a verifier for a code issued without a challenge (no PKCE downgrade)', async () => {
    const { app, clientId, clientSecret } = await aClient();
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id });
    const res = await post({ grant_type: 'authorization_code', client_id: clientId, client_secret: clientSecret, code, redirect_uri: 'https://client.example/callback', code_verifier: VERIFIER });
    expect(res.body).toEqual(INVALID_GRANT);
  });

  it('lets the port of a loopback redirect vary, as RFC 8252 asks', async () => {
    const { app, clientId, clientSecret } = await aClient('read', 'http://127.0.0.1/callback');
    const { account } = await aLogin();
    const code = await anAuthorizationCode({ app, accountId: account.id, redirectUri: 'http://127.0.0.1:53682/callback' });
    const res = await post({ grant_type: 'authorization_code', client_id: clientId, client_secret: clientSecret, code, redirect_uri: 'http://127.0.0.1:53682/callback' });
    expect(res.status).toBe(200);
  });
});

describe('POST /oauth/token: bad requests', () => {
  const INVALID_REQUEST = { error: 'invalid_request', error_description: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.' };

  it.each([
    ['a wrong client secret', (id: string) => ({ grant_type: 'client_credentials', client_id: id, client_secret: 'wrong' }), 401, INVALID_CLIENT],
    ['an unknown client', () => ({ grant_type: 'client_credentials', client_id: 'unknown', client_secret: 'wrong' }), 401, INVALID_CLIENT],
    ['no client credentials', () => ({ grant_type: 'client_credentials' }), 401, INVALID_CLIENT],
    ['a client id without its secret', (id: string) => ({ grant_type: 'client_credentials', client_id: id }), 401, INVALID_CLIENT],
    ['no grant type', (id: string, secret: string) => ({ client_id: id, client_secret: secret }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: grant_type.' }],
    ['an unknown grant type', (id: string, secret: string) => ({ grant_type: 'refresh_token', client_id: id, client_secret: secret }), 400, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' }],
    ['the implicit grant', (id: string, secret: string) => ({ grant_type: 'implicit', client_id: id, client_secret: secret }), 400, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' }],
    ['an oversized code', (id: string, secret: string) => ({ grant_type: 'authorization_code', client_id: id, client_secret: secret, code: 'x'.repeat(5000), redirect_uri: 'https://client.example/callback' }), 400, INVALID_REQUEST],
    ['an oversized scope', (id: string, secret: string) => ({ grant_type: 'client_credentials', client_id: id, client_secret: secret, scope: 'read '.repeat(500) }), 400, INVALID_REQUEST],
  ])('answers %s in the OAuth error shape', async (_name, build, status, body) => {
    const { clientId, clientSecret } = await aClient();
    const res = await post(build(clientId, clientSecret));
    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('challenges a failed client authentication without triggering a browser password prompt', async () => {
    const { clientId } = await aClient();
    const res = await call(token, {
      method: 'POST', path: '/oauth/token', form: { grant_type: 'client_credentials' },
      headers: { authorization: basic(clientId, 'wrong') },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_client"/);
  });

  it.each([
    ['wrong types', { grant_type: 'password', client_id: 42, client_secret: ['a'], username: { a: 1 } }],
    ['a nested grant type', { grant_type: ['client_credentials'] }],
  ])('answers %s with invalid_request', async (_name, json) => {
    const res = await call(token, { method: 'POST', path: '/oauth/token', json });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_REQUEST);
  });

  it.each([
    ['malformed JSON', { data: '{"grant_type":', contentType: 'application/json' }, 400],
    ['a JSON array', { data: '[1,2]', contentType: 'application/json' }, 400],
    ['an unsupported content type', { data: 'grant_type=password', contentType: 'text/plain' }, 415],
  ])('answers %s with a 4xx error', async (_name, body, status) => {
    const res = await call(token, { method: 'POST', path: '/oauth/token', body });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});
