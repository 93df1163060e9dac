// Web Push end to end on the local stack: a receiving endpoint on loopback
// holding a real P-256 key pair and auth secret subscribes through the API (as
// masto does it) for user A; user B favourites A's post; the receiver gets the
// push from the push worker, decrypts it with its private key, and checks the
// payload and the VAPID signature against the server key. Subscribed as masto
// does (no `standard`), the push is the legacy aesgcm one Ice Cubes and
// Mastodon's Android app decrypt; subscribed again with `standard: true`
// (Mastodon 4.4), it is RFC 8291 aes128gcm with RFC 8292 VAPID.
import { pushReceiver, type PushReceiver } from '../support/push-receiver';
import { newUser, type MastoUser } from '../support/masto';
import { useStack } from '../support/stack';

const stack = useStack();
let receiver: PushReceiver;

beforeAll(async () => {
  receiver = await pushReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

describe('a favourite reaches A\'s push endpoint', () => {
  let a: MastoUser;
  let b: MastoUser;

  beforeAll(async () => {
    a = await newUser(stack().baseUrl, 'pusha');
    b = await newUser(stack().baseUrl, 'pushb');
  }, 60_000);

  it('A subscribes with the receiver\'s keys; the server key is the application\'s vapid_key', async () => {
    const sub = await a.client.v1.push.subscription.create({
      subscription: { endpoint: receiver.endpoint, keys: receiver.keys },
      data: { alerts: { favourite: true, mention: true } },
      policy: 'all',
    });
    expect(sub).toMatchObject({ endpoint: receiver.endpoint, standard: false, alerts: { favourite: true, mention: true, follow: false, reblog: false, poll: false } });
    expect(sub.serverKey).toMatch(/^B[\w-]{86}$/);
    expect(a.app.vapidKey).toBe(sub.serverKey);
    expect(await a.client.v1.push.subscription.fetch()).toMatchObject({ id: sub.id });
  });

  /** B favourites a post of A's; answers the nth push request and the notification it is about. */
  async function favourited(nth: number, text: string) {
    const post = await a.client.v1.statuses.create({ status: text, visibility: 'public' });
    await b.client.v1.statuses.$select(post.id).favourite();
    const request = await receiver.request(nth, 30_000);
    const [notification] = await a.client.v1.notifications.list({ types: ['favourite'] });
    expect(notification).toMatchObject({ type: 'favourite', account: { id: b.me.id }, status: { id: post.id } });
    return { request, notification: notification! };
  }

  const expectedPayload = (body: string) => ({
    access_token: a.token,
    preferred_locale: 'en',
    notification_id: expect.any(Number),
    notification_type: 'favourite',
    icon: b.me.avatarStatic,
    title: `${b.me.displayName || b.me.username} favourited your post`,
    body,
  });

  it('B favourites A\'s post; the receiver decrypts Mastodon\'s payload from legacy aesgcm, signed (`WebPush`) with the server key for its origin', async () => {
    const { request, notification } = await favourited(1, 'Push me, gently');
    expect(request.headers).toMatchObject({ 'content-encoding': 'aesgcm', ttl: '172800', urgency: 'normal', encryption: expect.stringMatching(/^salt=/), 'crypto-key': expect.stringMatching(/^dh=[\w-]+;p256ecdsa=[\w-]+$/) });
    const raw = receiver.decrypt(request);
    expect(raw).toContain(`"notification_id":${notification.id},`);
    expect(JSON.parse(raw)).toEqual(expectedPayload('Push me, gently'));

    const { scheme, claims, key } = receiver.vapid(request);
    expect(scheme).toBe('webpush');
    expect(key).toBe((await a.client.v1.push.subscription.fetch()).serverKey);
    expect(claims.aud).toBe(receiver.origin);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
  }, 60_000);

  it('subscribed again with `standard: true`: the next push is aes128gcm with `vapid t=, k=`, decrypted the same', async () => {
    // masto's types predate Mastodon 4.4's field; it sends what it is given.
    const params = { subscription: { endpoint: receiver.endpoint, keys: receiver.keys, standard: true }, data: { alerts: { favourite: true, mention: true } }, policy: 'all' };
    const sub = await a.client.v1.push.subscription.create(params as Parameters<typeof a.client.v1.push.subscription.create>[0]);
    expect(sub).toMatchObject({ endpoint: receiver.endpoint, standard: true });

    const { request, notification } = await favourited(2, 'Push me, by the book');
    expect(request.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '172800', urgency: 'normal' });
    expect(request.headers).not.toHaveProperty('crypto-key');
    const raw = receiver.decrypt(request);
    expect(raw).toContain(`"notification_id":${notification.id},`);
    expect(JSON.parse(raw)).toEqual(expectedPayload('Push me, by the book'));
    const { scheme, key } = receiver.vapid(request);
    expect(scheme).toBe('vapid');
    expect(key).toBe(sub.serverKey);
  }, 60_000);

  it('PUT replaces the alerts; DELETE removes the subscription, and GET then answers 404', async () => {
    const updated = await a.client.v1.push.subscription.update({ data: { alerts: { mention: true } } });
    expect(updated.alerts).toMatchObject({ favourite: false, reblog: false, mention: true });
    await a.client.v1.push.subscription.remove();
    await expect(a.client.v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
  });
});
