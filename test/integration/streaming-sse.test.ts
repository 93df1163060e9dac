// Server-sent events: the per-channel event log (lib/db/stream_log.ts), what the
// publisher logs for SSE listeners, and the SSE handler itself, run as Lambda
// runs a streamed handler (infra/local/lambda-stream.ts) behind a function URL.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FunctionUrlResponse, installAwslambda, invokeStreamed, lambdaContext, type ResponseHead } from '../../infra/local/lambda-stream';
import { saveSseListener, subscribersOf, onlineAccounts } from '../../lib/db/connections';
import { addFavourite } from '../../lib/db/interactions';
import { statusById } from '../../lib/db/statuses';
import { updateInstanceSettings } from '../../lib/db/instance';
import { appendStreamEvents, streamEventsAfter, STREAM_LOG_TTL_SECONDS } from '../../lib/db/stream_log';
import * as keys from '../../lib/db/keys';
import { putItem } from '../../lib/db/table';
import { handler as createFilterHandler } from '../../functions/filters/create';
import { block } from '../../lib/graph/blocks';
import { idAt, newId } from '../../lib/ids';
import { notify } from '../../lib/notifications/notify';
import { renderStatus } from '../../lib/render/status';
import { bindingFor, channels } from '../../lib/streaming/connections';
import { openSseSession, serveSse } from '../../lib/streaming/sse';
import { fanOut, fanOutDelete } from '../../lib/timelines/fanout';
import { aFollow, anAppToken, aPostedStatus, aUser } from '../support/factories';
import { arrival } from '../support/arrival';
import { call } from '../support/http';
import { useManagementApi } from '../support/management-api';

installAwslambda();
type Handler = Parameters<typeof invokeStreamed>[0];
let handler: Handler;
beforeAll(async () => {
  // streamHttp looks for the runtime's globals when the handler module loads.
  ({ handler } = await import('../../functions/streaming/sse'));
});

// The WebSocket side of every publish goes to a stand-in Management API that accepts everything.
useManagementApi((_req, res) => res.writeHead(200).end());

type SseEvent = { event: string; data: string; id: string };

/** Parses what a client received: events (blank-line separated blocks) and comment lines. */
function parse(text: string): { events: SseEvent[]; comments: string[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  for (const block of text.split('\n\n')) {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line);
      else if (line.includes(': ')) fields[line.slice(0, line.indexOf(': '))] = line.slice(line.indexOf(': ') + 2);
    }
    if (fields.event) events.push({ event: fields.event, data: fields.data ?? '', id: fields.id ?? '' });
  }
  return { events, comments };
}

type Opened = {
  head: () => ResponseHead | undefined;
  text: () => string;
  events: () => SseEvent[];
  ended: () => boolean;
  close: () => Promise<void>;
  settled: Promise<void>;
};

