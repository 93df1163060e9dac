// The push worker against a real HTTP receiver on loopback: a notification
// reaches the subscriptions that asked for its kind, encrypted to their keys
// (decrypted here with the subscription's private key, as a client does) and
// signed with the server's VAPID key, in the legacy aesgcm form unless the
// subscription is `standard` (RFC 8291 aes128gcm, RFC 8292 VAPID); each
// encoding's payload limit holds to the byte; 404/410 drop the subscription; 429/5xx are retried;
// other refusals are not; where the endpoint points is checked when sending, a
// name that does not resolve then being retried like any network failure.
import { createECDH, randomBytes } from 'node:crypto';
import { z } from 'zod';
import webpush from 'web-push';
import { handler as createHandler } from '../../functions/push/create';
import { handler as updateHandler } from '../../functions/push/update';
import { handler as pushWorker } from '../../functions/workers/push';
import { sha256 } from '../../lib/crypto';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { createNotification, notificationItem, type Notification } from '../../lib/db/notifications';
import { deletePushSubscription, pushSubscriptionsOf, savePushSubscription } from '../../lib/db/push_subscriptions';
import { query } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { notify } from '../../lib/notifications/notify';
import { pushNotification } from '../../lib/push/deliver';
import { useResolver } from '../../lib/push/endpoint';
import { pushPayload, pushTitle } from '../../lib/push/payload';
import { MAX_PAYLOAD_BYTES, MAX_PUSH_BODY, PUSH_TTL_SECONDS, sendPush } from '../../lib/push/send';
import { registerInlineWorker, sqsEvent } from '../../lib/queue';
import { MISSING_AVATAR_PATH } from '../../lib/render/account';
import { issueAccessToken } from '../../lib/tokens';
import { aBareAccount, aFollow, anApp, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call, lambdaContext } from '../support/http';
import { pushReceiver, type PushReceiver } from '../support/push-receiver';

const VAPID = webpush.generateVAPIDKeys();
let resolverTable: Record<string, string[]> = {};
/** This test's DNS: `localhost` and the names in `resolverTable`; anything else does not resolve. */
const tableResolver = async (host: string) => {
  const found = host === 'localhost' ? ['127.0.0.1'] : resolverTable[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

registerInlineWorker('push', pushWorker);

beforeAll(() => {
  process.env.VAPID_PUBLIC_KEY = VAPID.publicKey;
  process.env.VAPID_PRIVATE_KEY = VAPID.privateKey;
  useResolver(tableResolver);
});
afterAll(() => useResolver(undefined));

let alice: UserFixture;
let bob: Account;
let receiver: PushReceiver;
beforeEach(async () => {
  process.env.PUSH_ALLOW_LOOPBACK = '1';
  resolverTable = {};
  alice = await aUser();
  bob = await aBareAccount({ displayName: 'Bob Builder' });
  receiver = await pushReceiver();
});
afterEach(async () => {
  await receiver.close();
});

/** Subscribes through the API, as a client does. */
async function subscribe(token: string, alerts: Record<string, boolean>, opts: { endpoint?: string; receiver?: PushReceiver; policy?: string; standard?: boolean } = {}) {
  const to = opts.receiver ?? receiver;
  const subscription = { endpoint: opts.endpoint ?? to.endpoint, keys: to.keys, ...(opts.standard !== undefined ? { standard: opts.standard } : {}) };
  const res = await call(createHandler, {
    method: 'POST',
    path: '/api/v1/push/subscription',
    token,
    json: { subscription, data: { alerts, ...(opts.policy ? { policy: opts.policy } : {}) } },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; server_key: string; standard: boolean };
}

const notificationsOf = async (account: Account) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.notificationsPartition(account.id) } }, notificationItem)).items;

const payloadOf = (raw: string) =>
  z
    .object({
      access_token: z.string(),
      preferred_locale: z.string(),
      notification_id: z.number(),
      notification_type: z.string(),
      icon: z.string(),
      title: z.string(),
      body: z.string(),
    })
    .strict()
    .parse(JSON.parse(raw));

