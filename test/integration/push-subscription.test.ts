// POST/GET/PUT/DELETE /api/v1/push/subscription: the spec's state table (one
// subscription per access token, a new POST replaces the old, PUT changes only
// the alerts), Mastodon 4.4's `standard` (set by POST, read as Rails casts a
// boolean, kept by PUT), the auth and validation table (nothing written on a
// refusal), and the subscription going away with its token (POST /oauth/revoke).
import { createECDH, randomBytes } from 'node:crypto';
import webpush from 'web-push';
import { handler as revokeHandler } from '../../functions/oauth/revoke';
import { handler as createHandler } from '../../functions/push/create';
import { handler as destroyHandler } from '../../functions/push/destroy';
import { handler as showHandler } from '../../functions/push/show';
import { handler as updateHandler } from '../../functions/push/update';
import { handler as verifyAppHandler } from '../../functions/apps/verify_credentials';
import { sha256 } from '../../lib/crypto';
import type { Account } from '../../lib/db/accounts';
import * as dbKeys from '../../lib/db/keys';
import { pushSubscriptionsOf, savePushSubscription } from '../../lib/db/push_subscriptions';
import { putItem } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { useResolver } from '../../lib/push/endpoint';
import { openToken } from '../../lib/push/seal';
import { tokenBinding } from '../../lib/push/subscription';
import { issueAccessToken } from '../../lib/tokens';
import { anApp, anAppToken, aUser, type UserFixture } from '../support/factories';
import { call, type Call } from '../support/http';

const PATH = '/api/v1/push/subscription';
const VAPID = webpush.generateVAPIDKeys();

