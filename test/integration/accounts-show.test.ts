// GET /api/v1/accounts/:id and GET /api/v1/accounts/lookup.
import { handler as lookup } from '../../functions/accounts/lookup';
import { handler as show } from '../../functions/accounts/show';
import { updateAccount } from '../../lib/db/accounts';
import { call } from '../support/http';
import { anAppToken, aUser } from '../support/factories';

const get = (id: string, token?: string) => call(show, { path: `/api/v1/accounts/${id}`, pathParameters: { id }, token });
const find = (acct: string | Record<string, string> | undefined, token?: string) =>
  call(lookup, { path: '/api/v1/accounts/lookup', query: acct === undefined ? undefined : typeof acct === 'string' ? { acct } : acct, token });

describe('GET /api/v1/accounts/:id', () => {
  it('answers the account without a token, without source or login state', async () => {
    const { account } = await aUser();
    await updateAccount(account.id, { displayName: 'Shown', followersCount: 2 });
    const res = await get(account.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: account.id, username: account.username, acct: account.username, display_name: 'Shown', followers_count: 2 });
    expect(res.body).not.toHaveProperty('source');
    expect(JSON.stringify(res.body)).not.toMatch(/email|password|argon/i);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers with a token holding read:accounts', async () => {
    const { account } = await aUser();
    const { token } = await aUser({ scopes: ['read:accounts'] });
    expect((await get(account.id, token)).status).toBe(200);
  });

  it('shows a disabled account (login state is not profile state)', async () => {
    const { account } = await aUser();
    await updateAccount(account.id, { disabled: true });
    expect((await get(account.id)).status).toBe(200);
  });

  it.each([
    ['a non-numeric id', () => 'abc'],
    ['an id with SQL', () => "1' OR '1'='1"],
    ['an overlong id', () => '9'.repeat(40)],
    ['an unknown id', () => '123456789012345'],
  ])('answers 404 for %s', async (_name, id) => {
    const res = await get(id());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it.each([
    ['pending approval', { approved: false }],
    ['unconfirmed', { confirmed: false }],
  ])('answers 404 for an account %s', async (_name, opts) => {
    const { account } = await aUser(opts);
    const res = await get(account.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it('answers 401 for an invalid token and 403 for one without read:accounts', async () => {
    const { account } = await aUser();
    expect((await get(account.id, 'bogus')).status).toBe(401);
    const { token } = await anAppToken(['write']);
    const res = await get(account.id, token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
  });
});

describe('GET /api/v1/accounts/lookup', () => {
  it.each([
    ['the username', (u: string) => u],
    ['the username in another case', (u: string) => u.toUpperCase()],
    ['@username', (u: string) => `@${u}`],
    ['username@our domain', (u: string) => `${u}@social.example`],
    ['username@OUR DOMAIN', (u: string) => `${u}@SOCIAL.EXAMPLE`],
  ])('finds a local account by %s', async (_name, form) => {
    const { account } = await aUser();
    const res = await find(form(account.username));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: account.id, username: account.username, acct: account.username });
  });

  it.each([
    ['no acct', undefined],
    ['an empty acct', ''],
    ['an unknown user', 'nobody_here_at_all'],
    ['a remote account', 'someone@elsewhere.example'],
    ['two @ signs', 'a@b@social.example'],
    ['an oversized name', 'x'.repeat(300)],
    ['a name with a slash', '../../etc'],
  ])('answers 404 for %s', async (_name, acct) => {
    const res = await find(acct);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it('answers 404 for a pending account', async () => {
    const { account } = await aUser({ approved: false });
    expect((await find(account.username)).status).toBe(404);
  });

  it('answers 422 for an acct that is not a string', async () => {
    const res = await find({ 'acct[]': 'a' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('answers 401 for an invalid token', async () => {
    const { account } = await aUser();
    expect((await find(account.username, 'bogus')).status).toBe(401);
  });
});