/** A stored favourite notification, without going through notify (for calling the worker directly). */
async function aFavouriteNotification(recipient: Account, from: Account): Promise<Notification> {
  const status = await aStoredStatus(recipient, { text: 'a post worth a star' });
  const n: Notification = { id: newId(), type: 'favourite', accountId: recipient.id, fromAccountId: from.id, statusId: status.id, createdAt: new Date().toISOString() };
  expect(await createNotification(n)).toBe(true);
  return n;
}

describe('a notification reaches the subscription', () => {
  /** Favourites a post of Alice's as Bob; answers the push request and the notification it is about. */
  async function favouritePushed() {
    const status = await aStoredStatus(alice.account, { text: 'Sunsets are\nunderrated' });
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: bob.id, statusId: status.id })).toBe('created');
    // The inline queue ran the worker before notify answered: the push has arrived.
    expect(receiver.received).toHaveLength(1);
    const [notification] = await notificationsOf(alice.account);
    return { request: receiver.received[0]!, notification: notification! };
  }

  /** What Mastodon's Web::NotificationSerializer sends for that favourite. */
  const favouritePayload = () => ({
    access_token: alice.token,
    preferred_locale: 'en',
    notification_id: expect.any(Number),
    notification_type: 'favourite',
    icon: `https://social.example${MISSING_AVATAR_PATH}`,
    title: 'Bob Builder favourited your post',
    body: 'Sunsets are\nunderrated',
  });

  it('without `standard` (the default): legacy aesgcm, salt and key in the headers, `WebPush` VAPID; the client decrypts Mastodon\'s payload', async () => {
    const sub = await subscribe(alice.token, { favourite: true });
    expect(sub.standard).toBe(false);
    const { request, notification } = await favouritePushed();
    expect(request.method).toBe('POST');
    expect(request.headers).toMatchObject({
      'content-encoding': 'aesgcm',
      'content-type': 'application/octet-stream',
      ttl: String(PUSH_TTL_SECONDS),
      urgency: 'normal',
      // A 16-byte salt, and the sender's ephemeral P-256 key with the server's VAPID key, base64url.
      encryption: expect.stringMatching(/^salt=[\w-]{22}$/),
      'crypto-key': expect.stringMatching(new RegExp(`^dh=B[\\w-]{86};p256ecdsa=${VAPID.publicKey}$`)),
    });
    expect(request.headers.authorization).toMatch(/^WebPush [\w-]+\.[\w-]+\.[\w-]+$/);
    // One record: the 2-byte padding length and the 16-byte tag around the plaintext; no header in the body.
    const raw = receiver.decrypt(request);
    expect(request.body.length).toBe(Buffer.byteLength(raw) + 2 + 16);
    // The id is an exact JSON number, as Mastodon sends it.
    expect(raw).toContain(`"notification_id":${notification.id},`);
    expect(payloadOf(raw)).toEqual(favouritePayload());
    const { scheme, claims, key } = receiver.vapid(request);
    expect(scheme).toBe('webpush');
    expect(key).toBe(sub.server_key);
    expect(key).toBe(VAPID.publicKey);
    expect(claims.aud).toBe(receiver.origin);
    expect(claims.sub).toMatch(/^mailto:/);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600 * 1000);
  });

  it('with `standard=true`: RFC 8291 aes128gcm (no Encryption or Crypto-Key header) and RFC 8292 `vapid t=, k=`; decrypted the same', async () => {
    const sub = await subscribe(alice.token, { favourite: true }, { standard: true });
    expect(sub.standard).toBe(true);
    const { request, notification } = await favouritePushed();
    expect(request.headers).toMatchObject({
      'content-encoding': 'aes128gcm',
      'content-type': 'application/octet-stream',
      ttl: String(PUSH_TTL_SECONDS),
      urgency: 'normal',
    });
    expect(request.headers).not.toHaveProperty('encryption');
    expect(request.headers).not.toHaveProperty('crypto-key');
    expect(request.headers.authorization).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${VAPID.publicKey}$`));
    const raw = receiver.decrypt(request);
    // The RFC 8188 header (salt, record size, the sender's key), the delimiter and the tag.
    expect(request.body.length).toBe(86 + Buffer.byteLength(raw) + 1 + 16);
    expect(raw).toContain(`"notification_id":${notification.id},`);
    expect(payloadOf(raw)).toEqual(favouritePayload());
    const { scheme, claims, key } = receiver.vapid(request);
    expect(scheme).toBe('vapid');
    expect(key).toBe(sub.server_key);
    expect(claims.aud).toBe(receiver.origin);
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600 * 1000);
  });

  it('the receiver is a real check: a body decrypted as the other encoding, or a VAPID key that did not sign, fails', async () => {
    await subscribe(alice.token, { favourite: true });
    const { request } = await favouritePushed();
    expect(() => receiver.decrypt({ ...request, headers: { ...request.headers, 'content-encoding': 'aes128gcm' } })).toThrow();
    const other = webpush.generateVAPIDKeys().publicKey;
    const forged = { ...request, headers: { ...request.headers, 'crypto-key': `${String(request.headers['crypto-key']).split(';')[0]};p256ecdsa=${other}` } };
    expect(() => receiver.vapid(forged)).toThrow('does not verify');
  });

  it('a subscription that PUT asked to switch keeps its encoding (only a new POST sets `standard`)', async () => {
    await subscribe(alice.token, { favourite: true }, { standard: true });
    const put = await call(updateHandler, { method: 'PUT', path: '/api/v1/push/subscription', token: alice.token, json: { subscription: { standard: false }, data: { alerts: { favourite: true } } } });
    expect(put).toMatchObject({ status: 200, body: { standard: true } });
    const { request } = await favouritePushed();
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    expect(payloadOf(receiver.decrypt(request))).toEqual(favouritePayload());
  });

  it('each subscription of the recipient gets its own access token; one without the alert gets nothing', async () => {
    const { app } = await anApp();
    const second = await issueAccessToken(app, alice.account.id, ['push']);
    const third = await issueAccessToken(app, alice.account.id, ['push']);
    const other = await pushReceiver();
    const silent = await pushReceiver();
    try {
      await subscribe(alice.token, { mention: true });
      await subscribe(second.raw, { mention: true }, { receiver: other });
      await subscribe(third.raw, { favourite: true }, { receiver: silent });
      const status = await aStoredStatus(bob, { text: `@${alice.account.username} hi` });
      await notify({ type: 'mention', accountId: alice.account.id, fromAccountId: bob.id, statusId: status.id });
      expect(payloadOf(receiver.decrypt(receiver.received[0]!.body))).toMatchObject({ access_token: alice.token, notification_type: 'mention', title: 'You were mentioned by Bob Builder' });
      expect(payloadOf(other.decrypt(other.received[0]!.body))).toMatchObject({ access_token: second.raw, notification_type: 'mention' });
      expect(silent.received).toEqual([]);
    } finally {
      await other.close();
      await silent.close();
    }
  });

  it('alerts off: nothing is sent for that kind; the kind that is on still arrives', async () => {
    await subscribe(alice.token, { favourite: false, follow: true });
    const status = await aStoredStatus(alice.account);
    await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: bob.id, statusId: status.id });
    expect(await notificationsOf(alice.account)).toHaveLength(1);
    expect(receiver.received).toEqual([]);
    await notify({ type: 'follow', accountId: alice.account.id, fromAccountId: bob.id });
    expect(receiver.received).toHaveLength(1);
    expect(payloadOf(receiver.decrypt(receiver.received[0]!.body))).toMatchObject({ notification_type: 'follow', title: 'Bob Builder is now following you' });
  });

  it('policy "followed": pushes only what comes from accounts the recipient follows', async () => {
    await subscribe(alice.token, { follow: true, mention: true }, { policy: 'followed' });
    await notify({ type: 'follow', accountId: alice.account.id, fromAccountId: bob.id });
    expect(receiver.received).toEqual([]);
    await aFollow(alice.account, bob);
    const status = await aStoredStatus(bob);
    await notify({ type: 'mention', accountId: alice.account.id, fromAccountId: bob.id, statusId: status.id });
    expect(receiver.received).toHaveLength(1);
  });

  it('a notification dismissed before the worker runs is not pushed', async () => {
    await subscribe(alice.token, { favourite: true });
    const report = await pushNotification({ accountId: alice.account.id, notificationId: newId() });
    expect(report).toEqual({ sent: 0, removed: 0, failed: 0, refused: 0, skipped: 0 });
    expect(receiver.received).toEqual([]);
  });

  it('a recipient without subscriptions costs no message: the worker is not even invoked', async () => {
    let invoked = 0;
    registerInlineWorker('push', async (event, context) => {
      invoked++;
      return pushWorker(event, context);
    });
    try {
      const status = await aStoredStatus(alice.account);
      await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: bob.id, statusId: status.id });
      expect(invoked).toBe(0);
      await subscribe(alice.token, { favourite: true });
      await notify({ type: 'reblog', accountId: alice.account.id, fromAccountId: bob.id, statusId: status.id });
      expect(invoked).toBe(1);
    } finally {
      registerInlineWorker('push', pushWorker);
    }
  });

  it('a failing push never fails the notification that caused it', async () => {
    registerInlineWorker('push', async () => {
      throw new Error('the push queue is down');
    });
    try {
      await subscribe(alice.token, { follow: true });
      expect(await notify({ type: 'follow', accountId: alice.account.id, fromAccountId: bob.id })).toBe('created');
      expect(await notificationsOf(alice.account)).toHaveLength(1);
    } finally {
      registerInlineWorker('push', pushWorker);
    }
  });
});

describe('what the push service answers', () => {
  it.each([404, 410])('%i: the subscription is removed', async (status) => {
    await subscribe(alice.token, { favourite: true });
    receiver.answer(status);
    const n = await aFavouriteNotification(alice.account, bob);
    expect(await pushNotification({ accountId: alice.account.id, notificationId: n.id })).toMatchObject({ sent: 0, removed: 1 });
    expect(receiver.received).toHaveLength(1);
    expect(await pushSubscriptionsOf(alice.account.id)).toEqual([]);
  });

  it('dropping a gone subscription spares a newer one the same token made meanwhile', async () => {
    await subscribe(alice.token, { favourite: true });
    const [old] = await pushSubscriptionsOf(alice.account.id);
    const newer = await subscribe(alice.token, { favourite: true });
    // What the worker does with the record it read before the new POST.
    expect(await deletePushSubscription(old!.accountId, old!.tokenId, old!.id)).toBeUndefined();
    expect((await pushSubscriptionsOf(alice.account.id)).map((s) => s.id)).toEqual([newer.id]);
  });

  it.each<[string, (number | { status: number; headers: Record<string, string> })[]]>([
    ['500 then 201', [500, 201]],
    ['503 twice then 201', [503, 503, 201]],
    ['429 with Retry-After, then 201', [{ status: 429, headers: { 'Retry-After': '0' } }, 201]],
  ])('%s: retried, delivered, subscription kept', async (_name, answers) => {
    await subscribe(alice.token, { favourite: true });
    receiver.answer(...answers);
    const n = await aFavouriteNotification(alice.account, bob);
    expect(await pushNotification({ accountId: alice.account.id, notificationId: n.id })).toMatchObject({ sent: 1, failed: 0 });
    expect(receiver.received).toHaveLength(answers.length);
    // Every attempt carries the same message, encrypted afresh.
    const payloads = receiver.received.map((r) => receiver.decrypt(r.body));
    expect(new Set(payloads).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.body.toString('hex'))).size).toBe(answers.length);
    expect(await pushSubscriptionsOf(alice.account.id)).toHaveLength(1);
  });

  it('5xx on every attempt: the message fails back to the queue (for a later retry), the subscription stays', async () => {
    await subscribe(alice.token, { favourite: true });
    receiver.answer(500, 502, 503);
    const n = await aFavouriteNotification(alice.account, bob);
    const event = sqsEvent('push', [{ accountId: alice.account.id, notificationId: n.id }]);
    const res = await pushWorker(event, lambdaContext());
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }]);
    expect(receiver.received).toHaveLength(3);
    expect(await pushSubscriptionsOf(alice.account.id)).toHaveLength(1);
  });

  it('another 4xx (400): no retry, the subscription stays, the message is done', async () => {
    await subscribe(alice.token, { favourite: true });
    receiver.answer(400);
    const n = await aFavouriteNotification(alice.account, bob);
    const event = sqsEvent('push', [{ accountId: alice.account.id, notificationId: n.id }]);
    expect((await pushWorker(event, lambdaContext())).batchItemFailures).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    expect(await pushSubscriptionsOf(alice.account.id)).toHaveLength(1);
  });

  it('one subscription delivered, another failing: the message is done (a redelivery would push twice)', async () => {
    const { app } = await anApp();
    const second = await issueAccessToken(app, alice.account.id, ['push']);
    const broken = await pushReceiver();
    try {
      await subscribe(alice.token, { favourite: true });
      await subscribe(second.raw, { favourite: true }, { receiver: broken });
      broken.answer(500, 500, 500);
      const n = await aFavouriteNotification(alice.account, bob);
      const event = sqsEvent('push', [{ accountId: alice.account.id, notificationId: n.id }]);
      expect((await pushWorker(event, lambdaContext())).batchItemFailures).toEqual([]);
      expect(receiver.received).toHaveLength(1);
      expect(broken.received).toHaveLength(3);
    } finally {
      await broken.close();
    }
  });

  it('a batch runs its records side by side and reports only the failing one', async () => {
    await subscribe(alice.token, { favourite: true });
    const carol = await aUser();
    const carolReceiver = await pushReceiver();
    try {
      await subscribe(carol.token, { favourite: true }, { receiver: carolReceiver });
      carolReceiver.answer(500, 500, 500);
      const a = await aFavouriteNotification(alice.account, bob);
      const c = await aFavouriteNotification(carol.account, bob);
      const event = sqsEvent('push', [
        { accountId: alice.account.id, notificationId: a.id },
        { accountId: carol.account.id, notificationId: c.id },
        { accountId: 'not an id', notificationId: c.id },
      ]);
      const res = await pushWorker(event, lambdaContext());
      expect(res.batchItemFailures).toEqual([{ itemIdentifier: event.Records[1]!.messageId }]);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await carolReceiver.close();
    }
  });
});

describe('each encoding\'s payload limit: what fits a 4096-byte body (RFC 8030), counted in bytes', () => {
  it.each<[boolean, 'aesgcm' | 'aes128gcm', number]>([
    [false, 'aesgcm', 4078],
    [true, 'aes128gcm', 3993],
  ])('standard %s (%s): %i bytes go out as a body of exactly 4096; one byte more is not sent', async (standard, encoding, limit) => {
    expect(MAX_PAYLOAD_BYTES[encoding]).toBe(limit);
    const target = { endpoint: receiver.endpoint, ...receiver.keys, standard };
    // A two-byte character last: the limit is in bytes, not characters.
    const fits = `${'x'.repeat(limit - 2)}é`;
    expect(await sendPush(target, fits, VAPID, 'mailto:admin@social.example')).toMatchObject({ kind: 'delivered', attempts: 1 });
    const request = receiver.received[0]!;
    expect(request.headers['content-encoding']).toBe(encoding);
    expect(request.body.length).toBe(MAX_PUSH_BODY);
    expect(receiver.decrypt(request)).toBe(fits);

    const over = `${'x'.repeat(limit - 1)}é`;
    expect(await sendPush(target, over, VAPID, 'mailto:admin@social.example')).toMatchObject({ kind: 'failed', transient: false, attempts: 0 });
    expect(receiver.received).toHaveLength(1);
  });

  it('a payload that fits aesgcm but not aes128gcm goes only to the legacy subscription', async () => {
    const payload = 'x'.repeat(4000);
    expect(await sendPush({ endpoint: receiver.endpoint, ...receiver.keys, standard: false }, payload, VAPID, 'mailto:admin@social.example')).toMatchObject({ kind: 'delivered' });
    expect(receiver.decrypt(receiver.received[0]!)).toBe(payload);
    expect(await sendPush({ endpoint: receiver.endpoint, ...receiver.keys, standard: true }, payload, VAPID, 'mailto:admin@social.example')).toMatchObject({ kind: 'failed', transient: false });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('the endpoint is checked again when sending', () => {
  it('a name that resolves to a private address as well is refused when sending: nothing sent, subscription kept', async () => {
    const { port } = new URL(receiver.origin);
    resolverTable['push.rebinding.test'] = ['127.0.0.1', '10.0.0.8'];
    await subscribe(alice.token, { favourite: true }, { endpoint: `http://push.rebinding.test:${port}/push` });
    const n1 = await aFavouriteNotification(alice.account, bob);
    expect(await pushNotification({ accountId: alice.account.id, notificationId: n1.id })).toMatchObject({ sent: 0, refused: 1 });
    expect(receiver.received).toEqual([]);
    expect(await pushSubscriptionsOf(alice.account.id)).toHaveLength(1);

    resolverTable['push.rebinding.test'] = ['127.0.0.1'];
    const n2 = await aFavouriteNotification(alice.account, bob);
    expect(await pushNotification({ accountId: alice.account.id, notificationId: n2.id })).toMatchObject({ sent: 1 });
    expect(receiver.received).toHaveLength(1);
  });

  it('the name is resolved only by the connection\'s own lookup, so what is checked is what is connected to (DNS rebinding)', async () => {
    const { port } = new URL(receiver.origin);
    // Subscribing resolves nothing: the name points nowhere yet.
    await subscribe(alice.token, { favourite: true }, { endpoint: `http://flip.rebinding.test:${port}/push` });
    let lookups = 0;
    useResolver(async (host) => {
      if (host !== 'flip.rebinding.test') throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      lookups++;
      return ['127.0.0.1', '10.0.0.8'];
    });
    try {
      const n = await aFavouriteNotification(alice.account, bob);
      expect(await pushNotification({ accountId: alice.account.id, notificationId: n.id })).toMatchObject({ sent: 0, refused: 1 });
      expect(lookups).toBe(1);
      expect(receiver.received).toEqual([]);
    } finally {
      useResolver(tableResolver);
    }
  });

  it('a host that does not resolve when sending: the send fails, is retried as any network failure, and the subscription survives', async () => {
    // Stored although the name resolves nowhere (POST /api/v1/push/subscription checks only the URL's form).
    const endpoint = `https://push.nowhere.invalid/wpush/${alice.account.id}`;
    await subscribe(alice.token, { favourite: true }, { endpoint });
    let lookups = 0;
    useResolver(async (host) => {
      if (host === 'push.nowhere.invalid') lookups++;
      return tableResolver(host);
    });
    try {
      const n = await aFavouriteNotification(alice.account, bob);
      // send.ts: every attempt connects again (DEFAULT_RETRY: 3 attempts with backoff), each resolving the name afresh.
      // Nothing delivered after the last attempt: deliver.ts fails the message so that the queue retries it.
      await expect(pushNotification({ accountId: alice.account.id, notificationId: n.id })).rejects.toThrow('push: 1 send(s) still failing after 3 attempts');
      expect(lookups).toBe(3);
      // Through the worker: the message fails back to the queue (batchItemFailures), which delivers it again later.
      const event = sqsEvent('push', [{ accountId: alice.account.id, notificationId: n.id }]);
      expect((await pushWorker(event, lambdaContext())).batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }]);
      expect(lookups).toBe(6);
      expect((await pushSubscriptionsOf(alice.account.id)).map((s) => s.endpoint)).toEqual([endpoint]);

      // Once the name resolves (a DNS hiccup over), the queue's next delivery gets through.
      resolverTable['push.nowhere.invalid'] = ['127.0.0.1'];
      const { port } = new URL(receiver.origin);
      await subscribe(alice.token, { favourite: true }, { endpoint: `http://push.nowhere.invalid:${port}/push` });
      expect((await pushWorker(event, lambdaContext())).batchItemFailures).toEqual([]);
      expect(receiver.received).toHaveLength(1);
    } finally {
      useResolver(tableResolver);
    }
  });

  it('a loopback endpoint is refused where loopback is not allowed', async () => {
    await subscribe(alice.token, { favourite: true });
    delete process.env.PUSH_ALLOW_LOOPBACK;
    const n = await aFavouriteNotification(alice.account, bob);
    expect(await pushNotification({ accountId: alice.account.id, notificationId: n.id })).toMatchObject({ sent: 0, refused: 1 });
    expect(receiver.received).toEqual([]);
  });

  it('a stored endpoint that was never checked (written around the API) is refused too', async () => {
    const { app } = await anApp();
    const { raw, token } = await issueAccessToken(app, alice.account.id, ['push']);
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    await savePushSubscription(
      {
        id: newId(), accountId: alice.account.id, tokenId: token.id, endpoint: 'https://169.254.169.254/latest', p256dh: ecdh.getPublicKey('base64url'),
        auth: randomBytes(16).toString('base64url'), alerts: { follow: false, follow_request: false, favourite: true, reblog: false, mention: false, status: false, update: false, poll: false, 'admin.sign_up': false, 'admin.report': false },
        policy: 'all', sealedToken: null, createdAt: new Date().toISOString(),
      },
      sha256(raw),
    );
    const n = await aFavouriteNotification(alice.account, bob);
    expect(await pushNotification({ accountId: alice.account.id, notificationId: n.id })).toMatchObject({ sent: 0, refused: 1 });
  });
});