// Host names of this test's world (the sandbox resolves nothing outside).
const DNS: Record<string, string[]> = {
  'push.example.net': ['151.101.1.1', '2a04:4e42::1'],
  'updates.push.example': ['34.117.0.1'],
  'rebind.example': ['151.101.1.1', '10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'v6private.example': ['fd00::1'],
};

beforeAll(() => {
  process.env.VAPID_PUBLIC_KEY = VAPID.publicKey;
  process.env.VAPID_PRIVATE_KEY = VAPID.privateKey;
  useResolver(async (host) => {
    if (host === 'localhost') return ['127.0.0.1', '::1'];
    const found = DNS[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  });
});

afterAll(() => useResolver(undefined));

afterEach(() => {
  delete process.env.PUSH_ALLOW_LOOPBACK;
});

/** A browser's subscription keys: a fresh P-256 key pair and a 16-byte auth secret. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') };
}

type Sub = { endpoint?: string; p256dh?: string; auth?: string; alerts?: Record<string, string>; extra?: Record<string, string> };

/** The bracket-notation form Mastodon's web app sends. */
function subscriptionForm(sub: Sub = {}): Record<string, string> {
  const keys = browserKeys();
  const form: Record<string, string> = {};
  if (sub.endpoint !== undefined || !('endpoint' in sub)) form['subscription[endpoint]'] = sub.endpoint ?? 'https://push.example.net/wpush/v2/abc';
  if (sub.p256dh !== undefined || !('p256dh' in sub)) form['subscription[keys][p256dh]'] = sub.p256dh ?? keys.p256dh;
  if (sub.auth !== undefined || !('auth' in sub)) form['subscription[keys][auth]'] = sub.auth ?? keys.auth;
  for (const [kind, on] of Object.entries(sub.alerts ?? {})) form[`data[alerts][${kind}]`] = on;
  return { ...form, ...sub.extra };
}

const create = (token: string | undefined, request: Partial<Call> = { form: subscriptionForm() }) => call(createHandler, { method: 'POST', path: PATH, token, ...request });
const show = (token: string | undefined) => call(showHandler, { path: PATH, token });
const update = (token: string | undefined, request: Partial<Call>) => call(updateHandler, { method: 'PUT', path: PATH, token, ...request });
const destroy = (token: string | undefined) => call(destroyHandler, { method: 'DELETE', path: PATH, token });

const stored = (account: Account) => pushSubscriptionsOf(account.id);

const NONE_ON = { follow: false, follow_request: false, favourite: false, reblog: false, mention: false, status: false, update: false, poll: false, quote: false, quoted_update: false, 'admin.sign_up': false, 'admin.report': false };

let alice: UserFixture;
beforeEach(async () => {
  alice = await aUser();
});

describe('the state table', () => {
  it('without a subscription: GET and PUT answer 404, DELETE answers {}', async () => {
    expect(await show(alice.token)).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    expect(await update(alice.token, { form: { 'data[alerts][mention]': 'true' } })).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    expect(await destroy(alice.token)).toMatchObject({ status: 200, body: {} });
    expect(await stored(alice.account)).toEqual([]);
  });

  it('POST creates the token\'s subscription: the entity, with the server key, and the stored record', async () => {
    const keys = browserKeys();
    const res = await create(alice.token, {
      form: subscriptionForm({ endpoint: 'https://push.example.net/wpush/v2/abc', ...keys, alerts: { follow: 'true', favourite: '1', reblog: 'false' } }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      endpoint: 'https://push.example.net/wpush/v2/abc',
      standard: false,
      alerts: { ...NONE_ON, follow: true, favourite: true },
      server_key: VAPID.publicKey,
      policy: 'all',
    });
    const [sub, ...more] = await stored(alice.account);
    expect(more).toEqual([]);
    expect(sub).toMatchObject({ id: res.body.id, p256dh: keys.p256dh, auth: keys.auth, endpoint: 'https://push.example.net/wpush/v2/abc', standard: false });
    // The raw token is kept only sealed, and opens only for this subscription.
    expect(sub!.sealedToken).not.toContain(alice.token);
    expect(openToken(sub!.sealedToken!, tokenBinding(sub!.accountId, sub!.tokenId))).toBe(alice.token);
    expect(openToken(sub!.sealedToken!, tokenBinding(sub!.accountId, newId()))).toBeUndefined();
    expect(await show(alice.token)).toMatchObject({ status: 200, body: res.body });
    // REST::WebPushSubscriptionSerializer's order.
    expect(Object.keys(res.body)).toEqual(['id', 'endpoint', 'standard', 'alerts', 'server_key', 'policy']);
  });

  it('accepts JSON as masto sends it, standard Base64 keys included, and `policy` beside `data`', async () => {
    const keys = browserKeys();
    const p256dh = Buffer.from(keys.p256dh, 'base64url').toString('base64');
    const auth = Buffer.from(keys.auth, 'base64url').toString('base64');
    const res = await create(alice.token, {
      json: { subscription: { endpoint: 'https://updates.push.example/push/1', keys: { p256dh, auth } }, data: { alerts: { mention: true, poll: true, status: true, severed_relationships: true, 'admin.sign_up': true } }, policy: 'followed' },
    });
    expect(res.status).toBe(200);
    // `severed_relationships` is not a kind this server notifies of: dropped; `status` (the bell) and the staff's `admin.sign_up` are kept.
    expect(res.body).toMatchObject({ alerts: { ...NONE_ON, mention: true, poll: true, status: true, 'admin.sign_up': true }, policy: 'followed' });
    expect(res.body.alerts).not.toHaveProperty('severed_relationships');
    expect(await stored(alice.account)).toEqual([expect.objectContaining({ p256dh: keys.p256dh, auth: keys.auth })]);
  });

  it('a new POST replaces the old subscription: a new id, one record', async () => {
    const first = await create(alice.token, { form: subscriptionForm({ alerts: { follow: 'true' } }) });
    const second = await create(alice.token, { form: subscriptionForm({ endpoint: 'https://updates.push.example/push/2', alerts: { mention: 'true' } }) });
    expect(second.status).toBe(200);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body).toMatchObject({ endpoint: 'https://updates.push.example/push/2', alerts: { ...NONE_ON, mention: true } });
    expect((await stored(alice.account)).map((s) => s.id)).toEqual([second.body.id]);
    expect((await show(alice.token)).body.id).toBe(second.body.id);
  });

  it('PUT changes only the alerts (all of them, as Mastodon replaces data), never the endpoint or keys', async () => {
    const created = await create(alice.token, { form: subscriptionForm({ alerts: { follow: 'true', favourite: 'true' } }) });
    const before = (await stored(alice.account))[0]!;
    const res = await update(alice.token, {
      form: { 'data[alerts][mention]': 'true', 'data[alerts][follow]': 'false', 'subscription[endpoint]': 'https://updates.push.example/elsewhere', 'subscription[keys][auth]': browserKeys().auth },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, alerts: { ...NONE_ON, mention: true } });
    const after = (await stored(alice.account))[0]!;
    expect(after).toMatchObject({ id: before.id, endpoint: before.endpoint, p256dh: before.p256dh, auth: before.auth, sealedToken: before.sealedToken, policy: 'all' });
  });

  it('PUT keeps the policy unless one is given', async () => {
    await create(alice.token, { json: { subscription: { endpoint: 'https://push.example.net/p', keys: browserKeys() }, data: { policy: 'follower' } } });
    expect((await update(alice.token, { json: { data: { alerts: { poll: true } } } })).body).toMatchObject({ policy: 'follower', alerts: { poll: true } });
    expect((await update(alice.token, { json: { data: { alerts: { poll: true }, policy: 'none' } } })).body).toMatchObject({ policy: 'none' });
  });

  it('DELETE removes it: then GET answers 404 and nothing is stored', async () => {
    await create(alice.token);
    expect(await destroy(alice.token)).toMatchObject({ status: 200, body: {} });
    expect((await show(alice.token)).status).toBe(404);
    expect(await stored(alice.account)).toEqual([]);
  });

  it('is one per access token: two tokens of one account keep two subscriptions apart', async () => {
    const { app } = await anApp();
    const other = await issueAccessToken(app, alice.account.id, ['push']);
    const mine = await create(alice.token, { form: subscriptionForm({ endpoint: 'https://push.example.net/one' }) });
    const theirs = await create(other.raw, { form: subscriptionForm({ endpoint: 'https://push.example.net/two' }) });
    expect((await show(alice.token)).body.id).toBe(mine.body.id);
    expect((await show(other.raw)).body.id).toBe(theirs.body.id);
    expect(await stored(alice.account)).toHaveLength(2);
    await destroy(other.raw);
    expect((await show(alice.token)).body.id).toBe(mine.body.id);
    expect((await stored(alice.account)).map((s) => s.endpoint)).toEqual(['https://push.example.net/one']);
  });
});

describe('standard (Mastodon 4.4): which encryption the pushes use', () => {
  it('is false unless asked for; POST sets it, GET shows it, it is stored', async () => {
    const plain = await create(alice.token);
    expect(plain).toMatchObject({ status: 200, body: { standard: false } });
    expect(await stored(alice.account)).toEqual([expect.objectContaining({ standard: false })]);

    const standard = await create(alice.token, { form: subscriptionForm({ extra: { 'subscription[standard]': 'true' } }) });
    expect(standard).toMatchObject({ status: 200, body: { standard: true } });
    expect(await show(alice.token)).toMatchObject({ status: 200, body: { id: standard.body.id, standard: true } });
    expect(await stored(alice.account)).toEqual([expect.objectContaining({ id: standard.body.id, standard: true })]);
  });

  it('JSON: a boolean, as masto and Mastodon 4.4 clients send it', async () => {
    const res = await create(alice.token, { json: { subscription: { endpoint: 'https://push.example.net/j', keys: browserKeys(), standard: true }, data: { alerts: { mention: true } } } });
    expect(res).toMatchObject({ status: 200, body: { standard: true, alerts: { mention: true } } });
    expect((await create(alice.token, { json: { subscription: { endpoint: 'https://push.example.net/j', keys: browserKeys(), standard: false } } })).body.standard).toBe(false);
  });

  it('PUT never changes it (Mastodon updates only `data`), in either direction, and answers it', async () => {
    await create(alice.token, { form: subscriptionForm({ alerts: { follow: 'true' } }) });
    const put = await update(alice.token, { form: { 'data[alerts][mention]': 'true', 'subscription[standard]': 'true' } });
    expect(put).toMatchObject({ status: 200, body: { standard: false, alerts: { mention: true, follow: false } } });
    expect((await stored(alice.account))[0]!.standard).toBe(false);

    await create(alice.token, { json: { subscription: { endpoint: 'https://push.example.net/s', keys: browserKeys(), standard: true } } });
    const again = await update(alice.token, { json: { subscription: { standard: false }, data: { alerts: { poll: true } } } });
    expect(again).toMatchObject({ status: 200, body: { standard: true, alerts: { poll: true } } });
    expect(await show(alice.token)).toMatchObject({ body: { standard: true } });
    expect((await stored(alice.account))[0]!.standard).toBe(true);
  });

  it('a new POST without it replaces a standard subscription with a legacy one', async () => {
    await create(alice.token, { form: subscriptionForm({ extra: { 'subscription[standard]': '1' } }) });
    const replaced = await create(alice.token);
    expect(replaced.body.standard).toBe(false);
    expect((await stored(alice.account)).map((s) => [s.id, s.standard])).toEqual([[replaced.body.id, false]]);
  });

  // Rails' boolean cast (ActiveModel::Type::Boolean) on the permitted param, absent meaning false: never a 422.
  it.each<[string, string, boolean]>([
    ['true', 'true', true],
    ['1', '1', true],
    ['t', 't', true],
    ['on', 'on', true],
    ["yes (not one of Rails' false values)", 'yes', true],
    ["no (not one of Rails' false values either)", 'no', true],
    ['True (Rails knows only false/FALSE)', 'True', true],
    ['a word', 'banana', true],
    ['false', 'false', false],
    ['FALSE', 'FALSE', false],
    ['0', '0', false],
    ['f', 'f', false],
    ['F', 'F', false],
    ['off', 'off', false],
    ['OFF', 'OFF', false],
    ['empty', '', false],
  ])('form %s: 200, standard %s', async (_name, value, expected) => {
    const res = await create(alice.token, { form: subscriptionForm({ extra: { 'subscription[standard]': value } }) });
    expect(res).toMatchObject({ status: 200, body: { standard: expected } });
    expect((await stored(alice.account))[0]!.standard).toBe(expected);
  });

  it.each<[string, unknown, boolean]>([
    ['1', 1, true],
    ['2', 2, true],
    ['0', 0, false],
    ['"0"', '0', false],
    ['"true"', 'true', true],
    ['null', null, false],
    ["a list (dropped by Rails' permit)", [true], false],
    ["an object (dropped by Rails' permit)", { on: true }, false],
  ])('JSON %s: 200, standard %s', async (_name, value, expected) => {
    const res = await create(alice.token, { json: { subscription: { endpoint: 'https://push.example.net/c', keys: browserKeys(), standard: value } } });
    expect(res).toMatchObject({ status: 200, body: { standard: expected } });
  });

  it('a subscription stored before the field existed reads as false (the legacy encryption it was made for)', async () => {
    await create(alice.token, { json: { subscription: { endpoint: 'https://push.example.net/old', keys: browserKeys(), standard: true } } });
    const [sub] = await stored(alice.account);
    const { standard: _dropped, ...older } = sub!;
    await putItem({ ...dbKeys.pushSubscription(sub!.accountId, sub!.tokenId), ...older });
    expect(await show(alice.token)).toMatchObject({ status: 200, body: { id: sub!.id, standard: false } });
  });
});

describe('who may call it', () => {
  const methods = [
    ['POST', (token: string | undefined) => create(token)],
    ['GET', show],
    ['PUT', (token: string | undefined) => update(token, { form: { 'data[alerts][mention]': 'true' } })],
    ['DELETE', destroy],
  ] as const;

  it.each(methods)('%s: 401 without a token or with an unknown one', async (_method, request) => {
    expect(await request(undefined)).toMatchObject({ status: 401, body: { error: 'The access token is invalid' } });
    expect(await request('not-a-token')).toMatchObject({ status: 401, body: { error: 'The access token is invalid' } });
  });

  it.each(methods)('%s: 403 for a user token without the push scope, and nothing written', async (_method, request) => {
    const reader = await aUser({ scopes: ['read', 'write', 'follow'] });
    expect(await request(reader.token)).toMatchObject({ status: 403, body: { error: 'This action is outside the authorized scopes' } });
    expect(await stored(reader.account)).toEqual([]);
  });

  it.each(methods)('%s: 422 for an app token (no user behind it)', async (_method, request) => {
    const { token } = await anAppToken(['push']);
    expect(await request(token)).toMatchObject({ status: 422, body: { error: 'This method requires an authenticated user' } });
  });

  it('403 for an unconfirmed login', async () => {
    const unconfirmed = await aUser({ confirmed: false });
    expect(await create(unconfirmed.token)).toMatchObject({ status: 403, body: { error: 'Your login is missing a confirmed e-mail address' } });
    expect(await stored(unconfirmed.account)).toEqual([]);
  });
});

describe('validation: 422 with a reason, and nothing written (an existing subscription is kept)', () => {
  const b64 = (bytes: Buffer) => bytes.toString('base64url');
  const offCurve = () => {
    const point = Buffer.from(browserKeys().p256dh, 'base64url');
    point[64] = point[64]! ^ 1;
    return b64(point);
  };
  const compressed = () => {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    return ecdh.getPublicKey('base64url', 'compressed');
  };

  it.each<[string, Sub, string]>([
    ['no subscription at all', { extra: {}, endpoint: undefined, p256dh: undefined, auth: undefined }, "subscription can't be blank"],
    ['no endpoint', { endpoint: undefined }, "subscription.endpoint can't be blank"],
    ['an empty endpoint', { endpoint: '' }, "subscription.endpoint can't be blank"],
    ['no p256dh', { p256dh: undefined }, "subscription.keys.p256dh can't be blank"],
    ['p256dh not Base64', { p256dh: 'not base64!' }, 'subscription.keys.p256dh must be Base64 or Base64url'],
    ['p256dh off the curve', { p256dh: offCurve() }, 'subscription.keys.p256dh must be an uncompressed P-256 (prime256v1) public key'],
    ['p256dh compressed', { p256dh: compressed() }, 'subscription.keys.p256dh must be an uncompressed P-256 (prime256v1) public key'],
    ['p256dh of zeros', { p256dh: b64(Buffer.concat([Buffer.from([4]), Buffer.alloc(64)])) }, 'subscription.keys.p256dh must be an uncompressed P-256 (prime256v1) public key'],
    ['no auth', { auth: undefined }, "subscription.keys.auth can't be blank"],
    ['auth of 15 bytes', { auth: b64(randomBytes(15)) }, 'subscription.keys.auth must be 16 bytes'],
    ['auth of 17 bytes', { auth: b64(randomBytes(17)) }, 'subscription.keys.auth must be 16 bytes'],
    ['auth not Base64', { auth: '****************' }, 'subscription.keys.auth must be Base64 or Base64url'],
    ['an endpoint that is no URL', { endpoint: 'push service' }, 'subscription.endpoint is not a valid URL'],
    ['plain http', { endpoint: 'http://push.example.net/x' }, 'subscription.endpoint must be an https URL'],
    ['another scheme', { endpoint: 'ftp://push.example.net/x' }, 'subscription.endpoint must be an https URL'],
    ['credentials in the URL', { endpoint: 'https://user:secret@push.example.net/x' }, 'subscription.endpoint must not contain credentials'],
    ['a user name alone in the URL', { endpoint: 'https://user@push.example.net/x' }, 'subscription.endpoint must not contain credentials'],
    ['loopback (not the local stage)', { endpoint: 'https://127.0.0.1/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['localhost', { endpoint: 'https://localhost:8443/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['IPv6 loopback', { endpoint: 'https://[::1]/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['a private address', { endpoint: 'https://10.1.2.3/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['10.0.0.1', { endpoint: 'https://10.0.0.1/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['a private address in hexadecimal', { endpoint: 'https://0xa000001/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['a subdomain of localhost', { endpoint: 'https://push.localhost/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['192.168/16', { endpoint: 'https://192.168.0.10/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['172.16/12', { endpoint: 'https://172.31.255.1/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['carrier-grade NAT', { endpoint: 'https://100.64.0.1/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['the cloud metadata address', { endpoint: 'https://169.254.169.254/latest/meta-data' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['IPv6 link-local', { endpoint: 'https://[fe80::1]/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['IPv4-mapped private', { endpoint: 'https://[::ffff:10.0.0.1]/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['documentation range', { endpoint: 'https://203.0.113.9/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['the unspecified address', { endpoint: 'https://0.0.0.0/x' }, 'subscription.endpoint must not point to a private, loopback, link-local or reserved address'],
    ['a too long endpoint', { endpoint: `https://push.example.net/${'a'.repeat(2100)}` }, 'subscription.endpoint is too long (maximum is 2048 characters)'],
    ['an alert that is not a boolean', { alerts: { follow: 'perhaps' } }, 'data.alerts.follow must be a boolean'],
    ['an unknown policy', { extra: { 'data[policy]': 'friends' } }, 'data.policy must be one of all, followed, follower, none'],
  ])('%s', async (_name, sub, message) => {
    const kept = await create(alice.token, { form: subscriptionForm({ endpoint: 'https://push.example.net/kept', alerts: { mention: 'true' } }) });
    const res = await create(alice.token, { form: subscriptionForm(sub) });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: `Validation failed: ${message}` });
    expect((await stored(alice.account)).map((s) => [s.id, s.endpoint])).toEqual([[kept.body.id, 'https://push.example.net/kept']]);
  });

  it('PUT with a bad alert value: 422 and the alerts unchanged', async () => {
    await create(alice.token, { form: subscriptionForm({ alerts: { mention: 'true' } }) });
    const res = await update(alice.token, { form: { 'data[alerts][mention]': 'sometimes' } });
    expect(res).toMatchObject({ status: 422, body: { error: 'Validation failed: data.alerts.mention must be a boolean' } });
    expect((await stored(alice.account))[0]!.alerts.mention).toBe(true);
  });
});

describe('a name is not resolved when subscribing (it is checked when a push is sent)', () => {
  it('stores a subscription to a host that does not resolve now: 200, and GET shows it', async () => {
    const endpoint = 'https://push.nowhere.invalid/wpush/v2/abc';
    const res = await create(alice.token, { form: subscriptionForm({ endpoint, alerts: { mention: 'true' } }) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ endpoint, alerts: { mention: true } });
    const shown = await show(alice.token);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: res.body.id, endpoint });
    expect((await stored(alice.account)).map((s) => s.endpoint)).toEqual([endpoint]);
  });

  it.each(['https://metadata.example/x', 'https://rebind.example/x', 'https://v6private.example/x'])(
    'stores %s, a name that resolves inside today: the send refuses it (push-worker.test.ts)',
    async (endpoint) => {
      const res = await create(alice.token, { form: subscriptionForm({ endpoint }) });
      expect(res.status).toBe(200);
      expect((await stored(alice.account)).map((s) => s.endpoint)).toEqual([endpoint]);
    },
  );
});

