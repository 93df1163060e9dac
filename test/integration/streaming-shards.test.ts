// No hot partition on the streaming paths (issue 27): the online set and the public and hashtag channels are
// spread over STREAM_SHARDS partitions by connection id (lib/db/keys.ts), every shard is heard, and what a post
// reads of them does not grow with the number of listeners. Connections are opened through the real $connect
// handler; the Management API stand-in records frames; queued pages of the shared channels are captured and run.
import type { SQSEvent } from 'aws-lambda';
import { dynamo } from '../../lib/aws';
import { subscribersPage } from '../../lib/db/connections';
import * as keys from '../../lib/db/keys';
import { registerInlineWorker } from '../../lib/queue';
import type { FanoutMessage } from '../../lib/queue/messages';
import { fanOut } from '../../lib/timelines/fanout';
import { processFanout } from '../../lib/timelines/fanout_queue';
import { aFollow, aPostedStatus, aUser } from '../support/factories';
import { connectThroughHandler, useManagementApi } from '../support/management-api';

const frames: { connectionId: string; event: string; stream: string[] }[] = [];
useManagementApi((req, res) => {
  if (req.method === 'POST' && req.connectionId) {
    const frame = JSON.parse(req.body.toString('utf8')) as { event: string; stream: string[] };
    frames.push({ connectionId: req.connectionId, event: frame.event, stream: frame.stream });
  }
  res.writeHead(200).end();
});

const queued: FanoutMessage[] = [];
registerInlineWorker('fanout', async (event: SQSEvent) => {
  for (const r of event.Records) queued.push(JSON.parse(r.body) as FanoutMessage);
});

/** The fan-out of a status and every page it queued. */
async function fanOutAll(statusId: string) {
  await fanOut(statusId);
  while (queued.length > 0) await processFanout(queued.shift()!);
}

/** Opens anonymous connections to `stream` until every shard holds at least one; answers them by shard. */
async function oneOnEveryShard(connect: () => Promise<string>): Promise<Map<number, string>> {
  const byShard = new Map<number, string>();
  for (let tries = 0; byShard.size < keys.STREAM_SHARDS && tries < 40; tries++) {
    for (const id of await Promise.all(Array.from({ length: 10 }, connect))) if (!byShard.has(keys.shardOf(id))) byShard.set(keys.shardOf(id), id);
  }
  expect(byShard.size).toBe(keys.STREAM_SHARDS);
  return byShard;
}

/** The partitions each DynamoDB read of `run` asked for. */
async function partitionsRead(run: () => Promise<unknown>): Promise<string[]> {
  const read: string[] = [];
  const stop = dynamo().observe((op, given) => {
    const input = given as { KeyConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> };
    if (op === 'Query') read.push(String(input.ExpressionAttributeValues?.[':p'] ?? input.ExpressionAttributeValues?.[':pk']));
    else if (op === 'GetItem' || op === 'BatchGetItem') read.push(op);
  });
  try {
    await run();
  } finally {
    stop();
  }
  return read;
}

// First, while the public channels are empty: a page past SHARED_PAGE_SIZE would add a queued page's reads.
describe('what a post reads does not grow with the listeners', () => {
  /** DynamoDB reads of one public post's fan-out (every queued page run), after `listeners` more anonymous public listeners and as many online users who do not follow the author. */
  async function readsOfAPost(listeners: number): Promise<string[]> {
    await Promise.all(Array.from({ length: listeners }, () => connectThroughHandler(undefined, { stream: 'hashtag', tag: 'flatreads' })));
    for (const u of await Promise.all(Array.from({ length: listeners }, () => aUser()))) await connectThroughHandler(u.token, { stream: 'user' });
    const { account } = await aUser();
    const status = await aPostedStatus(account, { visibility: 'public', text: '#flatreads' });
    return partitionsRead(() => fanOutAll(status.id));
  }

  it('makes the same reads per post with 5 or 30 more listeners, each partition once', async () => {
    const few = await readsOfAPost(5);
    const many = await readsOfAPost(30);
    expect(many.length).toBe(few.length);
    // Every online shard and every shard of each public and hashtag channel read once, nothing twice.
    const queries = many.filter((p) => p !== 'GetItem' && p !== 'BatchGetItem');
    expect(new Set(queries).size).toBe(queries.length);
    for (let i = 0; i < keys.STREAM_SHARDS; i++) expect(queries).toContain(keys.onlineShardPartition(i));
    expect(queries).not.toContain('ONLINE');
  }, 300_000);
});

