// Web Push end to end on the local stack: a receiving endpoint on loopback
// holding a real P-256 key pair and auth secret subscribes through the API (as
// masto does it) for user A; user B favourites A's post; the receiver gets the
// push from the push worker, decrypts it with its private key, and checks the
// payload and the VAPID signature against the server key.
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { pushReceiver, verifyVapid, type PushReceiver } from '../support/push-receiver';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let receiver: PushReceiver;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), pushReceiver()]);
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

type User = { client: mastodon.rest.Client; me: mastodon.v1.AccountCredentials; token: string; app: mastodon.v1.Client };

async function newUser(name: string): Promise<User> {
  const anon = createRestAPIClient({ url: stack.baseUrl });
  const app = await anon.v1.apps.create({ clientName: `e2e push ${name}`, redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write follow push' });
  const oauth = createOAuthAPIClient({ url: stack.baseUrl });
  const appToken = await oauth.token.create({ grantType: 'client_credentials', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: 'urn:ietf:wg:oauth:2.0:oob', scope: 'read write follow push' });
  const username = `${name}${Date.now().toString(36)}`;
  const asApp = createRestAPIClient({ url: stack.baseUrl, accessToken: appToken.accessToken });
  const token = await asApp.v1.accounts.create({ username, email: `${username}@example.com`, password: 'push passphrase 42', agreement: true, locale: 'en' });
  const client = createRestAPIClient({ url: stack.baseUrl, accessToken: token.accessToken });
  return { client, me: await client.v1.accounts.verifyCredentials(), token: token.accessToken, app };
}

describe('a favourite reaches A\'s push endpoint', () => {
  let a: User;
  let b: User;

  beforeAll(async () => {
    a = await newUser('pusha');
    b = await newUser('pushb');
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