describe('loopback endpoints on the local stage (PUSH_ALLOW_LOOPBACK=1 here)', () => {
  beforeEach(() => {
    process.env.PUSH_ALLOW_LOOPBACK = '1';
  });

  it.each(['http://127.0.0.1:8080/push', 'http://[::1]:8080/push', 'http://localhost:8080/push', 'https://127.0.0.2/push'])('accepts %s', async (endpoint) => {
    const res = await create(alice.token, { form: subscriptionForm({ endpoint }) });
    expect(res.status).toBe(200);
    expect(res.body.endpoint).toBe(endpoint);
  });

  it.each([
    ['http://10.0.0.1/push', 'must not point to a private, loopback, link-local or reserved address'],
    ['https://10.0.0.1/push', 'must not point to a private, loopback, link-local or reserved address'],
    ['http://203.0.113.9/push', 'must not point to a private, loopback, link-local or reserved address'],
    ['http://151.101.1.1/push', 'must be an https URL'],
    ['https://169.254.169.254/', 'must not point to a private, loopback, link-local or reserved address'],
    ['http://user:pass@127.0.0.1:8080/push', 'must not contain credentials'],
  ])('still refuses %s', async (endpoint, reason) => {
    const res = await create(alice.token, { form: subscriptionForm({ endpoint }) });
    expect(res).toMatchObject({ status: 422, body: { error: `Validation failed: subscription.endpoint ${reason}` } });
    expect(await stored(alice.account)).toEqual([]);
  });
});

