// A browser web client against the local stack (issue 14's "Done when"): headless Chromium (Debian's,
// driven by playwright-core) opens a page on ANOTHER origin whose script is masto bundled with esbuild
// for the browser (test/e2e/web-client/client.ts, built at test time). It signs in through our OAuth
// page (authorization code, PKCE S256, the login form, Authorize), then reads home, posts and edits,
// follows a hashtag, reads explore (trends) and notifications v1 and v2. Every cross-origin call is
// preflighted, so a missing CORS header or a refused method shows up here as a failed request: the test
// fails on any failed request, any answer of 400 or more, and any console error or page error.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { freePort } from '../../infra/local/emulators';
import { eventually, newUser } from '../support/masto';
import { useStack } from '../support/stack';
import type { WebClient } from './web-client/client';

const here = dirname(fileURLToPath(import.meta.url));

// Three people sign up from 127.0.0.1, each with an app, besides the page's own app registration.
const stack = useStack({ env: { RATE_LIMIT_FACTOR: '10' } });

let browser: Browser;
let site: Server;
let siteOrigin: string;
let bundleDir: string;
let page: Page;

/** What went wrong in the page, as the browser saw it. */
const problems: string[] = [];
/** The server's answers to the page's script (`GET /api/v1/trends/links 200`), to show which calls a step made. */
const answered: string[] = [];

const INDEX = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tiny web client</title>'
  + '<link rel="icon" href="data:,"><script src="/client.js"></script></head><body><main id="app">web client</main></body></html>';

/** Calls one step of the page's client (globalThis.webClient) and answers what it answered. */
async function inPage<K extends keyof WebClient>(step: K, ...args: Parameters<WebClient[K]>): Promise<Awaited<ReturnType<WebClient[K]>>> {
  return page.evaluate(
    ({ step, args }) => (globalThis as unknown as { webClient: Record<string, (...a: unknown[]) => Promise<unknown>> }).webClient[step]!(...args),
    { step, args: args as unknown[] },
  ) as Promise<Awaited<ReturnType<WebClient[K]>>>;
}

