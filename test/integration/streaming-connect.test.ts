import { randomUUID } from 'node:crypto';
import { handler as connect } from '../../functions/streaming/connect';
import { handler as disconnect } from '../../functions/streaming/disconnect';
import { handler as message } from '../../functions/streaming/message';
import { dbCalls } from '../../lib/aws/meter';
import { connectionById, MAX_STREAMS_PER_CONNECTION, onlineListeners, subscribersOf } from '../../lib/db/connections';
import { updateInstanceSettings } from '../../lib/db/instance';
import type { WebSocketEvent } from '../../lib/streaming/connections';
import { anAppToken, aUser } from '../support/factories';
import { useManagementApi } from '../support/management-api';

/** WebSocket events as API Gateway sends them to each route. */
const connectEvent = (opts: { query?: Record<string, string>; headers?: Record<string, string> } = {}): WebSocketEvent => {
  const connectionId = `${randomUUID().replace(/-/g, '').slice(0, 14)}=`;
  return {
    requestContext: { connectionId, routeKey: '$connect', eventType: 'CONNECT', requestId: randomUUID() },
    headers: { Host: 'social.example', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...opts.headers },
    queryStringParameters: opts.query ?? null,
    isBase64Encoded: false,
  };
};
const messageEvent = (connectionId: string, body: string, isBase64Encoded = false): WebSocketEvent => ({
  requestContext: { connectionId, routeKey: '$default', eventType: 'MESSAGE', requestId: randomUUID() },
  body,
  isBase64Encoded,
});
const disconnectEvent = (connectionId: string): WebSocketEvent => ({
  requestContext: { connectionId, routeKey: '$disconnect', eventType: 'DISCONNECT', requestId: randomUUID() },
  isBase64Encoded: false,
});

/** Stands in for the API Gateway Management API: records every frame posted to a connection. */
const frames: { connectionId: string; data: unknown }[] = [];
const framesFor = (connectionId: string) => frames.filter((f) => f.connectionId === connectionId).map((f) => f.data);

useManagementApi((req, res) => {
  if (req.method !== 'POST' || !req.connectionId) {
    res.writeHead(404).end();
    return;
  }
  frames.push({ connectionId: req.connectionId, data: JSON.parse(req.body.toString('utf8')) });
  res.writeHead(200).end();
});

/** One ordinary reader for the tests that only need some valid user token. */
let reader: { token: string };
beforeAll(async () => {
  reader = await aUser();
});

const open = async (opts: Parameters<typeof connectEvent>[0]) => {
  const event = connectEvent(opts);
  const res = await connect(event);
  return { id: event.requestContext.connectionId, res };
};

