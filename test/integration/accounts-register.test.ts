// POST /api/v1/accounts: registration through an app token, with the instance's modes.
import { z } from 'zod';
import { handler as register } from '../../functions/accounts/create';
import { handler as show } from '../../functions/accounts/show';
import { handler as verify } from '../../functions/accounts/verify_credentials';
import { registerAccount } from '../../lib/accounts/register';
import { accountByEmail, accountByUsername, pendingAccounts } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import * as keys from '../../lib/db/keys';
import { getItem } from '../../lib/db/table';
import { verifyPassword } from '../../lib/password';
import { call } from '../support/http';
import { anApp, anAppToken, aUser } from '../support/factories';
import { issueAccessToken } from '../../lib/tokens';

// This file signs up dozens of accounts from one address; the sign-up limit itself is tested in ratelimit-*.test.ts.
process.env.RATE_LIMIT_FACTOR = '100';

let seq = 0;
const fresh = () => {
  seq += 1;
  const name = `reg_${Date.now().toString(36)}_${seq}`;
  return { username: name, email: `${name}@example.com`, password: 'hunter2hunter2', agreement: true, locale: 'en' };
};

const userCount = async () => (await getItem(keys.instanceStats(), z.object({ userCount: z.number() }).passthrough(), true))?.userCount ?? 0;

let appToken: string;
beforeAll(async () => {
  // Outside the local stage confirmation is on by default; this file tests the other rules.
  await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
  ({ token: appToken } = await anAppToken(['read', 'write', 'follow', 'push']));
});
afterEach(async () => {
  await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
});

const post = (body: unknown, token: string | undefined = appToken) =>
  call(register, { method: 'POST', path: '/api/v1/accounts', json: body, token });