beforeAll(async () => {
  // masto for the browser, as a web client ships it: one script, no Node built-ins.
  bundleDir = mkdtempSync(join(tmpdir(), 'tootless-web-client-'));
  await build({
    entryPoints: [resolve(here, 'web-client/client.ts')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    outfile: join(bundleDir, 'client.js'),
    logLevel: 'silent',
  });
  const script = readFileSync(join(bundleDir, 'client.js'));

  // The web client's own origin: same host, another port, so every API call is cross-origin.
  const port = await freePort();
  siteOrigin = `http://127.0.0.1:${port}`;
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', siteOrigin).pathname;
    if (path === '/client.js') res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(script);
    else if (path === '/' || path === '/callback') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(INDEX);
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((done) => site.listen(port, '127.0.0.1', done));

  browser = await launchChromium();
  page = await browser.newPage();
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`answer ${response.status()}: ${response.request().method()} ${response.url()}`);
    const url = new URL(response.url());
    if (url.origin === stack().baseUrl) answered.push(`${response.request().method()} ${url.pathname} ${response.status()}`);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location().url;
    // Nothing is let through: our OAuth pages name an empty icon, so the browser asks for no /favicon.ico.
    problems.push(`console error: ${message.text()} (${where})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((done) => (site ? site.close(() => done()) : done()));
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
}, 60_000);

afterEach(() => {
  // Each step ends with nothing failed in the page; a problem is reported by the step that caused it.
  const seen = problems.splice(0);
  expect(seen).toEqual([]);
});

const email = `webclient${Date.now().toString(36)}@example.com`;
const password = 'web client passphrase 4';
const username = email.split('@')[0]!;

describe('a browser web client on another origin, with masto bundled by esbuild', () => {
  let posted: { id: string };

  it('signs in through the OAuth page with PKCE and reads home', async () => {
    // The person has an account already (signing up is not the client's job here): made through an app token.
    const anon = createRestAPIClient({ url: stack().baseUrl });
    const app = await anon.v1.apps.create({ clientName: 'sign-up desk', redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'write:accounts' });
    const appToken = await createOAuthAPIClient({ url: stack().baseUrl }).token.create({
      grantType: 'client_credentials', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: 'urn:ietf:wg:oauth:2.0:oob', scope: 'write:accounts',
    });
    await createRestAPIClient({ url: stack().baseUrl, accessToken: appToken.accessToken }).v1.accounts.create({ username, email, password, agreement: true, locale: 'en' });

    await page.goto(`${siteOrigin}/`);
    const authorize = await inPage('signIn', stack().baseUrl);
    expect(new URL(authorize).searchParams.get('code_challenge_method')).toBe('S256');
    await page.goto(authorize);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', password);
    await Promise.all([page.waitForLoadState('load'), page.locator('form button[type="submit"], form input[type="submit"]').first().click()]);
    await Promise.all([page.waitForURL(`${siteOrigin}/callback?**`), page.getByRole('button', { name: 'Authorize' }).click()]);
    await page.waitForFunction(() => 'webClient' in globalThis);

    const signedIn = await inPage('finishSignIn');
    expect(signedIn).toEqual({ acct: username, scope: 'read write follow' });
    const { version, streaming, home } = await inPage('home');
    expect(version).toMatch(/^4\./);
    expect(streaming).toBe(stack().wsUrl);
    expect(home).toEqual([]);
  }, 180_000);

  it('posts, edits the post and reads its history', async () => {
    const first = await inPage('post', 'written in a browser, first version');
    expect(first.content).toContain('first version');
    posted = first;
    const { source, edited, history } = await inPage('edit', first.id, 'written in a browser, second version');
    expect(source).toMatchObject({ id: first.id, text: 'written in a browser, first version' });
    expect(edited).toMatchObject({ id: first.id, editedAt: expect.any(String) });
    expect(edited.content).toContain('second version');
    expect(history.map((v) => v.content)).toEqual([expect.stringContaining('first version'), expect.stringContaining('second version')]);
    const { home } = await inPage('home');
    expect(home.find((s) => s.id === first.id)?.content).toContain('second version');
  }, 120_000);

  it('follows a hashtag and finds it among the followed ones', async () => {
    const name = `harbourlights${Date.now().toString(36)}`;
    const { tag, followed } = await inPage('followTag', name);
    expect(tag).toMatchObject({ name, following: true });
    expect(followed.map((t) => t.name)).toContain(name);
  }, 120_000);

  it('reads explore: trending tags, statuses and links together', async () => {
    answered.length = 0;
    const { tags, statuses, links } = await inPage('explore');
    expect(Array.isArray(tags)).toBe(true);
    expect(Array.isArray(statuses)).toBe(true);
    expect(Array.isArray(links)).toBe(true);
    // Each answered the page itself, cross-origin.
    expect(answered).toEqual(expect.arrayContaining(['GET /api/v1/trends/tags 200', 'GET /api/v1/trends/statuses 200', 'GET /api/v1/trends/links 200']));
  }, 120_000);

  it('reads notifications, v1 and grouped v2, after two people favourite the post', async () => {
    const [one, two] = [await newUser(stack().baseUrl, 'likes1'), await newUser(stack().baseUrl, 'likes2')];
    await one.client.v1.statuses.$select(posted.id).favourite();
    await two.client.v1.statuses.$select(posted.id).favourite();
    // masto 7's union type leaves `favourite` out of reach: read the documented NotificationGroup fields.
    const favouriteGroups = (grouped: { notificationGroups: unknown[] }) =>
      (grouped.notificationGroups as { type: string; notificationsCount: number }[]).filter((g) => g.type === 'favourite');
    // The notify worker writes them in its own invocations: wait until both views have both.
    const { plain, grouped } = await eventually(async () => {
      const seen = await inPage('notifications');
      const counted = favouriteGroups(seen.grouped).reduce((sum, g) => sum + g.notificationsCount, 0);
      return seen.plain.filter((n) => n.type === 'favourite').length === 2 && counted === 2 && seen;
    }, 'two favourite notifications in the page, listed and grouped', 60_000);
    expect(plain.filter((n) => n.type === 'favourite').map((n) => n.account.id).sort()).toEqual([one.me.id, two.me.id].sort());
    const groups = favouriteGroups(grouped);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ notificationsCount: 2 });
    expect(grouped.accounts.map((a) => a.id)).toEqual(expect.arrayContaining([one.me.id, two.me.id]));
  }, 120_000);
});