describe('the shared channels and the online set are spread over shards', () => {
  it('writes each subscription under the shard of its connection id, so a channel\'s listeners spread over many partitions', async () => {
    const ids = await Promise.all(Array.from({ length: 48 }, () => connectThroughHandler(undefined, { stream: 'hashtag', tag: 'shardspread' })));
    const channel = 'timeline:hashtag:shardspread';
    const found = new Map<number, string[]>();
    for (let shard = 0; shard < keys.STREAM_SHARDS; shard++) {
      const page = await subscribersPage(channel, shard, undefined, 1000);
      found.set(shard, page.rows.flatMap((r) => (r.sub ? [r.sub.connectionId] : [])));
    }
    for (const id of ids) expect(found.get(keys.shardOf(id))).toContain(id);
    // 48 ids over 16 shards: more than half of the shards hold some (a single partition would be one).
    expect([...found.values()].filter((f) => f.length > 0).length).toBeGreaterThan(keys.STREAM_SHARDS / 2);
    expect(keys.channelSubscription(channel, ids[0]!, 'x').PK).toBe(keys.channelShardPartition(channel, keys.shardOf(ids[0]!)));
  }, 300_000);

  it('keeps an account\'s online item in the shard of its connection id', async () => {
    const user = await aUser();
    const id = await connectThroughHandler(user.token, { stream: 'user' });
    expect(keys.onlineListener(user.account.id, id).PK).toBe(keys.onlineShardPartition(keys.shardOf(id)));
    const read = await partitionsRead(async () => {
      const { onlineListeners } = await import('../../lib/db/connections');
      expect((await onlineListeners()).get(user.account.id)?.map((l) => l.listenerId)).toEqual([id]);
    });
    expect(new Set(read)).toEqual(new Set(Array.from({ length: keys.STREAM_SHARDS }, (_, i) => keys.onlineShardPartition(i))));
  });
});

describe('a listener on any shard hears the event', () => {
  it('sends a public post to a public:local listener on every shard, over the queued pages', async () => {
    const byShard = await oneOnEveryShard(() => connectThroughHandler(undefined, { stream: 'public:local' }));
    const { account } = await aUser();
    const status = await aPostedStatus(account, { visibility: 'public' });
    await fanOutAll(status.id);
    for (const id of byShard.values()) expect(frames.filter((f) => f.connectionId === id && f.event === 'update').map((f) => f.stream)).toEqual([['public:local']]);
  }, 300_000);

  it('sends a follower\'s home update to their stream on every online shard it holds', async () => {
    const author = await aUser();
    const followers = await Promise.all(Array.from({ length: 32 }, () => aUser()));
    await Promise.all(followers.map((f) => aFollow(f.account, author.account)));
    const byShard = new Map<number, string>();
    for (const f of followers) {
      const id = await connectThroughHandler(f.token, { stream: 'user' });
      if (!byShard.has(keys.shardOf(id))) byShard.set(keys.shardOf(id), id);
    }
    // 32 connections over 16 shards: most shards hold one.
    expect(byShard.size).toBeGreaterThan(keys.STREAM_SHARDS / 2);
    const status = await aPostedStatus(author.account, { visibility: 'unlisted' });
    await fanOutAll(status.id);
    for (const id of byShard.values()) expect(frames.filter((f) => f.connectionId === id && f.event === 'update').map((f) => f.stream)).toEqual([['user']]);
  }, 300_000);
});