describe('the token and its subscription', () => {
  it('revoking the token (POST /oauth/revoke) removes its subscription, and only its', async () => {
    const { app, clientSecret } = await anApp();
    const doomed = await issueAccessToken(app, alice.account.id, ['push']);
    await create(doomed.raw);
    await create(alice.token);
    expect(await stored(alice.account)).toHaveLength(2);
    const res = await call(revokeHandler, { method: 'POST', path: '/oauth/revoke', form: { client_id: app.clientId, client_secret: clientSecret, token: doomed.raw } });
    expect(res).toMatchObject({ status: 200, body: {} });
    expect((await stored(alice.account)).map((s) => s.tokenId)).toEqual([expect.not.stringMatching(doomed.token.id)]);
    expect((await show(doomed.raw)).status).toBe(401);
    expect((await show(alice.token)).status).toBe(200);
  });

  it('a token revoked before the write leaves nothing behind', async () => {
    const { app, clientSecret } = await anApp();
    const { raw, token } = await issueAccessToken(app, alice.account.id, ['push']);
    await call(revokeHandler, { method: 'POST', path: '/oauth/revoke', form: { client_id: app.clientId, client_secret: clientSecret, token: raw } });
    const keys = browserKeys();
    const written = await savePushSubscription(
      { id: newId(), accountId: alice.account.id, tokenId: token.id, endpoint: 'https://push.example.net/late', ...keys, alerts: { ...NONE_ON, mention: true }, policy: 'all', sealedToken: null, createdAt: new Date().toISOString() },
      sha256(raw),
    );
    expect(written).toBe(false);
    expect(await stored(alice.account)).toEqual([]);
  });

  it('the Application entity carries the same key as vapid_key', async () => {
    const { token } = await anAppToken(['read']);
    const app = await call(verifyAppHandler, { path: '/api/v1/apps/verify_credentials', token });
    expect(app.body.vapid_key).toBe(VAPID.publicKey);
  });
});