describe('$connect', () => {
  it('accepts a user token from the access_token query parameter and stores the connection', async () => {
    const { account, token } = await aUser();
    const before = Math.floor(Date.now() / 1000);
    const { id, res } = await open({ query: { access_token: token, stream: 'user' } });
    expect(res.statusCode).toBe(200);
    const conn = await connectionById(id);
    expect(conn).toMatchObject({ connectionId: id, accountId: account.id, streams: ['user'] });
    expect(conn!.expiresAt).toBeGreaterThanOrEqual(before + 24 * 3600);
    expect(conn!.expiresAt).toBeLessThanOrEqual(before + 24 * 3600 + 60);
    // With `read`, the user stream carries the home timeline and notifications.
    expect((await subscribersOf(`timeline:${account.id}`)).map((s) => s.connectionId)).toContain(id);
    expect((await subscribersOf(`timeline:${account.id}:notifications`)).map((s) => s.connectionId)).toContain(id);
  });

  it('accepts the token as the Sec-WebSocket-Protocol and echoes the protocol back', async () => {
    const { account, token } = await aUser();
    const { id, res } = await open({ headers: { 'Sec-WebSocket-Protocol': token } });
    expect(res).toEqual({ statusCode: 200, headers: { 'Sec-WebSocket-Protocol': token } });
    expect(await connectionById(id)).toMatchObject({ accountId: account.id, streams: [] });
  });

  it('accepts the token in an Authorization header', async () => {
    const { account, token } = await aUser();
    const { id, res } = await open({ headers: { Authorization: `Bearer ${token}` }, query: { stream: 'public:local' } });
    expect(res.statusCode).toBe(200);
    expect(await connectionById(id)).toMatchObject({ accountId: account.id, streams: ['public:local'] });
  });

  it('lets a read:statuses token subscribe to the user stream without its notifications', async () => {
    const { account, token } = await aUser({ scopes: ['read:statuses'] });
    const { id, res } = await open({ query: { access_token: token, stream: 'user' } });
    expect(res.statusCode).toBe(200);
    expect((await subscribersOf(`timeline:${account.id}`)).map((s) => s.connectionId)).toContain(id);
    expect((await subscribersOf(`timeline:${account.id}:notifications`)).map((s) => s.connectionId)).not.toContain(id);
  });

  it('keys hashtag streams by the normalized tag and frames them with the tag as sent', async () => {
    const { token } = await aUser();
    const { id, res } = await open({ query: { access_token: token, stream: 'hashtag', tag: 'Cats' } });
    expect(res.statusCode).toBe(200);
    expect((await connectionById(id))?.streams).toEqual(['hashtag|cats']);
    const subs = await subscribersOf('timeline:hashtag:cats');
    expect(subs.find((s) => s.connectionId === id)).toMatchObject({ frame: ['hashtag', 'Cats'], stream: 'hashtag|cats' });
  });

  it('accepts an anonymous connection to a public stream while public preview is on', async () => {
    const { id, res } = await open({ query: { stream: 'public' } });
    expect(res.statusCode).toBe(200);
    expect(await connectionById(id)).toMatchObject({ accountId: null, streams: ['public'] });
  });

  it('accepts an app token for public streams', async () => {
    const { token } = await anAppToken(['read']);
    const { id, res } = await open({ query: { access_token: token, stream: 'public' } });
    expect(res.statusCode).toBe(200);
    expect(await connectionById(id)).toMatchObject({ accountId: null, streams: ['public'] });
  });

  describe('refuses, storing nothing', () => {
    const cases: [string, () => Promise<Parameters<typeof connectEvent>[0]>, number][] = [
      ['an unknown token', async () => ({ query: { access_token: 'not-a-token', stream: 'public' } }), 401],
      ['an unknown token as protocol', async () => ({ headers: { 'Sec-WebSocket-Protocol': 'nope' } }), 401],
      ['an empty bearer token', async () => ({ headers: { Authorization: 'Bearer ' } }), 401],
      ['a token without a read scope', async () => ({ query: { access_token: (await aUser({ scopes: ['write'] })).token } }), 403],
      ['an unconfirmed login', async () => ({ query: { access_token: (await aUser({ confirmed: false })).token } }), 403],
      ['a login pending approval', async () => ({ query: { access_token: (await aUser({ approved: false })).token } }), 403],
      ['an unknown stream', async () => ({ query: { access_token: reader.token, stream: 'everything' } }), 400],
      ['a hashtag stream without a tag', async () => ({ query: { access_token: reader.token, stream: 'hashtag' } }), 400],
      ['a list stream without a list', async () => ({ query: { access_token: reader.token, stream: 'list' } }), 400],
      ['a list stream with a malformed id', async () => ({ query: { access_token: reader.token, stream: 'list', list: 'abc' } }), 401],
      ['an oversized tag', async () => ({ query: { access_token: reader.token, stream: 'hashtag', tag: 'x'.repeat(300) } }), 400],
      ['an anonymous user stream', async () => ({ query: { stream: 'user' } }), 401],
      ['an app token on the user stream', async () => ({ query: { access_token: (await anAppToken(['read'])).token, stream: 'user' } }), 401],
      ['a read:notifications token on the user stream', async () => ({ query: { access_token: (await aUser({ scopes: ['read:notifications'] })).token, stream: 'user' } }), 401],
    ];
    it.each(cases)('%s', async (_name, build, status) => {
      const { id, res } = await open(await build());
      expect(res.statusCode).toBe(status);
      expect(JSON.parse(res.body ?? '{}')).toEqual({ error: expect.any(String) });
      expect(await connectionById(id)).toBeUndefined();
    });

    it('an anonymous connection while public preview is off', async () => {
      await updateInstanceSettings({ publicPreview: false });
      try {
        const { id, res } = await open({ query: { stream: 'public' } });
        expect(res.statusCode).toBe(401);
        expect(await connectionById(id)).toBeUndefined();
      } finally {
        await updateInstanceSettings({ publicPreview: true });
      }
    });
  });
});

