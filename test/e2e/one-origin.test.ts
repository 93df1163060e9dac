// One origin, as a deployed stage serves everything from its CloudFront distribution (infra/cdn.yml): the
// local stack's front does what the distribution does (infra/local/stream-front.ts), and the deploy's own
// smoke test (infra/deploy/smoke.ts) reaches the API, the WebSocket API, the server-sent events and the
// media through it, with a token from `npm run admin -- accounts token`, as the workflow runs it.
import { request } from 'node:http';
import { smoke } from '../../infra/deploy/smoke';
import { operator } from '../support/operator';
import { useStack } from '../support/stack';

const stack = useStack();

/** A raw HTTP/1.1 exchange with the origin: what came back first (status line and headers). */
function upgradeTo(path: string): Promise<number> {
  const origin = new URL(stack().baseUrl);
  return new Promise((done, fail) => {
    const req = request({
      host: origin.hostname,
      port: origin.port,
      path,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      done(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on('error', fail);
    req.end();
  });
}

describe('one origin for the API, the streams and the media', () => {
  it('passes the deploy\'s smoke test: instance compressed, a post on the WebSocket and the SSE stream, its media under /system/', async () => {
    const username = `smoke${Date.now().toString(36)}`;
    const created = await operator(stack(), 'accounts', 'create', username, '--email', `${username}@example.com`, '--confirmed');
    expect(created.code).toBe(0);
    const issued = await operator(stack(), 'accounts', 'token', username, '--scopes', 'read write');
    expect(issued.code).toBe(0);
    const token = issued.stdout.trim();
    expect(token).toMatch(/^[\w-]{20,}$/);
    const said: string[] = [];
    await smoke(stack().baseUrl, token, (line) => said.push(line));
    expect(said).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^instance .*answered \((br|gzip)\), streaming at ws:\/\//),
        expect.stringMatching(/^the WebSocket subscription received a post/),
        'the SSE stream received a post',
        expect.stringMatching(new RegExp(`^the attachment is served at ${stack().baseUrl}/system/media_attachments/`)),
      ]),
    );
    // The token works as any other and is refused once the operator's app is gone: it is a real token.
    const me = await fetch(`${stack().baseUrl}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { username: string }).username).toBe(username);
  }, 120_000);

  it('opens the WebSocket API at /api/v1/streaming only', async () => {
    expect(await upgradeTo('/api/v1/streaming?stream=public')).toBe(101);
    expect(await upgradeTo('/api/v1/somewhere')).toBe(404);
    expect(await upgradeTo('/system/x')).toBe(404);
  });

  it('serves no bucket object outside the media: nothing under federation/, no dot segments, no listing', async () => {
    for (const path of ['/system/federation/inbox/x.json', '/system/', '/system/media_attachments/../federation/inbox/x.json', '/system/%2e%2e/federation/x']) {
      const res = await fetch(`${stack().baseUrl}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
    }
    const post = await fetch(`${stack().baseUrl}/system/media_attachments/x.png`, { method: 'DELETE' });
    expect(post.status).toBe(405);
  });
});
