// Sign-in attempts are limited as Mastodon limits them (25 per address in 5
// minutes, 25 per e-mail address in an hour), through the password grant and
// the login form alike; every attempt counts, right or wrong.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { handler as show } from '../../functions/oauth/authorize';
import { handler as submit } from '../../functions/oauth/authorize_submit';
import { handler as token } from '../../functions/oauth/token';
import { handler as signinWorker } from '../../functions/workers/signin';
import { sha256 } from '../../lib/crypto';
import * as keys from '../../lib/db/keys';
import { putItem } from '../../lib/db/table';
import { hit, throttles, windowStart, type Throttle } from '../../lib/http/ratelimit';
import { registerInlineWorker } from '../../lib/queue';
import { call, type Answer, type Call } from '../support/http';
import { anApp, aUser } from '../support/factories';

registerInlineWorker('signin', signinWorker);

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Calls a handler as a request from `ip` would reach it. */
const from = (ip: string, handler: Handler, request: Call): Promise<Answer> => call(handler, { ...request, sourceIp: ip });

let lastOctet = 0;
/** An address no other test has used: each test starts with fresh per-address budgets. */
const anAddress = () => `198.51.100.${++lastOctet}`;

/**
 * Writes a throttle's counter as if `hits` requests had been made, in the
 * window of `at` and in the one after it (so a test that crosses a window's end
 * sees the same state).
 */
async function preload(throttle: Throttle, subject: string, hits: number, at = Date.now()) {
  const start = windowStart(throttle, at);
  for (const s of [start, start + throttle.periodSeconds]) {
    await putItem({ ...keys.rateCounter(throttle.name, subject, s), hits, expiresAt: s + 2 * throttle.periodSeconds });
  }
}

async function aSignIn() {
  const user = await aUser();
  const { app, clientSecret } = await anApp();
  return { email: user.account.email ?? '', password: user.password, clientId: app.clientId, clientSecret };
}

type SignIn = Awaited<ReturnType<typeof aSignIn>>;

const passwordGrant = (ip: string, who: SignIn, password: string, email = who.email) =>
  from(ip, token, {
    method: 'POST',
    path: '/oauth/token',
    form: { grant_type: 'password', username: email, password, client_id: who.clientId, client_secret: who.clientSecret, scope: 'read' },
  });

function expectTooManyRequests(res: Answer, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: 'Too many requests' });
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  const reset = Date.parse(res.headers['x-ratelimit-reset'] ?? '');
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  expect(reset).toBeGreaterThan(Date.now());
}