describe('$default: subscribe and unsubscribe', () => {
  it('adds and removes streams atomically and answers nothing on success', async () => {
    const { account, token } = await aUser();
    const { id } = await open({ query: { access_token: token } });
    const sub = (body: unknown) => message(messageEvent(id, JSON.stringify(body)));

    expect(await sub({ type: 'subscribe', stream: 'public' })).toEqual({ statusCode: 200 });
    expect(await sub({ type: 'subscribe', stream: 'hashtag:local', tag: 'dogs' })).toEqual({ statusCode: 200 });
    expect(await sub({ type: 'subscribe', stream: 'list', list: '12345' })).toEqual({ statusCode: 200 });
    expect(await sub({ type: 'subscribe', stream: 'direct' })).toEqual({ statusCode: 200 });
    expect(await sub({ type: 'subscribe', stream: 'public' })).toEqual({ statusCode: 200 }); // twice is once
    expect((await connectionById(id))?.streams).toEqual(['direct', 'hashtag:local|dogs', 'list|12345', 'public']);
    expect((await subscribersOf('timeline:public')).filter((s) => s.connectionId === id)).toHaveLength(1);
    expect((await subscribersOf('timeline:hashtag:dogs:local')).map((s) => s.connectionId)).toContain(id);
    // List events are published under their owner's channel: another account cannot listen in by guessing an id.
    expect((await subscribersOf(`timeline:list:${account.id}:12345`)).map((s) => s.frame)).toEqual([['list', '12345']]);
    expect((await subscribersOf(`timeline:direct:${account.id}`)).map((s) => s.connectionId)).toEqual([id]);

    expect(await sub({ type: 'unsubscribe', stream: 'public' })).toEqual({ statusCode: 200 });
    expect(await sub({ type: 'unsubscribe', stream: 'hashtag:local', tag: 'DOGS' })).toEqual({ statusCode: 200 });
    expect(await sub({ type: 'unsubscribe', stream: 'user' })).toEqual({ statusCode: 200 }); // not subscribed: nothing to do
    expect((await connectionById(id))?.streams).toEqual(['direct', 'list|12345']);
    expect((await subscribersOf('timeline:public')).map((s) => s.connectionId)).not.toContain(id);
    expect((await subscribersOf('timeline:hashtag:dogs:local')).map((s) => s.connectionId)).not.toContain(id);
    expect(framesFor(id)).toEqual([]);
  });

  it('keeps the set consistent when subscriptions race', async () => {
    const { id } = await open({ query: { access_token: reader.token } });
    const tags = ['a', 'b', 'c', 'd', 'e', 'f'];
    await Promise.all(tags.map((tag) => message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag })))));
    expect((await connectionById(id))?.streams).toEqual(tags.map((t) => `hashtag|${t}`));
  });

  it('takes several streams sent at once without one write waiting on another (issue 29: a socket\'s streams took seconds)', async () => {
    const { account, token } = await aUser();
    const { id } = await open({ query: { access_token: token } });
    const streams = [{ stream: 'user' }, { stream: 'public:local' }, { stream: 'direct' }, { stream: 'hashtag', tag: 'x' }, { stream: 'hashtag', tag: 'y' }, { stream: 'list', list: '7' }];
    dbCalls.reset();
    const answers = await Promise.all(streams.map((s) => message(messageEvent(id, JSON.stringify({ type: 'subscribe', ...s })))));
    expect(answers.map((a) => a.statusCode)).toEqual(streams.map(() => 200));
    // Each: the connection read, its set's update, the subscriptions, the online item, the access check. A transaction
    // refused for another subscribe's conflict and run again would add calls.
    expect(dbCalls.count).toBe(streams.length * 5);
    expect((await connectionById(id))?.streams).toEqual(['direct', 'hashtag|x', 'hashtag|y', 'list|7', 'public:local', 'user']);
    expect((await subscribersOf(`timeline:${account.id}:notifications`)).map((s) => s.connectionId)).toContain(id);
    expect((await subscribersOf(`timeline:direct:${account.id}`)).map((s) => s.connectionId)).toEqual([id]);
    expect(((await onlineListeners()).get(account.id) ?? []).find((l) => l.listenerId === id)?.streams).toEqual(['direct', 'hashtag|x', 'hashtag|y', 'list|7', 'public:local', 'user']);
  });

  it('holds the most streams allowed when more are sent at once: the others are refused with 429 and leave nothing behind', async () => {
    const { id } = await open({ query: { access_token: reader.token } });
    const tags = Array.from({ length: MAX_STREAMS_PER_CONNECTION + 4 }, (_, i) => `many${i}`);
    const answers = await Promise.all(tags.map((tag) => message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag })))));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(MAX_STREAMS_PER_CONNECTION);
    expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(4);
    const held = (await connectionById(id))!.streams;
    expect(held).toHaveLength(MAX_STREAMS_PER_CONNECTION);
    const refused = tags.filter((t) => !held.includes(`hashtag|${t}`));
    expect(refused).toHaveLength(4);
    for (const tag of refused) expect((await subscribersOf(`timeline:hashtag:${tag}`)).map((s) => s.connectionId)).not.toContain(id);
  });

  describe('answers an error frame and changes nothing for', () => {
    const cases: [string, string, number, boolean?][] = [
      ['malformed JSON', '{"type":"subscribe",', 400],
      ['a JSON array', '["subscribe","public"]', 400],
      ['an unknown type', '{"type":"resubscribe","stream":"public"}', 400],
      ['a missing type', '{"stream":"public"}', 400],
      ['an unknown stream', '{"type":"subscribe","stream":"firehose"}', 400],
      ['a stream of the wrong type', '{"type":"subscribe","stream":42}', 400],
      ['a hashtag without a tag', '{"type":"subscribe","stream":"hashtag"}', 400],
      ['a list without an id', '{"type":"subscribe","stream":"list"}', 400],
      ['a binary frame', Buffer.from('{"type":"subscribe","stream":"public"}').toString('base64'), 400, true],
      ['an empty frame', '', 400],
    ];
    it.each(cases)('%s', async (_name, body, status, binary = false) => {
      const { id } = await open({ query: { access_token: reader.token, stream: 'public' } });
      const res = await message(messageEvent(id, body, binary));
      expect(res.statusCode).toBe(status);
      expect(framesFor(id)).toEqual([{ error: expect.any(String), status }]);
      expect((await connectionById(id))?.streams).toEqual(['public']);
    });

    it('a stream the token may not read', async () => {
      const { token } = await aUser({ scopes: ['read:notifications'] });
      const { id } = await open({ query: { access_token: token } });
      await message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'user' })));
      expect(framesFor(id)).toEqual([{ error: 'Access token does not have the required scopes', status: 401 }]);
      expect((await connectionById(id))?.streams).toEqual([]);
      // The stream it may read works.
      await message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'user:notification' })));
      expect((await connectionById(id))?.streams).toEqual(['user:notification']);
      expect(framesFor(id)).toHaveLength(1);
    });

    it('an anonymous connection asking for a private stream', async () => {
      const { id } = await open({ query: { stream: 'public' } });
      await message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'direct' })));
      expect(framesFor(id)).toEqual([{ error: 'Access token does not have the required scopes', status: 401 }]);
      expect((await connectionById(id))?.streams).toEqual(['public']);
    });

    it('a connection that is gone', async () => {
      const id = 'gone-connection=';
      const res = await message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'public' })));
      expect(res.statusCode).toBe(410);
      expect(await connectionById(id)).toBeUndefined();
    });
  });

  it('caps the streams of one connection', async () => {
    const { id } = await open({ query: { access_token: reader.token } });
    for (let i = 0; i < 50; i++) await message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag: `t${i}` })));
    expect((await connectionById(id))?.streams).toHaveLength(50);
    const res = await message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag: 'one_too_many' })));
    expect(res.statusCode).toBe(429);
    expect(framesFor(id)).toEqual([{ error: expect.any(String), status: 429 }]);
    expect((await connectionById(id))?.streams).toHaveLength(50);
    expect((await subscribersOf('timeline:hashtag:one_too_many')).map((s) => s.connectionId)).not.toContain(id);
  });
});

describe('$disconnect', () => {
  it('deletes the connection and every subscription it held', async () => {
    const { account, token } = await aUser();
    const { id } = await open({ query: { access_token: token, stream: 'user' } });
    await message(messageEvent(id, JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag: 'bye' })));
    expect(await disconnect(disconnectEvent(id))).toEqual({ statusCode: 200 });
    expect(await connectionById(id)).toBeUndefined();
    for (const channel of [`timeline:${account.id}`, `timeline:${account.id}:notifications`, 'timeline:hashtag:bye']) {
      expect((await subscribersOf(channel)).map((s) => s.connectionId)).not.toContain(id);
    }
  });

  it('is harmless for a connection it never stored', async () => {
    expect(await disconnect(disconnectEvent('never-stored='))).toEqual({ statusCode: 200 });
  });
});
