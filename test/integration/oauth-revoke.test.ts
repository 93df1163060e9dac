import { handler as verify } from '../../functions/apps/verify_credentials';
import { handler as revoke } from '../../functions/oauth/revoke';
import { handler as token } from '../../functions/oauth/token';
import { call, type Call } from '../support/http';
import { anApp } from '../support/factories';

const REFUSED = { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' };

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const post = (form: Record<string, string>, extra: Partial<Call> = {}) =>
  call(revoke, { method: 'POST', path: '/oauth/revoke', form, ...extra });

let lastOctet = 0;

/** An application and an app token it obtained through the token endpoint (from an address of its own: grants are throttled per address). */
async function aClientWithToken() {
  const { app, clientSecret } = await anApp();
  const res = await call(token, {
    method: 'POST', path: '/oauth/token', sourceIp: `198.51.100.${++lastOctet}`,
    form: { grant_type: 'client_credentials', client_id: app.clientId, client_secret: clientSecret },
  });
  expect(res.status).toBe(200);
  return { clientId: app.clientId, clientSecret, accessToken: String(res.body.access_token) };
}

const works = async (accessToken: string) =>
  (await call(verify, { path: '/api/v1/apps/verify_credentials', token: accessToken })).status;

describe('POST /oauth/revoke', () => {
  it('revokes a token of the client, which then answers 401 on the API', async () => {
    const { clientId, clientSecret, accessToken } = await aClientWithToken();
    expect(await works(accessToken)).toBe(200);
    const res = await post({ client_id: clientId, client_secret: clientSecret, token: accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const after = await call(verify, { path: '/api/v1/apps/verify_credentials', token: accessToken });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'The access token is invalid' });
  });

  it('accepts HTTP Basic client authentication and a JSON body', async () => {
    const { clientId, clientSecret, accessToken } = await aClientWithToken();
    const res = await call(revoke, { method: 'POST', path: '/oauth/revoke', json: { token: accessToken }, headers: { authorization: basic(clientId, clientSecret) } });
    expect(res.status).toBe(200);
    expect(await works(accessToken)).toBe(401);
  });

  it.each([
    ['an unknown token', 'not-a-token'],
    ['an empty token', ''],
    ['an oversized token', 'x'.repeat(5000)],
  ])('answers {} for %s', async (_name, value) => {
    const { clientId, clientSecret, accessToken } = await aClientWithToken();
    const res = await post({ client_id: clientId, client_secret: clientSecret, token: value });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await works(accessToken)).toBe(200);
  });

  it('answers {} when the token was already revoked', async () => {
    const { clientId, clientSecret, accessToken } = await aClientWithToken();
    await post({ client_id: clientId, client_secret: clientSecret, token: accessToken });
    const again = await post({ client_id: clientId, client_secret: clientSecret, token: accessToken });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
  });

  it('answers {} without a token parameter', async () => {
    const { clientId, clientSecret } = await aClientWithToken();
    const res = await post({ client_id: clientId, client_secret: clientSecret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it("refuses to revoke another client's token and leaves it working", async () => {
    const owner = await aClientWithToken();
    const other = await aClientWithToken();
    const res = await post({ client_id: other.clientId, client_secret: other.clientSecret, token: owner.accessToken });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(REFUSED);
    expect(await works(owner.accessToken)).toBe(200);
  });

  it.each([
    ['a wrong client secret', (c: { clientId: string }) => ({ client_id: c.clientId, client_secret: 'wrong' })],
    ['an unknown client', () => ({ client_id: 'unknown', client_secret: 'wrong' })],
    ['no client credentials', () => ({})],
    ['a client id without secret', (c: { clientId: string }) => ({ client_id: c.clientId })],
  ])('refuses %s with 403 unauthorized_client and leaves the token working', async (_name, creds) => {
    const owner = await aClientWithToken();
    const res = await post({ ...creds(owner), token: owner.accessToken });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(REFUSED);
    expect(await works(owner.accessToken)).toBe(200);
  });

  it.each([
    ['malformed JSON', (t: string) => ({ body: { data: `{"token":"${t}"`, contentType: 'application/json' } }), 400],
    ['wrong types', (t: string) => ({ json: { client_id: 1, client_secret: ['x'], token: t } }), 403],
    ['a token as an array', (t: string) => ({ json: { token: [t] } }), 403],
  ])('answers %s with a 4xx error and revokes nothing', async (_name, request, status) => {
    const owner = await aClientWithToken();
    const res = await call(revoke, { method: 'POST', path: '/oauth/revoke', ...request(owner.accessToken) });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String), ...(status === 403 ? { error_description: expect.any(String) } : {}) });
    expect(await works(owner.accessToken)).toBe(200);
  });

  it('revokes nothing for a token sent as an array by its own client', async () => {
    const owner = await aClientWithToken();
    const res = await call(revoke, { method: 'POST', path: '/oauth/revoke', json: { token: [owner.accessToken] }, headers: { authorization: basic(owner.clientId, owner.clientSecret) } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await works(owner.accessToken)).toBe(200);
  });
});