// Twenty-six password checks (scrypt) in one test: on a loaded machine more than jest's 30 s.
describe('sign-in attempts through the password grant', () => {
  it('refuses the 26th attempt with 429, and the right password while the limit holds', async () => {
    const who = await aSignIn();
    const ip = anAddress();
    for (let attempt = 1; attempt <= 25; attempt++) {
      const res = await passwordGrant(ip, who, `wrong password ${attempt}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    }
    const refused = await passwordGrant(ip, who, 'wrong password 26');
    expectTooManyRequests(refused, 25);
    // The answer is the same whatever the password: the last try learns nothing.
    const right = await passwordGrant(ip, who, who.password);
    expectTooManyRequests(right, 25);
    expect(right.body).not.toHaveProperty('access_token');
  }, 120_000);

  it('counts per address: a spent address is refused for every e-mail, another address is not', async () => {
    const who = await aSignIn();
    const spentAddress = anAddress();
    await preload(throttles.signInAddress, spentAddress, 25);
    expectTooManyRequests(await passwordGrant(spentAddress, who, who.password), 25);
    const elsewhere = await passwordGrant(anAddress(), who, who.password);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.access_token).toEqual(expect.any(String));
  });

  it('counts per e-mail address, whatever address the attempts come from and however the e-mail is written', async () => {
    const who = await aSignIn();
    await preload(throttles.signInEmail, sha256(who.email.toLowerCase()), 25);
    expectTooManyRequests(await passwordGrant(anAddress(), who, who.password), 25);
    expectTooManyRequests(await passwordGrant(anAddress(), who, who.password, ` ${who.email.toUpperCase()} `), 25);
    const other = await aSignIn();
    expect((await passwordGrant(anAddress(), other, other.password)).status).toBe(200);
  });

  it('lets a client in again once the window its attempts fell in is over', async () => {
    const who = await aSignIn();
    const ip = anAddress();
    const previous = Date.now() - throttles.signInEmail.periodSeconds * 1000;
    // Spent budgets of the previous windows, per address and per e-mail.
    for (const [throttle, subject] of [[throttles.signInAddress, ip], [throttles.signInEmail, sha256(who.email)]] as const) {
      const start = windowStart(throttle, Date.now()) - throttle.periodSeconds;
      await putItem({ ...keys.rateCounter(throttle.name, subject, start), hits: 100, expiresAt: start + 7200 });
    }
    expect((await hit(throttles.signInEmail, sha256(who.email), previous)).count).toBe(101);
    const res = await passwordGrant(ip, who, who.password);
    expect(res.status).toBe(200);
  });

  it('does not count other grants as sign-in attempts', async () => {
    const who = await aSignIn();
    const ip = anAddress();
    await preload(throttles.signInAddress, ip, 25);
    const res = await from(ip, token, {
      method: 'POST',
      path: '/oauth/token',
      form: { grant_type: 'client_credentials', client_id: who.clientId, client_secret: who.clientSecret },
    });
    expect(res.status).toBe(200);
    // /oauth is not the API: its answers carry no budget headers, as Mastodon's.
    expect(res.headers).not.toHaveProperty('x-ratelimit-limit');
  });

  it('writes nothing but its counters for a refused attempt', async () => {
    const who = await aSignIn();
    const ip = anAddress();
    await preload(throttles.signInAddress, ip, 25);
    process.env.EXPOSE_METRICS = '1';
    try {
      const res = await passwordGrant(ip, who, who.password);
      expect(res.status).toBe(429);
      expect(res.headers['x-db-writes']).toBe('0');
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });
});

describe('sign-in attempts through the login form', () => {
  const CALLBACK = 'urn:ietf:wg:oauth:2.0:oob';

  /** Opens the authorize page once and answers a submit function reusing its CSRF pair, as a script would. */
  async function aLoginForm(ip: string) {
    const { app } = await anApp({ redirect_uris: CALLBACK });
    const query = { response_type: 'code', client_id: app.clientId, redirect_uri: CALLBACK, scope: 'read' };
    const page = await from(ip, show, { method: 'GET', path: '/oauth/authorize', query });
    expect(page.status).toBe(200);
    const cookie = (page.cookies[0] ?? '').split(';')[0] ?? '';
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    return (email: string, password: string) =>
      from(ip, submit, { method: 'POST', path: '/oauth/authorize', form: { ...query, csrf_token: csrf, email, password }, cookies: [cookie] });
  }

  it('refuses the 26th submission with 429, and the right password while the limit holds', async () => {
    const who = await aSignIn();
    const ip = anAddress();
    const login = await aLoginForm(ip);
    for (let attempt = 1; attempt <= 25; attempt++) {
      const res = await login(who.email, `wrong password ${attempt}`);
      expect(res.status).toBe(422);
      expect(res.text).toContain('Invalid e-mail address or password.');
    }
    expectTooManyRequests(await login(who.email, 'wrong password 26'), 25);
    const right = await login(who.email, who.password);
    expectTooManyRequests(right, 25);
    expect(right.cookies).toEqual([]);
  }, 120_000);

  it('shares the budgets of the password grant', async () => {
    const who = await aSignIn();
    const ip = anAddress();
    await preload(throttles.signInEmail, sha256(who.email), 25);
    const login = await aLoginForm(ip);
    expectTooManyRequests(await login(who.email, who.password), 25);
    const fresh = await aSignIn();
    const approval = await login(fresh.email, fresh.password);
    expect(approval.status).toBe(200);
    expect(approval.text).toContain('Authorize');
  });
});