/** A GET to the SSE function as a function URL hands it over; the response is read as it streams. */
function open(path: string, opts: { token?: string; query?: Record<string, string>; headers?: Record<string, string>; timeoutMs?: number } = {}): Opened {
  const rawQueryString = new URLSearchParams(opts.query ?? {}).toString();
  const headers: Record<string, string> = { host: 'streaming.social.example', ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString,
    headers,
    ...(rawQueryString ? { queryStringParameters: opts.query } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'test',
      domainName: 'streaming.social.example',
      domainPrefix: 'streaming',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
  let head: ResponseHead | undefined;
  let text = '';
  let ended = false;
  const decoder = new TextDecoder();
  const sink = new FunctionUrlResponse({
    head: (h) => (head = h),
    body: (chunk) => (text += decoder.decode(chunk, { stream: true })),
    end: () => (ended = true),
  });
  const invocation = invokeStreamed(handler, event, lambdaContext({ functionName: 'streamingEvents', timeoutMs: opts.timeoutMs ?? 900_000 }), sink);
  return {
    head: () => head,
    text: () => text,
    events: () => parse(text).events,
    ended: () => ended,
    settled: invocation.settled,
    close: async () => {
      invocation.abort();
      await invocation.settled;
    },
  };
}

const started = (s: Opened) => arrival(() => s.text().startsWith(':)\n'), 'the stream to start');

describe('the event log', () => {
  it('answers a channel\'s entries after an id, oldest first, and leaves out expired ones', async () => {
    const channel = `timeline:test:${randomUUID()}`;
    const ids = [newId(Date.now() - 3000), newId(Date.now() - 2000), newId(Date.now() - 1000)];
    await appendStreamEvents(ids.map((id, i) => ({ channel, id, event: 'delete' as const, payload: String(i), shared: null })));
    await appendStreamEvents([{ channel: `${channel}:other`, id: newId(), event: 'delete', payload: 'x', shared: null }]);
    expect((await streamEventsAfter(channel, '0')).map((e) => e.id)).toEqual(ids);
    expect((await streamEventsAfter(channel, ids[0]!)).map((e) => e.payload)).toEqual(['1', '2']);
    expect((await streamEventsAfter(channel, ids[0]!, 1)).map((e) => e.payload)).toEqual(['1']);
    expect(await streamEventsAfter(channel, ids[2]!)).toEqual([]);
    // TTL deletion is lazy: an entry past its expiry is not answered even while it is still stored.
    const stale = newId(Date.now() - 500);
    await putItem({ ...keys.streamLogEntry(channel, stale), channel, id: stale, event: 'delete', payload: 'stale', shared: null, expiresAt: Math.floor(Date.now() / 1000) - 1 });
    expect((await streamEventsAfter(channel, ids[2]!)).map((e) => e.payload)).toEqual([]);
    const [first] = await streamEventsAfter(channel, '0');
    expect(first!.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + STREAM_LOG_TTL_SECONDS - 30);
  });

  it('is written only for channels with a server-sent-event listener', async () => {
    const author = await aUser();
    const tag = `logged${Date.now().toString(36)}`;
    const quiet = `quiet${Date.now().toString(36)}`;
    const binding = bindingFor({ stream: 'hashtag', tag }, { accountId: null, scopes: [] });
    await saveSseListener({ listenerId: `sse-${randomUUID()}`, accountId: null }, [binding]);
    const status = await aPostedStatus(author.account, { tags: [tag, quiet] });
    await fanOut(status.id);
    const logged = await streamEventsAfter(channels.hashtag(tag), '0');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ event: 'update', shared: { accountIds: [author.account.id] } });
    expect(JSON.parse(logged[0]!.payload!)).toEqual(JSON.parse(JSON.stringify(await renderStatus(status, undefined))));
    expect(await streamEventsAfter(channels.hashtag(quiet), '0')).toEqual([]);
    expect(await streamEventsAfter(channels.hashtagLocal(quiet), '0')).toEqual([]);
  });

  it('registers a listener with a TTL, and an online item for its account', async () => {
    const { account } = await aUser();
    const listenerId = `sse-${randomUUID()}`;
    const binding = bindingFor({ stream: 'user' }, { accountId: account.id, scopes: ['read'] });
    await saveSseListener({ listenerId, accountId: account.id }, [binding], 60);
    const subs = (await subscribersOf(channels.home(account.id))).filter((s) => s.connectionId === listenerId);
    expect(subs).toEqual([expect.objectContaining({ kind: 'sse', frame: ['user'], accountId: account.id })]);
    expect(subs[0]!.expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 60);
    expect(await onlineAccounts()).toContain(account.id);
  });
});

