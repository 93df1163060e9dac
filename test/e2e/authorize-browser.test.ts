// The authorization-code flow as a person goes through it: a real browser
// (Debian's Chromium, driven by playwright-core) logs in on /oauth/authorize,
// approves the app, and the app exchanges the code (with PKCE) through masto.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { freePort } from '../../infra/local/emulators';
import { useStack } from '../support/stack';


const stack = useStack();
let browser: Browser;
let callback: Server;
let callbackUrl: string;
const received: URLSearchParams[] = [];

const email = `browser${Date.now().toString(36)}@example.com`;
const password = 'browser passphrase 99';

beforeAll(async () => {
  // The client app's redirect endpoint: records the query it is sent.
  const port = await freePort();
  callbackUrl = `http://127.0.0.1:${port}/callback`;
  callback = createServer((req, res) => {
    const url = new URL(req.url ?? '/', callbackUrl);
    if (url.pathname === '/callback') received.push(url.searchParams); // not the browser's /favicon.ico
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p id="done">Signed in</p>');
  });
  await new Promise<void>((resolve) => callback.listen(port, '127.0.0.1', resolve));
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (callback ? callback.close(() => resolve()) : resolve()));
});

async function registeredUser(app: mastodon.v1.Client) {
  const oauth = createOAuthAPIClient({ url: stack().baseUrl });
  const appToken = await oauth.token.create({
    grantType: 'client_credentials', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: callbackUrl, scope: 'write:accounts',
  });
  const asApp = createRestAPIClient({ url: stack().baseUrl, accessToken: appToken.accessToken });
  await asApp.v1.accounts.create({ username: email.split('@')[0]!, email, password, agreement: true, locale: 'en' });
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

describe('authorization code flow in a browser', () => {
  it('logs in, approves, receives the code and exchanges it with PKCE', async () => {
    const anon = createRestAPIClient({ url: stack().baseUrl });
    const app = await anon.v1.apps.create({ clientName: 'Browser <App>', redirectUris: callbackUrl, scopes: 'read write write:accounts' });
    await registeredUser(app);

    const { verifier, challenge } = pkce();
    const state = randomBytes(8).toString('hex');
    const authorize = new URL('/oauth/authorize', stack().baseUrl);
    authorize.search = new URLSearchParams({
      response_type: 'code', client_id: app.clientId!, redirect_uri: callbackUrl, scope: 'read write',
      state, code_challenge: challenge, code_challenge_method: 'S256',
    }).toString();

    const page = await browser.newPage();
    await page.goto(authorize.toString());
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', password);
    await Promise.all([page.waitForLoadState('load'), page.locator('form button[type="submit"], form input[type="submit"]').first().click()]);
    // The approval page names the app, escaped.
    await expect(page.content()).resolves.toContain('Browser &lt;App&gt;');
    await Promise.all([page.waitForURL(/\/callback\?/), page.getByRole('button', { name: 'Authorize' }).click()]);
    await page.close();

    const params = received.at(-1)!;
    expect(params.get('state')).toBe(state);
    const code = params.get('code');
    expect(code).toBeTruthy();

    const oauth = createOAuthAPIClient({ url: stack().baseUrl });
    const exchange = { grantType: 'authorization_code', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: callbackUrl, code: code!, codeVerifier: verifier } as const;
    const token = await oauth.token.create(exchange as mastodon.oauth.CreateTokenParams);
    expect(token.scope).toBe('read write');
    const user = createRestAPIClient({ url: stack().baseUrl, accessToken: token.accessToken });
    const me = await user.v1.accounts.verifyCredentials();
    expect(me.acct).toBe(email.split('@')[0]);

    // A code works once.
    await expect(oauth.token.create(exchange as mastodon.oauth.CreateTokenParams)).rejects.toMatchObject({ statusCode: 400 });
  });

  it('shows the code on the page for the out-of-band redirect, and denies cleanly', async () => {
    const anon = createRestAPIClient({ url: stack().baseUrl });
    const app = await anon.v1.apps.create({ clientName: 'OOB app', redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' });
    const authorize = new URL('/oauth/authorize', stack().baseUrl);
    authorize.search = new URLSearchParams({ response_type: 'code', client_id: app.clientId!, redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', scope: 'read', force_login: 'true' }).toString();

    const page = await browser.newPage();
    await page.goto(authorize.toString());
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', password);
    await Promise.all([page.waitForLoadState('load'), page.locator('form button[type="submit"], form input[type="submit"]').first().click()]);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Authorize' }).click()]);
    const code = (await page.locator('#code').first().textContent())?.trim() ?? (await page.locator('#code').inputValue());
    expect(code).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const oauth = createOAuthAPIClient({ url: stack().baseUrl });
    const token = await oauth.token.create({ grantType: 'authorization_code', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: 'urn:ietf:wg:oauth:2.0:oob', code });
    expect(token.scope).toBe('read');
    await page.close();
  });
});