describe('the payload text (Mastodon 3.5 English)', () => {
  const n = (type: Notification['type'], statusId: string | null = null): Notification => ({ id: '113736212345678912', type, accountId: '1', fromAccountId: '2', statusId, createdAt: new Date().toISOString() });

  it.each<[Notification['type'], string]>([
    ['mention', 'You were mentioned by Bob Builder'],
    ['reblog', 'Bob Builder boosted your post'],
    ['favourite', 'Bob Builder favourited your post'],
    ['follow', 'Bob Builder is now following you'],
    ['follow_request', 'Pending follower: Bob Builder'],
    ['poll', 'A poll by Bob Builder has ended'],
  ])('%s: "%s"', (type, title) => {
    expect(pushTitle(type, bob)).toBe(title);
  });

  it('falls back to the username without a display name', async () => {
    const plain = await aBareAccount({ displayName: '' });
    expect(pushTitle('follow', plain)).toBe(`${plain.username} is now following you`);
  });

  it('the body: content warning first, text cut at 140 characters, the bio for a follow; the id written digit for digit', async () => {
    const status = await aStoredStatus(bob, { text: 'x'.repeat(200), spoilerText: '' });
    const payload = (type: Notification['type'], s = status) =>
      JSON.parse(pushPayload({ notification: n(type, s.id), recipient: alice.account, from: { ...bob, note: 'Builds things' }, status: type === 'follow' ? undefined : s, accessToken: 't' }));
    expect(payload('favourite').body).toBe(`${'x'.repeat(137)}...`);
    expect(payload('favourite', { ...status, spoilerText: 'spoilers ahead' }).body).toBe('spoilers ahead');
    expect(payload('follow').body).toBe('Builds things');
    const raw = pushPayload({ notification: n('follow'), recipient: { ...alice.account, locale: 'de' }, from: bob, status: undefined, accessToken: 't' });
    expect(raw).toContain('"notification_id":113736212345678912,');
    expect(JSON.parse(raw).preferred_locale).toBe('de');
  });
});
