// Streaming as a new user meets it, on the local stack: A listens with masto's
// streaming client (WebSocket, token in Sec-WebSocket-Protocol) on `user` and
// `public`, and with a plain fetch on the server-sent-event paths; B, whom A
// follows, posts, boosts, mentions A and deletes. A receives `update`,
// `notification` and `delete` in order. Tests wait for arrival, never for time.
import { createOAuthAPIClient, createRestAPIClient, createStreamingAPIClient, type mastodon } from 'masto';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

type Person = { client: mastodon.rest.Client; me: mastodon.v1.AccountCredentials; token: string };

async function newPerson(name: string): Promise<Person> {
  const redirectUri = 'urn:ietf:wg:oauth:2.0:oob';
  const scope = 'read write follow push';
  const app = await createRestAPIClient({ url: stack.baseUrl }).v1.apps.create({ clientName: `e2e ${name}`, redirectUris: redirectUri, scopes: scope });
  const appToken = await createOAuthAPIClient({ url: stack.baseUrl }).token.create({ grantType: 'client_credentials', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri, scope });
  const username = `${name}${Date.now().toString(36)}`;
  const asApp = createRestAPIClient({ url: stack.baseUrl, accessToken: appToken.accessToken });
  const { accessToken: token } = await asApp.v1.accounts.create({ username, email: `${username}@example.com`, password: 'streaming passphrase 9', agreement: true, locale: 'en' });
  const client = createRestAPIClient({ url: stack.baseUrl, accessToken: token });
  return { client, me: await client.v1.accounts.verifyCredentials(), token };
}

/** Waits for `probe` to hold (events arrive from worker invocations); fails after `timeoutMs`. */
async function arrival<T>(probe: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What a stream carried, in arrival order, reduced to what the assertions compare. */
type Seen = { event: string; id: string; type?: string; reblogOf?: string; accountId?: string };

/**
 * Subscribing over WebSocket is a message without an answer: repeats `trigger` (something that
 * publishes to the stream) until its event comes back, which shows the subscription is in place.
 */
async function subscribed(trigger: () => Promise<unknown>, probe: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    await trigger();
    try {
      await arrival(probe, what, 2_000);
      return;
    } catch {
      // not subscribed yet: publish again
    }
  }
  throw new Error(`never subscribed: ${what}`);
}

function seenOf(event: string, payload: unknown): Seen {
  if (event === 'delete') return { event, id: String(payload) };
  const p = (payload ?? {}) as { id?: string; type?: string; reblog?: { id: string } | null; account?: { id: string }; status?: { id: string } };
  if (event === 'notification') return { event, id: p.status?.id ?? '', type: p.type, accountId: p.account?.id };
  return { event, id: p.id ?? '', reblogOf: p.reblog?.id, accountId: p.account?.id };
}

function collect(subscription: mastodon.streaming.Subscription): Seen[] {
  const seen: Seen[] = [];
  void (async () => {
    try {
      for await (const e of subscription) seen.push(seenOf(e.event, e.payload));
    } catch {
      // the client was closed
    }
  })();
  return seen;
}

/** Reads a server-sent-event response with fetch, as a plain HTTP client would. */
function sse(path: string, token: string) {
  const controller = new AbortController();
  const seen: Seen[] = [];
  let text = '';
  let status = 0;
  const reading = (async () => {
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' }, signal: controller.signal });
    status = res.status;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':') && l.includes(': ')).map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]));
        if (!fields.event) continue;
        seen.push(seenOf(fields.event, fields.event === 'delete' ? fields.data : JSON.parse(fields.data ?? 'null')));
      }
    }
  })().catch(() => undefined);
  return { seen, started: () => arrival(() => text.startsWith(':)'), `${path} to start`), status: () => status, close: async () => (controller.abort(), await reading) };
}

