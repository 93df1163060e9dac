import { handler as create } from '../../functions/apps/create';
import { handler as verify } from '../../functions/apps/verify_credentials';
import { call } from '../support/http';
import { anAppToken, aUser } from '../support/factories';

// This file registers many applications from one address; the registration limit itself is tested in ratelimit-*.test.ts.
process.env.RATE_LIMIT_FACTOR = '100';

const post = (form: Record<string, string | string[]>) => call(create, { method: 'POST', path: '/api/v1/apps', form });

describe('POST /api/v1/apps', () => {
  it('registers an application and returns its client credentials', async () => {
    const res = await post({ client_name: 'Tusky', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write push', website: 'https://tusky.app' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Tusky', website: 'https://tusky.app', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', scopes: ['read', 'write', 'push'] });
    expect(res.body.id).toMatch(/^\d+$/);
    expect(res.body.client_id).toHaveLength(43);
    expect(res.body.client_secret).toHaveLength(43);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('accepts JSON bodies and defaults the scope to read', async () => {
    const res = await call(create, { method: 'POST', path: '/api/v1/apps', json: { client_name: 'Elk', redirect_uris: 'https://elk.zone/callback' } });
    expect(res.status).toBe(200);
    expect(res.body.scopes).toEqual(['read']);
    expect(res.body.website).toBeNull();
  });

  it.each([
    ['missing name', { redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }, /client_name can't be blank/],
    ['blank name', { client_name: '  ', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }, /client_name/],
    ['oversized name', { client_name: 'x'.repeat(61), redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }, /too long/],
    ['missing redirect', { client_name: 'a' }, /redirect_uris/],
    ['relative redirect', { client_name: 'a', redirect_uris: '/callback' }, /redirect_uris/],
    ['redirect with fragment', { client_name: 'a', redirect_uris: 'https://a.example/cb#x' }, /redirect_uris/],
    ['unknown scope', { client_name: 'a', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read admin:everything' }, /scopes are invalid/],
    ['bad website', { client_name: 'a', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', website: 'javascript:alert(1)' }, /website/],
  ])('rejects %s with 422', async (_name, form, message) => {
    const res = await post(form as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
  });

  it('rejects malformed JSON with 400 and wrong types with 422', async () => {
    const bad = await call(create, { method: 'POST', path: '/api/v1/apps', body: { data: '{"client_name":', contentType: 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: expect.any(String) });
    const wrong = await call(create, { method: 'POST', path: '/api/v1/apps', json: { client_name: 42, redirect_uris: ['urn:ietf:wg:oauth:2.0:oob'] } });
    expect(wrong.status).toBe(422);
  });
});

describe('GET /api/v1/apps/verify_credentials', () => {
  it('answers the application of an app token, without its secret', async () => {
    const { token } = await anAppToken(['read']);
    const res = await call(verify, { path: '/api/v1/apps/verify_credentials', token });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Test app');
    expect(res.body).not.toHaveProperty('client_secret');
  });

  it('answers for a user token too', async () => {
    const { token } = await aUser();
    const res = await call(verify, { path: '/api/v1/apps/verify_credentials', token });
    expect(res.status).toBe(200);
  });

  it.each([
    ['no token', undefined],
    ['an unknown token', 'nope'],
  ])('answers 401 for %s', async (_n, token) => {
    const res = await call(verify, { path: '/api/v1/apps/verify_credentials', token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'The access token is invalid' });
  });
});
