// Streaming as a new user meets it, on the local stack: A listens with masto's
// streaming client (WebSocket, token in Sec-WebSocket-Protocol) on `user` and
// `public`, and with a plain fetch on the server-sent-event paths; B, whom A
// follows, posts, boosts, mentions A and deletes. A receives `update`,
// `notification` and `delete` in order. Tests wait for arrival, never for time.
import { createStreamingAPIClient, type mastodon } from 'masto';
import { arrival } from '../support/arrival';
import { collectEvents, newUser, type MastoUser } from '../support/masto';
import { useStack } from '../support/stack';

const stack = useStack();

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

const collect = (subscription: mastodon.streaming.Subscription) => collectEvents(subscription, seenOf);

/** Reads a server-sent-event response with fetch, as a plain HTTP client would. */
function sse(path: string, token: string) {
  const controller = new AbortController();
  const seen: Seen[] = [];
  let text = '';
  let status = 0;
  const reading = (async () => {
    const res = await fetch(`${stack().baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' }, signal: controller.signal });
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
  let a: MastoUser;
  let b: MastoUser;

  beforeAll(async () => {
    [a, b] = await Promise.all([newUser(stack().baseUrl, 'listener'), newUser(stack().baseUrl, 'poster')]);
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
