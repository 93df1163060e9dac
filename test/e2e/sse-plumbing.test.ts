// Response streaming on the local stack as `npm start` runs it: the functions in
// RESPONSE_STREAM mode answer on the HTTP API's port through the front server
// (infra/local/stream-offline.cjs), and every other route still reaches serverless
// offline there. What the streams carry is test/e2e/streaming.test.ts's business;
// the wrapper and the front server are also tested on their own in
// test/integration/http-stream.test.ts.
import { useStack } from '../support/stack';

const stack = useStack();

describe('server-sent events plumbing on the local stack', () => {
  it('answers GET /api/v1/streaming/health with OK as text/plain, streamed, and the CORS header', async () => {
    const res = await fetch(`${stack().baseUrl}/api/v1/streaming/health`, { headers: { origin: 'https://client.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    // No length announced: the body went out as chunks, as the handler wrote it.
    expect(res.headers.get('content-length')).toBeNull();
    expect(await res.text()).toBe('OK');
  });

  it('answers health for many clients at once (one worker serves concurrent invocations)', async () => {
    const bodies = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const res = await fetch(`${stack().baseUrl}/api/v1/streaming/health?access_token=ignored`);
        return `${res.status} ${await res.text()}`;
      }),
    );
    expect(bodies).toEqual(Array.from({ length: 12 }, () => '200 OK'));
  });

  it('streams GET /api/v1/streaming/public: its first bytes arrive while the response stays open', async () => {
    const client = new AbortController();
    try {
      const res = await fetch(`${stack().baseUrl}/api/v1/streaming/public`, { signal: client.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      // The response lasts minutes (until the client leaves): bytes read now were sent as a stream.
      const first = await res.body!.getReader().read();
      expect(first.done).toBe(false);
      expect(Buffer.from(first.value!).toString('utf8')).toMatch(/^:\)\n/);
    } finally {
      client.abort();
    }
  });

  it('answers a streamed endpoint\'s error before its first byte as the API\'s JSON', async () => {
    const res = await fetch(`${stack().baseUrl}/api/v1/streaming/user`, { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'The access token is invalid' });
  });

  it('passes every other request to the HTTP API on the same port, bodies and errors included', async () => {
    const app = await fetch(`${stack().baseUrl}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_name: 'sse plumbing', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }),
    });
    expect(app.status).toBe(200);
    expect(await app.json()).toMatchObject({ name: 'sse plumbing', scopes: ['read'] });

    const unauthorized = await fetch(`${stack().baseUrl}/api/v1/accounts/verify_credentials`, { headers: { authorization: 'Bearer nope' } });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({ error: 'The access token is invalid' });

    // A method the streamed function does not list is the HTTP API's to answer: its catch-all 404.
    const post = await fetch(`${stack().baseUrl}/api/v1/streaming/health`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(await post.json()).toEqual({ error: 'Not found' });
  });
});
