// The API's request budgets as Mastodon's: 300 requests in 5 minutes per access
// token, 300 per address without one, sign-ups (5 in 30 minutes) and app
// registrations (5 in 10 minutes) per address; a 429 `{"error"}` with the
// X-RateLimit-* headers once a budget is spent, and the same headers on every
// API answer within it.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { handler as register } from '../../functions/accounts/create';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as createApp } from '../../functions/apps/create';
import { handler as instance } from '../../functions/instance/show';
import { handler as token } from '../../functions/oauth/token';
import { handler as createMedia } from '../../functions/media/create';
import { handler as createMediaV2 } from '../../functions/media/create_v2';
import { handler as deleteStatus } from '../../functions/statuses/delete';
import { handler as unreblog } from '../../functions/statuses/unreblog';
import sharp from 'sharp';
import { statusById } from '../../lib/db/statuses';
import { sha256 } from '../../lib/crypto';
import { updateInstanceSettings } from '../../lib/db/instance';
import * as keys from '../../lib/db/keys';
import { putItem } from '../../lib/db/table';
import { tokensOfApp } from '../../lib/db/tokens';
import { issueAccessToken } from '../../lib/tokens';
import { addressSubject, throttles, windowStart, type Throttle } from '../../lib/http/ratelimit';
import { call, type Answer, type Call } from '../support/http';
import { anApp, anAppToken, aPostedStatus, aUser } from '../support/factories';
import { multipart } from '../support/multipart';

const tinyPng = () => sharp({ create: { width: 4, height: 4, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Calls a handler as a request from `ip` would reach it. */
const from = (ip: string, handler: Handler, request: Call): Promise<Answer> => call(handler, { ...request, sourceIp: ip });

let lastOctet = 0;
/** An address no other test has used: each test starts with fresh per-address budgets. */
const anAddress = () => `192.0.2.${++lastOctet}`;

/** Writes a throttle's counter as if `hits` requests had been made, in the window of now and the next. */
async function preload(throttle: Throttle, subject: string, hits: number) {
  const start = windowStart(throttle);
  for (const s of [start, start + throttle.periodSeconds]) {
    await putItem({ ...keys.rateCounter(throttle.name, subject, s), hits, expiresAt: s + 2 * throttle.periodSeconds });
  }
}

function expectTooManyRequests(res: Answer, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: 'Too many requests' });
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  expect(Date.parse(res.headers['x-ratelimit-reset'] ?? '')).toBeGreaterThan(Date.now());
}

const me = (ip: string, tokenValue?: string) => from(ip, verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: tokenValue });
const instanceInfo = (ip: string, tokenValue?: string) => from(ip, instance, { path: '/api/v1/instance', token: tokenValue });

