// Headers every answer of the HTTP stack carries, and how it answers a record DynamoDB refuses as too large.
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as instance } from '../../functions/instance/show';
import { handler as notFound } from '../../functions/system/not_found';
import { putItem } from '../../lib/db/table';
import { http } from '../../lib/http';
import { call } from '../support/http';
import { aUser } from '../support/factories';

process.env.EXPOSE_METRICS = '1';

describe('response headers', () => {
  it('an authenticated API answer is not stored by caches and is not sniffed', async () => {
    const { token } = await aUser();
    const res = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('an error answer carries them too', async () => {
    const res = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: 'not-a-token' });
    expect(res.status).toBe(401);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const missing = await call(notFound, { path: '/nowhere' });
    expect(missing.status).toBe(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
  });

  it('an endpoint that may be cached keeps its own Cache-Control', async () => {
    const res = await call(instance, { path: '/api/v1/instance' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toMatch(/max-age/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('a record DynamoDB refuses as too large', () => {
  it('is answered 422 with an error, not 500, and counts no write', async () => {
    const oversized = http(async () => {
      await putItem({ PK: 'TEST#big', SK: 'TEST#big', blob: 'é'.repeat(300_000) });
      return { stored: true };
    }, { auth: 'public' });
    const res = await call(oversized, { method: 'POST', path: '/api/v1/test' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Validation failed: the record is too large' });
    expect(res.headers['x-db-writes']).toBe('0');
  });
});

describe('the write count of a request', () => {
  it('counts the writes that took effect', async () => {
    const writes = http(async () => {
      await putItem({ PK: 'TEST#one', SK: 'TEST#one' });
      await putItem({ PK: 'TEST#two', SK: 'TEST#two' });
      // Refused by its condition: writes nothing.
      await putItem({ PK: 'TEST#one', SK: 'TEST#one' }, { ifAbsent: true });
      return {};
    }, { auth: 'public' });
    // Outside /api, so that no request counter (lib/http/ratelimit.ts) adds its call.
    const res = await call(writes, { method: 'POST', path: '/test' });
    expect(res.status).toBe(200);
    expect(res.headers['x-db-writes']).toBe('2');
    expect(res.headers['x-db-calls']).toBe('3');
  });
});