describe('A follows B and listens while B posts, boosts, mentions A and deletes', () => {
  let a: Person;
  let b: Person;

  beforeAll(async () => {
    [a, b] = await Promise.all([newPerson('listener'), newPerson('poster')]);
    await a.client.v1.accounts.$select(b.me.id).follow();
  }, 60_000);

  it('over WebSocket with masto\'s streaming client', async () => {
    const instance = await a.client.v1.instance.fetch();
    const streaming = createStreamingAPIClient({ streamingApiUrl: instance.urls.streamingApi, accessToken: a.token, retry: 3 });
    const user = collect(streaming.user.subscribe());
    const pub = collect(streaming.public.subscribe());
    try {
      // A filter change (user stream) and A's own post (public stream) coming back show both subscriptions work.
      await subscribed(() => a.client.v1.filters.create({ phrase: 'never used', context: ['home'] }), () => user.some((e) => e.event === 'filters_changed'), 'user');
      const own: string[] = [];
      await subscribed(
        async () => own.push((await a.client.v1.statuses.create({ status: 'listening now', visibility: 'public' })).id),
        () => pub.some((e) => own.includes(e.id)),
        'public',
      );
      const ready = { id: own[0]! };

      const post = await b.client.v1.statuses.create({ status: 'hello from B', visibility: 'public' });
      await arrival(() => user.some((e) => e.event === 'update' && e.id === post.id), 'B\'s post on user');
      await arrival(() => pub.some((e) => e.event === 'update' && e.id === post.id), 'B\'s post on public');

      const boost = await b.client.v1.statuses.$select(ready.id).reblog();
      await arrival(() => user.some((e) => e.event === 'update' && e.reblogOf === ready.id), 'the boost on user');
      await arrival(() => user.some((e) => e.event === 'notification' && e.type === 'reblog'), 'the reblog notification');

      const mention = await b.client.v1.statuses.create({ status: `@${a.me.username} look`, visibility: 'public' });
      await arrival(() => user.some((e) => e.event === 'update' && e.id === mention.id), 'the mention on user');
      await arrival(() => user.some((e) => e.event === 'notification' && e.type === 'mention' && e.id === mention.id), 'the mention notification');

      await b.client.v1.statuses.$select(mention.id).remove();
      await arrival(() => user.some((e) => e.event === 'delete' && e.id === mention.id), 'the delete on user');
      await arrival(() => pub.some((e) => e.event === 'delete' && e.id === mention.id), 'the delete on public');

      const fromB = user.filter((e) => e.event !== 'filters_changed' && e.accountId !== a.me.id);
      const at = (p: (e: Seen) => boolean) => fromB.findIndex(p);
      const order = [
        at((e) => e.event === 'update' && e.id === post.id),
        at((e) => e.event === 'update' && e.id === boost.id),
        at((e) => e.event === 'update' && e.id === mention.id),
        at((e) => e.event === 'notification' && e.type === 'mention'),
        at((e) => e.event === 'delete' && e.id === mention.id),
      ];
      // The mention's update and notification come from two workers; each precedes the delete.
      expect(order.every((i) => i >= 0)).toBe(true);
      expect(order[0]).toBeLessThan(order[1]!);
      expect(order[1]).toBeLessThan(order[2]!);
      expect(Math.max(order[2]!, order[3]!)).toBeLessThan(order[4]!);
      // Each event once per stream.
      expect(fromB.filter((e) => e.event === 'update' && e.id === post.id)).toHaveLength(1);
      expect(pub.filter((e) => e.event === 'update' && e.id === post.id)).toHaveLength(1);
      // The boost is not a public-timeline status.
      expect(pub.some((e) => e.id === boost.id)).toBe(false);
    } finally {
      streaming.close();
    }
  }, 120_000);

  it('over server-sent events with a plain HTTP client', async () => {
    const user = sse('/api/v1/streaming/user', a.token);
    const pub = sse('/api/v1/streaming/public', a.token);
    try {
      await Promise.all([user.started(), pub.started()]);
      expect([user.status(), pub.status()]).toEqual([200, 200]);

      const post = await b.client.v1.statuses.create({ status: 'hello over SSE', visibility: 'public' });
      await arrival(() => user.seen.some((e) => e.event === 'update' && e.id === post.id), 'B\'s post on user');
      await arrival(() => pub.seen.some((e) => e.event === 'update' && e.id === post.id), 'B\'s post on public');

      const boost = await b.client.v1.statuses.$select(post.id).reblog();
      await arrival(() => user.seen.some((e) => e.event === 'update' && e.id === boost.id), 'the boost on user');

      const mention = await b.client.v1.statuses.create({ status: `@${a.me.username} over SSE`, visibility: 'public' });
      await arrival(() => user.seen.some((e) => e.event === 'update' && e.id === mention.id), 'the mention on user');
      await arrival(() => user.seen.some((e) => e.event === 'notification' && e.type === 'mention' && e.id === mention.id), 'the mention notification');

      await b.client.v1.statuses.$select(mention.id).remove();
      await arrival(() => user.seen.some((e) => e.event === 'delete' && e.id === mention.id), 'the delete on user');

      const at = (p: (e: Seen) => boolean) => user.seen.findIndex(p);
      const order = [
        at((e) => e.event === 'update' && e.id === post.id),
        at((e) => e.event === 'update' && e.id === boost.id),
        at((e) => e.event === 'update' && e.id === mention.id),
        at((e) => e.event === 'notification' && e.type === 'mention'),
        at((e) => e.event === 'delete' && e.id === mention.id),
      ];
      expect(order[0]).toBeLessThan(order[1]!);
      expect(order[1]).toBeLessThan(order[2]!);
      expect(Math.max(order[2]!, order[3]!)).toBeLessThan(order[4]!);
      expect(pub.seen.filter((e) => e.event === 'update' && e.id === post.id)).toHaveLength(1);
    } finally {
      await Promise.all([user.close(), pub.close()]);
    }
  }, 120_000);
});
