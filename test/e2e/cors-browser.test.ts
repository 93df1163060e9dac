// A web client on another origin (as Elk or Phanpy is, on its own host) calling the
// local stack from a real browser: Debian's Chromium, driven by playwright-core,
// opens a page served from a second origin and makes the calls such a client makes,
// with `fetch`. Every call that sends `Authorization`, `Idempotency-Key` or a JSON
// `Content-Type` is preflighted by the browser, and a refused preflight or a missing
// `Access-Control-Allow-Origin` surfaces in the page only as a failed fetch, never
// as a response: each test asserts the page got the data.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { freePort } from '../../infra/local/emulators';
import { useStack } from '../support/stack';


const stack = useStack();
let browser: Browser;
let site: Server;
let siteOrigin: string;
let page: Page;

/** The registration the page makes; the tests after the first use its tokens. */
let app: { client_id: string; client_secret: string };
let userToken: string;
let username: string;

beforeAll(async () => {
  // The web client's own origin: same host, another port, so every API call is cross-origin.
  const port = await freePort();
  siteOrigin = `http://127.0.0.1:${port}`;
  site = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>web client</title><p>client</p>');
  });
  await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
  // Chromium follows the Fetch standard on Authorization here (test/support/browser.ts), so that
  // an answer with `Access-Control-Allow-Headers: *` fails as it does for Firefox users.
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`${siteOrigin}/`);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
}, 60_000);

type Got = { ok: true; status: number; body: unknown; headers: Record<string, string | null> } | { ok: false; error: string };

/**
 * `fetch(base + path, init)` from the page; `read` names response headers to read
 * from JavaScript (only the CORS-safelisted ones and those the server exposes are visible).
 */
async function fromPage(path: string, init: { method?: string; headers?: Record<string, string>; json?: unknown } = {}, read: string[] = []): Promise<Got> {
  return page.evaluate(
    async ({ url, method, headers, json, read }) => {
      try {
        const res = await fetch(url, {
          method,
          headers: { ...headers, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: json === undefined ? undefined : JSON.stringify(json),
        });
        const text = await res.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text
        }
        return { ok: true as const, status: res.status, body, headers: Object.fromEntries(read.map((h) => [h, res.headers.get(h)])) };
      } catch (err) {
        // What a CORS failure looks like to a page: a TypeError, no response at all.
        return { ok: false as const, error: String(err) };
      }
    },
    { url: `${stack().baseUrl}${path}`, method: init.method ?? 'GET', headers: init.headers ?? {}, json: init.json, read },
  );
}

