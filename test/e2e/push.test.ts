// Web Push end to end on the local stack: a receiving endpoint on loopback
// holding a real P-256 key pair and auth secret subscribes through the API (as
// masto does it) for user A; user B favourites A's post; the receiver gets the
// push from the push worker, decrypts it with its private key, and checks the
// payload and the VAPID signature against the server key.
import { pushReceiver, verifyVapid, type PushReceiver } from '../support/push-receiver';
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
    expect(sub).toMatchObject({ endpoint: receiver.endpoint, alerts: { favourite: true, mention: true, follow: false, reblog: false, poll: false } });
    expect(sub.serverKey).toMatch(/^B[\w-]{86}$/);
    expect(a.app.vapidKey).toBe(sub.serverKey);
    expect(await a.client.v1.push.subscription.fetch()).toMatchObject({ id: sub.id });
  });

  it('B favourites A\'s post; the receiver decrypts Mastodon\'s payload, signed with the server key for its origin', async () => {
    const post = await a.client.v1.statuses.create({ status: 'Push me, gently', visibility: 'public' });
    await b.client.v1.statuses.$select(post.id).favourite();

    const request = await receiver.request(1, 30_000);
    expect(request.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '172800', urgency: 'normal' });
    const raw = receiver.decrypt(request.body);
    const payload = JSON.parse(raw);
    const [notification] = await a.client.v1.notifications.list({ types: ['favourite'] });
    expect(notification).toMatchObject({ type: 'favourite', account: { id: b.me.id }, status: { id: post.id } });
    expect(raw).toContain(`"notification_id":${notification!.id},`);
    expect(payload).toEqual({
      access_token: a.token,
      preferred_locale: 'en',
      notification_id: expect.any(Number),
      notification_type: 'favourite',
      icon: b.me.avatarStatic,
      title: `${b.me.displayName || b.me.username} favourited your post`,
      body: 'Push me, gently',
    });

    const { claims, key } = verifyVapid(request.headers.authorization);
    expect(key).toBe((await a.client.v1.push.subscription.fetch()).serverKey);
    expect(claims.aud).toBe(receiver.origin);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
  }, 60_000);

  it('PUT replaces the alerts; DELETE removes the subscription, and GET then answers 404', async () => {
    const updated = await a.client.v1.push.subscription.update({ data: { alerts: { mention: true } } });
    expect(updated.alerts).toMatchObject({ favourite: false, reblog: false, mention: true });
    await a.client.v1.push.subscription.remove();
    await expect(a.client.v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
  });
});