describe('the per-token budget', () => {
  it('never slows a well-behaved client, and tells it what is left on every answer', async () => {
    const user = await aUser();
    const ip = anAddress();
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await me(ip, user.token);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('300');
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
      const reset = Date.parse(res.headers['x-ratelimit-reset'] ?? '');
      // The end of the current five-minute window, as an ISO 8601 time.
      expect(reset % (300 * 1000)).toBe(0);
      expect(reset).toBeGreaterThan(Date.now());
      expect(reset - Date.now()).toBeLessThanOrEqual(300 * 1000);
    }
    expect(remaining).toEqual([299, 298, 297]);
    expect((await me(ip, user.token)).headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
  });

  it('answers 429 once a token has spent its 300 requests, and only for that token', async () => {
    const user = await aUser();
    const ip = anAddress();
    await preload(throttles.apiToken, sha256(user.token), 300);
    expectTooManyRequests(await me(ip, user.token), 300);
    // Another token of the same user, from the same address, has its own budget.
    const { raw: second } = await issueAccessToken(user.app, user.account.id, ['read']);
    const res = await me(ip, second);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('299');
  });

  it('counts a token on public endpoints by address, as requests without one', async () => {
    const user = await aUser();
    const ip = anAddress();
    await preload(throttles.apiAddress, ip, 300);
    expectTooManyRequests(await instanceInfo(ip, user.token), 300);
    expect((await me(ip, user.token)).status).toBe(200);
  });

  it('writes nothing but its counter for a refused request', async () => {
    const user = await aUser();
    await preload(throttles.apiToken, sha256(user.token), 300);
    process.env.EXPOSE_METRICS = '1';
    try {
      const res = await me(anAddress(), user.token);
      expect(res.status).toBe(429);
      expect(res.headers['x-db-writes']).toBe('0');
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });

  it('follows RATE_LIMIT_FACTOR', async () => {
    const user = await aUser();
    process.env.RATE_LIMIT_FACTOR = '2';
    try {
      const res = await me(anAddress(), user.token);
      expect(res.headers['x-ratelimit-limit']).toBe('600');
      expect(res.headers['x-ratelimit-remaining']).toBe('599');
    } finally {
      delete process.env.RATE_LIMIT_FACTOR;
    }
  });
});

describe('the per-address budget of requests without a token', () => {
  it('answers 300 requests in five minutes, then 429', async () => {
    const ip = anAddress();
    const first = await instanceInfo(ip);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('300');
    expect(first.headers['x-ratelimit-remaining']).toBe('299');
    await preload(throttles.apiAddress, ip, 300);
    expectTooManyRequests(await instanceInfo(ip), 300);
    expect((await instanceInfo(anAddress())).status).toBe(200);
  });

  it('counts an unknown token as no token, and answers 429 before 401', async () => {
    const ip = anAddress();
    const unknown = await me(ip, 'not-a-token');
    expect(unknown.status).toBe(401);
    expect(unknown.headers['x-ratelimit-remaining']).toBe('299');
    await preload(throttles.apiAddress, ip, 300);
    expectTooManyRequests(await me(ip, 'not-a-token'), 300);
    expectTooManyRequests(await me(ip), 300);
    // A valid token is counted on its own budget, whatever its address has spent.
    const user = await aUser();
    expect((await me(ip, user.token)).status).toBe(200);
  });

  it('counts an IPv6 address by its /64', async () => {
    expect(addressSubject('2001:db8:aa:bb:1:2:3:4')).toBe('2001:db8:aa:bb::/64');
    expect(addressSubject('2001:0db8:00aa:00bb::9')).toBe('2001:db8:aa:bb::/64');
    expect(addressSubject('::ffff:192.0.2.200')).toBe('192.0.2.200');
    expect(addressSubject('203.0.113.9')).toBe('203.0.113.9');
    expect(addressSubject('')).toBe('unknown');

    await preload(throttles.apiAddress, addressSubject('2001:db8:5:6::1'), 300);
    expectTooManyRequests(await instanceInfo('2001:db8:5:6:ffff:1:2:3'), 300);
    expect((await instanceInfo('2001:db8:5:7::1')).status).toBe(200);
  });

  it('leaves paths outside the API to their own limits', async () => {
    const ip = anAddress();
    await preload(throttles.apiAddress, ip, 300);
    const { app, clientSecret } = await anApp();
    const res = await from(ip, token, {
      method: 'POST',
      path: '/oauth/token',
      form: { grant_type: 'client_credentials', client_id: app.clientId, client_secret: clientSecret },
    });
    expect(res.status).toBe(200);
  });
});

describe('sign-ups', () => {
  let appToken: string;
  beforeAll(async () => {
    await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
    ({ token: appToken } = await anAppToken(['read', 'write', 'follow', 'push']));
  });

  let seq = 0;
  const signUp = (ip: string, overrides: Record<string, unknown> = {}) => {
    const name = `rl_${Date.now().toString(36)}_${++seq}`;
    return from(ip, register, {
      method: 'POST',
      path: '/api/v1/accounts',
      json: { username: name, email: `${name}@example.com`, password: 'hunter2hunter2', agreement: true, locale: 'en', ...overrides },
      token: appToken,
    });
  };

  it('allows 5 per address in 30 minutes, counting refused ones, then answers 429', async () => {
    const ip = anAddress();
    const first = await signUp(ip);
    expect(first.status).toBe(200);
    // The most limited budget is the one the answer shows.
    expect(first.headers['x-ratelimit-limit']).toBe('5');
    expect(first.headers['x-ratelimit-remaining']).toBe('4');
    for (let i = 0; i < 4; i++) expect((await signUp(ip, { agreement: false })).status).toBe(422);
    const refused = await signUp(ip);
    expectTooManyRequests(refused, 5);
    expect(refused.body).not.toHaveProperty('access_token');
    expect((await signUp(anAddress())).status).toBe(200);
  });

  it('writes nothing but its counter for a refused sign-up', async () => {
    const ip = anAddress();
    await preload(throttles.signUp, ip, 5);
    process.env.EXPOSE_METRICS = '1';
    try {
      const res = await signUp(ip);
      expect(res.status).toBe(429);
      expect(res.headers['x-db-writes']).toBe('0');
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });
});

describe('client_credentials grants (app tokens)', () => {
  const grant = (ip: string, app: { clientId: string }, clientSecret: string) =>
    from(ip, token, { method: 'POST', path: '/oauth/token', form: { grant_type: 'client_credentials', client_id: app.clientId, client_secret: clientSecret } });

  it('allows 5 per address in 10 minutes, as app registrations, then answers 429 and stores no more tokens', async () => {
    const ip = anAddress();
    const { app, clientSecret } = await anApp();
    for (let i = 0; i < 5; i++) expect((await grant(ip, app, clientSecret)).status).toBe(200);
    const refused = await grant(ip, app, clientSecret);
    expectTooManyRequests(refused, 5);
    expect(refused.body).not.toHaveProperty('access_token');
    // Counted before the client is checked: a wrong secret spends the budget too, and is refused alike.
    expectTooManyRequests(await grant(ip, app, 'wrong'), 5);
    expect(await tokensOfApp(app.clientId)).toHaveLength(5);
    // Another address has its own budget.
    expect((await grant(anAddress(), app, clientSecret)).status).toBe(200);
    expect(await tokensOfApp(app.clientId)).toHaveLength(6);
  });

  it('counts an IPv6 address by its /64', async () => {
    const { app, clientSecret } = await anApp();
    await preload(throttles.appToken, addressSubject('2001:db8:78::1'), 5);
    expectTooManyRequests(await grant('2001:db8:78::99', app, clientSecret), 5);
    expect(await tokensOfApp(app.clientId)).toEqual([]);
  });
});

describe('app registrations', () => {
  const registerApp = (ip: string) =>
    from(ip, createApp, { method: 'POST', path: '/api/v1/apps', form: { client_name: 'Rate test', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } });

  it('allows 5 per address in 10 minutes, then answers 429', async () => {
    const ip = anAddress();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await registerApp(ip);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      remaining.push(res.headers['x-ratelimit-remaining'] ?? '');
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await registerApp(ip);
    expectTooManyRequests(refused, 5);
    expect(refused.body).not.toHaveProperty('client_id');
    expect((await registerApp(anAddress())).status).toBe(200);
  });

  it('counts addresses in one /64 together', async () => {
    await preload(throttles.appRegistration, addressSubject('2001:db8:77::1'), 5);
    expectTooManyRequests(await registerApp('2001:db8:77:0:aaaa::2'), 5);
    expect((await registerApp('2001:db8:78::1')).status).toBe(200);
  });
});

describe('per-account throttles of uploads and deletes', () => {
  it('refuses the 31st upload in 30 minutes with 429, and stores nothing for it', async () => {
    const user = await aUser();
    const other = await aUser();
    await preload(throttles.mediaUpload, `account:${user.account.id}`, 30);
    const form = await multipart({ file: { data: await tinyPng(), filename: 'a.png', type: 'image/png' } });
    process.env.EXPOSE_METRICS = '1';
    for (const handler of [createMedia, createMediaV2]) {
      const res = await from(anAddress(), handler, { method: 'POST', path: '/api/v2/media', token: user.token, body: form });
      expectTooManyRequests(res, 30);
      expect(res.headers['x-db-writes']).toBe('0');
    }
    delete process.env.EXPOSE_METRICS;
    // Another account's uploads are not counted against it.
    const theirs = await from(anAddress(), createMediaV2, { method: 'POST', path: '/api/v2/media', token: other.token, body: form });
    expect(theirs.status).toBe(200);
    expect(Number(theirs.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(29);
  });

  it('counts deletes and unreblogs together, and a refused delete leaves the status in place', async () => {
    const user = await aUser();
    const status = await aPostedStatus(user.account);
    await preload(throttles.statusDelete, `account:${user.account.id}`, 30);
    const res = await from(anAddress(), deleteStatus, { method: 'DELETE', path: `/api/v1/statuses/${status.id}`, pathParameters: { id: status.id }, token: user.token });
    expectTooManyRequests(res, 30);
    expect(await statusById(status.id)).toBeDefined();
    const unboost = await from(anAddress(), unreblog, { method: 'POST', path: `/api/v1/statuses/${status.id}/unreblog`, pathParameters: { id: status.id }, token: user.token });
    expectTooManyRequests(unboost, 30);
  });

  it('lets a delete through below the limit, with the tightest budget in the headers', async () => {
    const user = await aUser();
    const status = await aPostedStatus(user.account);
    const res = await from(anAddress(), deleteStatus, { method: 'DELETE', path: `/api/v1/statuses/${status.id}`, pathParameters: { id: status.id }, token: user.token });
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('30');
    expect(res.headers['x-ratelimit-remaining']).toBe('29');
  });
});

describe('loopback, as Mastodon lets localhost past its limits', () => {
  const onStage = async (stage: string, loopbackLimited: boolean, run: () => Promise<void>) => {
    const saved = { stage: process.env.STAGE, loopback: process.env.RATE_LIMIT_LOOPBACK };
    process.env.STAGE = stage;
    if (loopbackLimited) process.env.RATE_LIMIT_LOOPBACK = '1';
    else delete process.env.RATE_LIMIT_LOOPBACK;
    try {
      await run();
    } finally {
      process.env.STAGE = saved.stage;
      if (saved.loopback === undefined) delete process.env.RATE_LIMIT_LOOPBACK;
      else process.env.RATE_LIMIT_LOOPBACK = saved.loopback;
    }
  };

  it.each(['127.0.0.1', '127.0.0.5', '::1', '::ffff:127.0.0.1'])('on the local stage, %s goes past a spent budget, and its answers carry no X-RateLimit headers', async (ip) => {
    await onStage('local', false, async () => {
      await preload(throttles.apiAddress, addressSubject(ip), 10_000);
      await preload(throttles.appRegistration, addressSubject(ip), 10_000);
      const res = await instanceInfo(ip);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      const app = await from(ip, createApp, { method: 'POST', path: '/api/v1/apps', json: { client_name: 'suite', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } });
      expect(app.status).toBe(200);
      // Another address on the same stage is held to its budget.
      const other = anAddress();
      await preload(throttles.apiAddress, addressSubject(other), 10_000);
      expectTooManyRequests(await instanceInfo(other), throttles.apiAddress.limit);
    });
  });

  it('with RATE_LIMIT_LOOPBACK=1 the local stage holds loopback to the limits', async () => {
    await onStage('local', true, async () => {
      await preload(throttles.apiAddress, addressSubject('127.0.0.9'), 10_000);
      expectTooManyRequests(await instanceInfo('127.0.0.9'), throttles.apiAddress.limit);
    });
  });

  it('any other stage holds loopback to the limits, whatever RATE_LIMIT_LOOPBACK says', async () => {
    await onStage('prod', false, async () => {
      await preload(throttles.apiAddress, addressSubject('127.0.0.10'), 10_000);
      expectTooManyRequests(await instanceInfo('127.0.0.10'), throttles.apiAddress.limit);
    });
  });

  it('a token from loopback still has to be valid: the exemption skips counting, not authentication', async () => {
    await onStage('local', false, async () => {
      expect((await me('127.0.0.1', 'not-a-token')).status).toBe(401);
      const { token: good } = await aUser();
      expect((await me('127.0.0.1', good)).status).toBe(200);
    });
  });
});