function answered(got: Got): Extract<Got, { ok: true }> {
  if (!got.ok) throw new Error(`the page got no response (CORS refused?): ${got.error}`);
  return got;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('a web client on another origin, in Chromium', () => {
  it('registers an app, gets a token and signs up with JSON bodies (preflighted), reading each answer', async () => {
    const created = answered(await fromPage('/api/v1/apps', {
      method: 'POST',
      json: { client_name: 'Cross-origin web client', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' },
    }));
    expect(created.status).toBe(200);
    app = created.body as typeof app;
    expect(app.client_id).toEqual(expect.any(String));

    const token = answered(await fromPage('/oauth/token', {
      method: 'POST',
      json: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', scope: 'read write' },
    }));
    expect(token.status).toBe(200);
    const appToken = (token.body as { access_token: string }).access_token;

    username = `cors${Date.now().toString(36)}`;
    const signup = answered(await fromPage('/api/v1/accounts', {
      method: 'POST',
      headers: bearer(appToken),
      json: { username, email: `${username}@example.com`, password: 'cross origin passphrase 3', agreement: true, locale: 'en' },
    }));
    expect(signup.status).toBe(200);
    userToken = (signup.body as { access_token: string }).access_token;
    expect(userToken).toEqual(expect.any(String));
  });

  it('reads verify_credentials with the token in Authorization', async () => {
    const me = answered(await fromPage('/api/v1/accounts/verify_credentials', { headers: bearer(userToken) }));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username, acct: username });
  });

  it('posts a status as JSON with Authorization and Idempotency-Key; the same key gives the same status back', async () => {
    const post = () =>
      fromPage('/api/v1/statuses', { method: 'POST', headers: { ...bearer(userToken), 'Idempotency-Key': `key-${username}` }, json: { status: 'Hello from another origin' } });
    const first = answered(await post());
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ content: expect.stringContaining('Hello from another origin') });
    const again = answered(await post());
    expect((again.body as { id: string }).id).toBe((first.body as { id: string }).id);
  });

  it('reads the Link header of a timeline page, which it needs to page on', async () => {
    // The author's own home entry is written with the status: two statuses make two pages of one.
    answered(await fromPage('/api/v1/statuses', { method: 'POST', headers: bearer(userToken), json: { status: 'A second one' } }));
    const page1 = answered(await fromPage('/api/v1/timelines/home?limit=1', { headers: bearer(userToken) }, ['Link']));
    expect(page1.status).toBe(200);
    expect(page1.body).toHaveLength(1);
    expect(page1.headers.Link).toMatch(/<[^>]*max_id=\d+[^>]*>; rel="next"/);
  });

  it('reads the error body of a refused call: 401 for a bad token or client secret, 404 for an unknown path, 422 for bad input', async () => {
    const unauthorized = answered(await fromPage('/api/v1/accounts/verify_credentials', { headers: bearer('not-a-token') }));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toEqual({ error: expect.any(String) });

    const missing = answered(await fromPage('/api/v1/no/such/thing', { headers: bearer(userToken) }));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.any(String) });

    const invalid = answered(await fromPage('/api/v1/statuses', { method: 'POST', headers: bearer(userToken), json: { status: '' } }));
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({ error: expect.any(String) });

    const wrongSecret = answered(await fromPage('/oauth/token', {
      method: 'POST',
      json: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: 'wrong', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob' },
    }));
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body).toMatchObject({ error: expect.any(String) });
  });

  it('reads a server-sent-event stream through fetch with Authorization, and the error of a stream refused', async () => {
    const refused = answered(await fromPage('/api/v1/streaming/user', { headers: bearer('not-a-token') }));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: expect.any(String) });

    // The stream stays open: the page reads until the status it posts arrives as an `update`, then leaves.
    const got = await page.evaluate(
      async ({ base, token }) => {
        const leave = new AbortController();
        try {
          const res = await fetch(`${base}/api/v1/streaming/user`, { headers: { Authorization: `Bearer ${token}` }, signal: leave.signal });
          const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
          let text = '';
          const first = await reader.read();
          text += first.value ?? '';
          const posted = await fetch(`${base}/api/v1/statuses`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ status: 'Streamed across origins' }),
          });
          const { id } = (await posted.json()) as { id: string };
          while (!text.includes(`"id":"${id}"`)) {
            const { value, done } = await reader.read();
            if (done) break;
            text += value;
          }
          return { ok: true as const, status: res.status, type: res.headers.get('content-type'), id, text };
        } catch (err) {
          return { ok: false as const, error: String(err) };
        } finally {
          leave.abort();
        }
      },
      { base: stack().baseUrl, token: userToken },
    );
    if (!got.ok) throw new Error(`the page got no stream (CORS refused?): ${got.error}`);
    expect(got.status).toBe(200);
    expect(got.type).toBe('text/event-stream');
    expect(got.text).toMatch(/event: update\n/);
    expect(got.text).toContain(`"id":"${got.id}"`);
  }, 60_000);

  it('follows a stream with EventSource (the token in access_token) and receives an update', async () => {
    const got = await page.evaluate(
      async ({ base, token }) => {
        const source = new EventSource(`${base}/api/v1/streaming/user?access_token=${encodeURIComponent(token)}`);
        try {
          await new Promise<void>((resolve, reject) => {
            source.onopen = () => resolve();
            source.onerror = () => reject(new Error('EventSource failed to open'));
          });
          const update = new Promise<string>((resolve) => source.addEventListener('update', (e) => resolve(String((e as MessageEvent).data))));
          const posted = await fetch(`${base}/api/v1/statuses`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ status: 'Seen by EventSource' }),
          });
          const { id } = (await posted.json()) as { id: string };
          return { ok: true as const, id, data: await update };
        } catch (err) {
          return { ok: false as const, error: String(err) };
        } finally {
          source.close();
        }
      },
      { base: stack().baseUrl, token: userToken },
    );
    if (!got.ok) throw new Error(`the page got no stream: ${got.error}`);
    expect(JSON.parse(got.data)).toMatchObject({ id: got.id });
  }, 60_000);

  it('revokes its token with a JSON POST to /oauth/revoke, after which the token is refused', async () => {
    const revoked = answered(await fromPage('/oauth/revoke', {
      method: 'POST',
      json: { client_id: app.client_id, client_secret: app.client_secret, token: userToken },
    }));
    expect(revoked.status).toBe(200);
    const after = answered(await fromPage('/api/v1/accounts/verify_credentials', { headers: bearer(userToken) }));
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: expect.any(String) });
  });
});

/** A preflight as the browser sends it (fetch cannot send one itself). */
function preflight(path: string, method: string, headers: string) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
    const url = new URL(path, stack().baseUrl);
    const req = request({
      host: url.hostname,
      port: url.port,
      method: 'OPTIONS',
      path: url.pathname + url.search,
      headers: { Origin: siteOrigin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const list = (value: string | string[] | undefined) => String(value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);

describe('preflight answers on the local stack (plain HTTP)', () => {
  it('names Authorization, Content-Type and Idempotency-Key explicitly (never `*`, which does not cover Authorization)', async () => {
    const res = await preflight('/api/v1/statuses', 'POST', 'authorization,content-type,idempotency-key');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const allowed = list(res.headers['access-control-allow-headers']);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'last-event-id']));
    expect(allowed).not.toContain('*');
    expect(list(res.headers['access-control-allow-methods'])).toEqual(expect.arrayContaining(['get', 'post', 'put', 'patch', 'delete']));
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
  });

  it('answers a stream\'s preflight exactly as an API route\'s', async () => {
    const api = await preflight('/api/v1/timelines/home', 'GET', 'authorization');
    const stream = await preflight('/api/v1/streaming/user', 'GET', 'authorization,last-event-id');
    const cors = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h).filter(([k]) => k.startsWith('access-control-')));
    expect(stream.status).toBe(204);
    expect(cors(stream.headers)).toEqual(cors(api.headers));
  });

  it('exposes on responses, streams included, the headers the preflight configuration names', async () => {
    const configured = list((await preflight('/api/v1/statuses', 'GET', 'authorization')).headers['access-control-expose-headers']);
    expect(configured).toEqual(expect.arrayContaining(['link', 'x-ratelimit-remaining']));
    const stream = await fetch(`${stack().baseUrl}/api/v1/streaming/health`, { headers: { Origin: siteOrigin } });
    await stream.text();
    expect(stream.headers.get('access-control-allow-origin')).toBe('*');
    expect(new Set(list(stream.headers.get('access-control-expose-headers') ?? ''))).toEqual(new Set(configured));
  });
});