describe('POST /api/v1/accounts', () => {
  it('creates a usable account and answers a token with the application scopes', async () => {
    const before = await userCount();
    const input = fresh();
    const res = await post(input);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', scope: 'read write follow push', created_at: expect.any(Number) });
    expect(Math.abs(res.body.created_at - Date.now() / 1000)).toBeLessThan(60);

    const me = await call(verify, { path: '/api/v1/accounts/verify_credentials', token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: input.username, acct: input.username, display_name: '', locked: false, note: '' });
    expect(me.body).not.toHaveProperty('email');

    const stored = await accountByUsername(input.username);
    expect(stored?.email).toBe(input.email);
    expect(stored?.locale).toBe('en');
    expect(stored?.confirmedAt).not.toBeNull();
    expect(await verifyPassword(stored?.passwordHash ?? '', input.password)).toBe(true);
    expect(await userCount()).toBe(before + 1);
  });

  it('issues the scopes the application registered, not the narrower scope of the app token', async () => {
    const { app } = await anApp({ scopes: 'read write' });
    const { raw } = await issueAccessToken(app, null, ['write:accounts']);
    const res = await post(fresh(), raw);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read write');
  });

  it('accepts form-encoded input with agreement as the string "1" and keeps the username case', async () => {
    const input = fresh();
    const res = await call(register, {
      method: 'POST',
      path: '/api/v1/accounts',
      form: { username: input.username.toUpperCase(), email: input.email.toUpperCase(), password: input.password, agreement: '1' },
      token: appToken,
    });
    expect(res.status).toBe(200);
    const stored = await accountByEmail(input.email);
    expect(stored?.username).toBe(input.username.toUpperCase());
    expect(stored?.email).toBe(input.email);
  });

  it('refuses a username or e-mail already taken, whatever the case, naming both', async () => {
    const { account } = await aUser();
    const res = await post({ ...fresh(), username: account.username.toUpperCase(), email: (account.email ?? '').toUpperCase() });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: Username has already been taken, E-mail address has already been taken');
    expect(res.body.details).toEqual({
      username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }],
      email: [{ error: 'ERR_TAKEN', description: 'has already been taken' }],
    });
  });

  const rules: [string, Record<string, unknown>, string, string, string][] = [
    ['a blank username', { username: '' }, 'username', 'ERR_BLANK', "Username can't be blank"],
    ['a missing username', { username: undefined }, 'username', 'ERR_BLANK', "Username can't be blank"],
    ['a username of 31 characters', { username: 'a'.repeat(31) }, 'username', 'ERR_TOO_LONG', 'Username is too long (maximum is 30 characters)'],
    ['a username with a space', { username: 'two words' }, 'username', 'ERR_INVALID', 'Username must contain only'],
    ['a username ending in a dot', { username: 'trailing.' }, 'username', 'ERR_INVALID', 'Username must contain only'],
    ['a username starting with a dash', { username: '-lead' }, 'username', 'ERR_INVALID', 'Username must contain only'],
    ['a username with HTML', { username: '<b>x</b>' }, 'username', 'ERR_INVALID', 'Username must contain only'],
    ['a reserved username', { username: 'Admin' }, 'username', 'ERR_RESERVED', 'Username is reserved'],
    ["the instance's own domain as username", { username: 'social.example' }, 'username', 'ERR_RESERVED', 'Username is reserved'],
    ['an e-mail without @', { email: 'nobody.example.com' }, 'email', 'ERR_INVALID', 'E-mail address is invalid'],
    ['an e-mail with spaces', { email: 'a b@example.com' }, 'email', 'ERR_INVALID', 'E-mail address is invalid'],
    ['an oversized e-mail', { email: `${'a'.repeat(250)}@example.com` }, 'email', 'ERR_TOO_LONG', 'E-mail address is too long'],
    ['a blank password', { password: '' }, 'password', 'ERR_BLANK', "Password can't be blank"],
    ['a password of 7 characters', { password: 'short12' }, 'password', 'ERR_TOO_SHORT', 'Password is too short (minimum is 8 characters)'],
    ['a password of 73 characters', { password: 'p'.repeat(73) }, 'password', 'ERR_TOO_LONG', 'Password is too long (maximum is 72 characters)'],
    ['no agreement', { agreement: undefined }, 'agreement', 'ERR_ACCEPTED', 'Service agreement must be accepted'],
    ['agreement false', { agreement: false }, 'agreement', 'ERR_ACCEPTED', 'Service agreement must be accepted'],
    ['agreement "yes"', { agreement: 'yes' }, 'agreement', 'ERR_ACCEPTED', 'Service agreement must be accepted'],
    ['a reason of 1001 characters', { reason: 'r'.repeat(1001) }, 'reason', 'ERR_TOO_LONG', 'Reason is too long (maximum is 1000 characters)'],
  ];

  it.each(rules)('refuses %s with 422 and details, writing nothing', async (_name, change, attribute, code, message) => {
    const before = await userCount();
    const input = { ...fresh(), ...change };
    const res = await post(input);
    expect(res.status).toBe(422);
    expect(res.body.error).toContain(`Validation failed: ${message}`);
    expect(res.body.details[attribute]).toEqual([{ error: code, description: expect.any(String) }]);
    expect(Object.keys(res.body.details)).toEqual([attribute]);
    if (typeof input.username === 'string' && input.username !== '' && code !== 'ERR_RESERVED') {
      expect(await accountByUsername(input.username)).toBeUndefined();
    }
    expect(await userCount()).toBe(before);
  });

  it('refuses a blank e-mail as Mastodon: blank and invalid both', async () => {
    const before = await userCount();
    const res = await post({ ...fresh(), email: '' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Validation failed: E-mail address can't be blank, E-mail address is invalid");
    expect(res.body.details).toEqual({
      email: [
        { error: 'ERR_BLANK', description: "can't be blank" },
        { error: 'ERR_INVALID', description: 'is invalid' },
      ],
    });
    expect(await userCount()).toBe(before);
  });

  it.each([
    ['english!', null],
    ['xx-YY', null],
    ['pt-BR', 'pt-BR'],
    ['fr', 'fr'],
  ])('keeps the locale %s as %s: one it does not know is dropped, never refused (Mastodon normalizes it to nil)', async (locale, kept) => {
    const input = { ...fresh(), locale };
    const res = await post(input);
    expect(res.status).toBe(200);
    expect((await accountByUsername(input.username))?.locale).toBe(kept);
  });

  it('reports every broken rule at once', async () => {
    const res = await post({ username: 'bad name', email: 'nope', password: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(
      'Validation failed: Username must contain only letters, numbers, underscores, dots and dashes, E-mail address is invalid, Password is too short (minimum is 8 characters), Service agreement must be accepted',
    );
    expect(Object.keys(res.body.details)).toEqual(['username', 'email', 'password', 'agreement']);
  });

  it.each([
    ['malformed JSON', { body: { data: '{"username":', contentType: 'application/json' } }, 400],
    ['a non-string username', { json: { ...fresh(), username: 42 } }, 422],
    ['an array as password', { json: { ...fresh(), password: ['a', 'b'] } }, 422],
    ['an object as e-mail', { json: { ...fresh(), email: { x: 1 } } }, 422],
    ['an oversized reason', { json: { ...fresh(), reason: 'r'.repeat(20_000) } }, 422],
  ])('rejects %s with a 4xx error and writes nothing', async (_name, request, status) => {
    const before = await userCount();
    const res = await call(register, { method: 'POST', path: '/api/v1/accounts', token: appToken, ...request });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await userCount()).toBe(before);
  });

  it.each([
    ['no token', undefined, 401, 'The access token is invalid'],
    ['an unknown token', 'not-a-token', 401, 'The access token is invalid'],
  ])('answers %s with %i', async (_name, token, status, error) => {
    const res = await call(register, { method: 'POST', path: '/api/v1/accounts', json: fresh(), token });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
  });

  it('answers 403 to a token without write:accounts, creating nothing', async () => {
    const { token } = await anAppToken(['read']);
    const input = fresh();
    const res = await post(input, token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
    expect(await accountByUsername(input.username)).toBeUndefined();
  });

  it('answers 403 when registrations are closed, before looking at the input', async () => {
    await updateInstanceSettings({ registrationsMode: 'none' });
    const before = await userCount();
    const input = fresh();
    const res = await post(input);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is not allowed' });
    expect((await post({})).status).toBe(403);
    expect(await accountByUsername(input.username)).toBeUndefined();
    expect(await userCount()).toBe(before);
  });

  it('lets the operator register while registrations are closed', async () => {
    await updateInstanceSettings({ registrationsMode: 'none' });
    const input = fresh();
    const { account, token } = await registerAccount({ ...input, agreement: undefined }, { skipRules: true, admin: true });
    expect(token).toBeUndefined();
    expect(account).toMatchObject({ username: input.username, admin: true, approved: true });
  });

  it('in approval mode, issues a token that answers 403 until a moderator approves the account', async () => {
    await updateInstanceSettings({ registrationsMode: 'approved' });
    const input = { ...fresh(), reason: 'I would like to join because <reasons>' };
    const res = await post(input);
    expect(res.status).toBe(200);
    const me = await call(verify, { path: '/api/v1/accounts/verify_credentials', token: res.body.access_token });
    expect(me.status).toBe(403);
    expect(me.body).toEqual({ error: 'Your login is currently pending approval' });

    const stored = await accountByUsername(input.username);
    expect(stored).toMatchObject({ approved: false, reason: 'I would like to join because <reasons>' });
    expect((await pendingAccounts()).map((a) => a.id)).toContain(stored?.id);
    const profile = await call(show, { path: `/api/v1/accounts/${stored?.id}`, pathParameters: { id: stored?.id ?? '' } });
    expect(profile.status).toBe(404);
  });
});

describe('concurrent registrations', () => {
  it('lets exactly one of two simultaneous sign-ups for the same username through', async () => {
    const input = fresh();
    const [a, b] = await Promise.all([post(input), post({ ...input, email: `other_${input.email}` })]);
    expect([a.status, b.status].sort()).toEqual([200, 422]);
    const loser = a.status === 422 ? a : b;
    expect(loser.body.details).toEqual({ username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] });
  });
});