describe('GET /api/v1/streaming/* over server-sent events', () => {
  describe('refuses with {"error"} and its status', () => {
    const cases: [string, () => Promise<{ path: string; token?: string; query?: Record<string, string> }>, number][] = [
      ['the user stream without a token', async () => ({ path: '/api/v1/streaming/user' }), 401],
      ['an unknown token', async () => ({ path: '/api/v1/streaming/public', token: 'not-a-token' }), 401],
      ['an unknown access_token parameter', async () => ({ path: '/api/v1/streaming/public', query: { access_token: 'nope' } }), 401],
      ['a token without a read scope', async () => ({ path: '/api/v1/streaming/public', token: (await aUser({ scopes: ['write'] })).token }), 403],
      ['an unconfirmed login', async () => ({ path: '/api/v1/streaming/user', token: (await aUser({ confirmed: false })).token }), 403],
      ['an app token on the user stream', async () => ({ path: '/api/v1/streaming/user', token: (await anAppToken(['read'])).token }), 401],
      ['a read:notifications token on the direct stream', async () => ({ path: '/api/v1/streaming/direct', token: (await aUser({ scopes: ['read:notifications'] })).token }), 401],
      ['a hashtag stream without a tag', async () => ({ path: '/api/v1/streaming/hashtag' }), 400],
      ['a list stream without a list', async () => ({ path: '/api/v1/streaming/list', token: (await aUser()).token }), 400],
      ['a list stream with a malformed id', async () => ({ path: '/api/v1/streaming/list', token: (await aUser()).token, query: { list: 'abc' } }), 401],
      ['an unknown stream path', async () => ({ path: '/api/v1/streaming/everything' }), 404],
    ];
    it.each(cases)('%s', async (_name, build, status) => {
      const req = await build();
      const s = open(req.path, req);
      await s.settled;
      expect(s.head()?.statusCode).toBe(status);
      expect(JSON.parse(s.text())).toEqual({ error: expect.any(String) });
    });

    it('an anonymous public stream while public preview is off', async () => {
      await updateInstanceSettings({ publicPreview: false });
      try {
        const s = open('/api/v1/streaming/public');
        await s.settled;
        expect(s.head()?.statusCode).toBe(401);
        // With a token it is fine.
        const withToken = open('/api/v1/streaming/public', { token: (await aUser()).token });
        await started(withToken);
        expect(withToken.head()?.statusCode).toBe(200);
        await withToken.close();
      } finally {
        await updateInstanceSettings({ publicPreview: true });
      }
    });
  });

  it('streams update, notification and delete of the user stream, in order, as event/data/id lines', async () => {
    const [reader, author] = await Promise.all([aUser(), aUser()]);
    await aFollow(reader.account, author.account);
    const s = open('/api/v1/streaming/user', { token: reader.token });
    await started(s);
    expect(s.head()).toMatchObject({ statusCode: 200, headers: expect.objectContaining({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' }) });

    const mention = { id: reader.account.id, username: reader.account.username, acct: reader.account.username, url: 'https://social.example/@r' };
    const status = await aPostedStatus(author.account, { mentions: [mention] });
    await fanOut(status.id);
    await notify({ type: 'mention', accountId: reader.account.id, fromAccountId: author.account.id, statusId: status.id });
    await fanOutDelete(status.id, author.account.id, [reader.account.id]);
    const events = await arrival(() => s.events().length >= 3 && s.events(), 'three events');
    await s.close();

    expect(events.map((e) => e.event)).toEqual(['update', 'notification', 'delete']);
    expect(JSON.parse(events[0]!.data)).toEqual(JSON.parse(JSON.stringify(await renderStatus(status, reader.account))));
    expect(JSON.parse(events[1]!.data)).toMatchObject({ type: 'mention', account: { id: author.account.id }, status: { id: status.id } });
    expect(events[2]!.data).toBe(status.id);
    // Ids are snowflakes, increasing, so Last-Event-ID resumes.
    const ids = events.map((e) => BigInt(e.id));
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
    expect(s.text()).toMatch(/^:\)\nevent: update\ndata: \{.*\}\nid: \d+\n\n/);
  });

  it('takes the token from the access_token parameter, and sends filters_changed with Mastodon\'s undefined payload', async () => {
    const reader = await aUser();
    const s = open('/api/v1/streaming/user', { query: { access_token: reader.token } });
    await started(s);
    // Through the endpoint, which publishes once the filter is written.
    const created = await call(createFilterHandler, { method: 'POST', path: '/api/v1/filters', token: reader.token, json: { phrase: 'x', context: ['home'] } });
    expect(created.status).toBe(200);
    const [event] = await arrival(() => s.events().length >= 1 && s.events(), 'filters_changed');
    await s.close();
    expect(event).toMatchObject({ event: 'filters_changed', data: 'undefined' });
  });

  it('gives each reader of a public stream its own flags and hides what its blocks hide', async () => {
    const [author, fan, blocker] = await Promise.all([aUser(), aUser(), aUser()]);
    await block(blocker.account, author.account.id);
    const anonymous = open('/api/v1/streaming/public/local');
    const fanStream = open('/api/v1/streaming/public/local', { token: fan.token });
    const blockerStream = open('/api/v1/streaming/public/local', { token: blocker.token });
    await Promise.all([started(anonymous), started(fanStream), started(blockerStream)]);

    const status = await aPostedStatus(author.account);
    // Favourited before the fan-out runs (as a reblog's original would be): the fan's copy says so.
    await addFavourite(fan.account.id, status.id);
    await fanOut(status.id);
    const marker = await aPostedStatus(fan.account);
    await fanOut(marker.id);
    // Everyone sees the marker (posted after), so by then the status was or was not sent to each.
    for (const s of [anonymous, fanStream, blockerStream]) await arrival(() => s.events().some((e) => e.data.includes(marker.id)), 'the marker');
    await Promise.all([anonymous.close(), fanStream.close(), blockerStream.close()]);

    const updatesOf = (s: Opened) => s.events().map((e) => JSON.parse(e.data) as { id: string; favourited: boolean });
    expect(updatesOf(anonymous).filter((u) => u.id === status.id)).toEqual([expect.objectContaining({ favourited: false })]);
    expect(updatesOf(fanStream).filter((u) => u.id === status.id)).toEqual([JSON.parse(JSON.stringify(await renderStatus((await statusById(status.id))!, fan.account)))]);
    expect(updatesOf(fanStream).find((u) => u.id === status.id)?.favourited).toBe(true);
    expect(updatesOf(blockerStream).map((u) => u.id)).toEqual([marker.id]);
  });

  it('resumes after Last-Event-ID with what was published while the client reconnected', async () => {
    const [reader, author] = await Promise.all([aUser(), aUser()]);
    await aFollow(reader.account, author.account);
    const first = open('/api/v1/streaming/user', { token: reader.token });
    await started(first);
    const one = await aPostedStatus(author.account);
    await fanOut(one.id);
    const [seen] = await arrival(() => first.events().length >= 1 && first.events(), 'the first status');
    await first.close();

    const two = await aPostedStatus(author.account);
    await fanOut(two.id);

    const again = open('/api/v1/streaming/user', { token: reader.token, headers: { 'last-event-id': seen!.id } });
    const events = await arrival(() => again.events().length >= 1 && again.events(), 'the missed status');
    await again.close();
    expect(events.map((e) => (JSON.parse(e.data) as { id: string }).id)).toEqual([two.id]);

    // Without Last-Event-ID, a new connection starts from now.
    const fresh = open('/api/v1/streaming/user', { token: reader.token });
    await started(fresh);
    const three = await aPostedStatus(author.account);
    await fanOut(three.id);
    const latest = await arrival(() => fresh.events().length >= 1 && fresh.events(), 'the new status');
    await fresh.close();
    expect(latest.map((e) => (JSON.parse(e.data) as { id: string }).id)).toEqual([three.id]);
  });

  it('ends the response before the invocation\'s time limit, so the client reconnects', async () => {
    const reader = await aUser();
    // 5 s is the wrapper's margin: with 5.5 s left, the stream ends after about half a second.
    const s = open('/api/v1/streaming/public', { token: reader.token, timeoutMs: 5_500 });
    await s.settled;
    expect(s.ended()).toBe(true);
    expect(s.head()?.statusCode).toBe(200);
    expect(s.text().startsWith(':)\n')).toBe(true);
  });
});

describe('serveSse', () => {
  it('writes a heartbeat comment when nothing else went out for the heartbeat interval', async () => {
    const session = openSseSession({ stream: 'public' }, { accountId: null, scopes: [] });
    const controller = new AbortController();
    let text = '';
    const serving = serveSse(session, undefined, { signal: controller.signal, write: async (chunk) => ((text += chunk), true) }, { heartbeatMs: 1, pollMs: 5 });
    await arrival(() => text.includes(':thump\n'), 'a heartbeat');
    controller.abort();
    await serving;
    expect(text.startsWith(':)\n')).toBe(true);
  });

  it('ends a response that has lasted its maximum, so that an abandoned stream stops costing', async () => {
    const session = openSseSession({ stream: 'public' }, { accountId: null, scopes: [] });
    let text = '';
    // Never aborted: only the maximum ends it.
    await serveSse(session, undefined, { signal: new AbortController().signal, write: async (chunk) => ((text += chunk), true) }, { maxMs: 50, pollMs: 5 });
    expect(text.startsWith(':)\n')).toBe(true);
  });

  it('ignores a malformed Last-Event-ID and never reads before what the log keeps', async () => {
    const channel = channels.public('public:remote');
    const old = idAt(Date.now() - (STREAM_LOG_TTL_SECONDS + 60) * 1000);
    await putItem({ ...keys.streamLogEntry(channel, old), channel, id: old, event: 'delete', payload: 'too old', shared: null, expiresAt: Math.floor(Date.now() / 1000) + 60 });
    for (const lastEventId of ['not-an-id', '0']) {
      const session = openSseSession({ stream: 'public:remote' }, { accountId: null, scopes: [] });
      const controller = new AbortController();
      let text = '';
      const serving = serveSse(session, undefined, { signal: controller.signal, write: async (chunk) => ((text += chunk), true) }, { lastEventId, pollMs: 5, heartbeatMs: 1 });
      // A heartbeat goes out after a poll: two of them mean the log was read at least twice.
      await arrival(() => text.split(':thump').length > 2, 'two polls');
      controller.abort();
      await serving;
      expect(text).not.toContain('too old');
    }
  });
});
