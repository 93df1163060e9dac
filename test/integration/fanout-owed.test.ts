// A post's distribution is as durable as the post (lib/timelines/fanout_owed.ts): when the queue refuses the
// fan-out after the posting transaction committed, the status stands with a record that its distribution is
// owed, and the sweeper or an Idempotency-Key retry enqueues it again; the follower's home gets it once.
// The queue fails for real: the handler is pointed (lambda mode) at an invoke endpoint where nothing listens.
import { createServer } from 'node:net';
import { handler as create } from '../../functions/statuses/create';
import { handler as reblog } from '../../functions/statuses/reblog';
import { run as sweep } from '../../functions/sweeper/sweep';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { dynamo } from '../../lib/aws';
import * as keys from '../../lib/db/keys';
import { fanoutOwed } from '../../lib/db/fanout_owed';
import { statusById } from '../../lib/db/statuses';
import { registerInlineWorker } from '../../lib/queue';
import { enqueueDistribution, OWED_GRACE_MS, redriveOwedDistributions } from '../../lib/timelines/fanout_owed';
import { call } from '../support/http';
import { aFollow, aUser } from '../support/factories';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = (token: string, body: Record<string, unknown>, idempotencyKey: string) =>
  call(create, { method: 'POST', path: '/api/v1/statuses', json: body, token, headers: { 'Idempotency-Key': idempotencyKey } });

/** A local address where nothing listens: the Lambda invoke of lambda mode is refused there. */
async function deadEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/** Runs `body` with every enqueue going to a Lambda endpoint that refuses connections. */
async function withQueueDown<T>(body: () => Promise<T>): Promise<T> {
  const endpoint = await deadEndpoint();
  process.env.QUEUE_MODE = 'lambda';
  process.env.LAMBDA_ENDPOINT = endpoint;
  try {
    return await body();
  } finally {
    process.env.QUEUE_MODE = 'inline';
    delete process.env.LAMBDA_ENDPOINT;
  }
}

/** The status ids in an account's home partition. */
async function homeIds(ownerId: string): Promise<string[]> {
  const out = await dynamo().query({
    TableName: process.env.TABLE_NAME!,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.homePartition(ownerId) },
    ConsistentRead: true,
  });
  return (out.Items ?? []).map((item) => String(item.SK).replace(/^0+/, ''));
}

/** Mention notifications of `accountId` about `statusId`. */
async function mentionsOf(accountId: string, statusId: string): Promise<number> {
  const out = await dynamo().query({
    TableName: process.env.TABLE_NAME!,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.notificationsPartition(accountId) },
    ConsistentRead: true,
  });
  return (out.Items ?? []).filter((n) => n.type === 'mention' && n.statusId === statusId).length;
}

async function aFollowedAuthor() {
  const [author, follower, mentioned] = await Promise.all([aUser(), aUser(), aUser()]);
  await aFollow(follower.account, author.account);
  return { author, follower, mentioned };
}

describe('a post whose fan-out enqueue fails', () => {
  it('stands with its distribution owed, and the sweeper re-drives it once after the grace period', async () => {
    const { author, follower, mentioned } = await aFollowedAuthor();
    const res = await withQueueDown(() => post(author.token, { status: `owed to my followers @${mentioned.account.username}` }, 'sweeper-key'));
    expect(res.status).toBe(200);
    const id = String(res.body.id);
    expect(await statusById(id)).toBeDefined();
    expect(await homeIds(follower.account.id)).toEqual([]);
    expect(await mentionsOf(mentioned.account.id, id)).toBe(0);
    expect(await fanoutOwed(id)).toMatchObject({ statusId: id, redrives: 0 });

    // Within the grace period the first page may still be on its way: nothing is re-driven.
    expect((await sweep(Date.now())).distributions).toMatchObject({ redriven: 0 });
    expect(await homeIds(follower.account.id)).toEqual([]);

    const later = Date.now() + OWED_GRACE_MS + 1000;
    expect((await sweep(later)).distributions).toMatchObject({ redriven: 1 });
    expect(await homeIds(follower.account.id)).toEqual([id]);
    expect(await mentionsOf(mentioned.account.id, id)).toBe(1);
    expect(await fanoutOwed(id)).toBeUndefined();

    // Nothing is owed any more: later sweeps find nothing.
    expect((await sweep(later + 10 * OWED_GRACE_MS)).distributions).toMatchObject({ due: 0, redriven: 0 });
    expect(await homeIds(follower.account.id)).toEqual([id]);
  });

  it('is re-driven at once by a retry with the same Idempotency-Key, which answers the same status', async () => {
    const { author, follower, mentioned } = await aFollowedAuthor();
    const first = await withQueueDown(() => post(author.token, { status: `retried @${mentioned.account.username}` }, 'retry-key'));
    expect(first.status).toBe(200);
    const id = String(first.body.id);
    expect(await homeIds(follower.account.id)).toEqual([]);

    const again = await post(author.token, { status: `retried @${mentioned.account.username}` }, 'retry-key');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(id);
    expect(await homeIds(follower.account.id)).toEqual([id]);
    expect(await mentionsOf(mentioned.account.id, id)).toBe(1);
    expect(await fanoutOwed(id)).toBeUndefined();

    // A third try finds nothing owed and enqueues nothing: the home and the notification stay single.
    const third = await post(author.token, { status: `retried @${mentioned.account.username}` }, 'retry-key');
    expect(third.body.id).toBe(id);
    expect(await homeIds(follower.account.id)).toEqual([id]);
    expect(await mentionsOf(mentioned.account.id, id)).toBe(1);
  });

  it('keeps its record while the queue still refuses the re-drive, and is re-driven by a later sweep', async () => {
    const { author, follower } = await aFollowedAuthor();
    const res = await withQueueDown(() => post(author.token, { status: 'the queue is down for a while' }, 'down-key'));
    const id = String(res.body.id);
    const later = Date.now() + OWED_GRACE_MS + 1000;
    const down = await withQueueDown(() => sweep(later));
    expect(down.distributions).toMatchObject({ due: 1, redriven: 0 });
    expect(await fanoutOwed(id)).toMatchObject({ redrives: 1 });
    // The next try waits for its backoff (twice the grace period), then succeeds.
    expect((await sweep(later + OWED_GRACE_MS)).distributions).toMatchObject({ due: 0 });
    expect((await sweep(later + 2 * OWED_GRACE_MS)).distributions).toMatchObject({ redriven: 1 });
    expect(await homeIds(follower.account.id)).toEqual([id]);
    expect(await fanoutOwed(id)).toBeUndefined();
  });
});

describe('a distribution re-driven more than once', () => {
  it('gives each follower one home entry and each mentioned account one notification', async () => {
    const { author, follower, mentioned } = await aFollowedAuthor();
    const res = await post(author.token, { status: `delivered, then again @${mentioned.account.username}` }, 'twice-key');
    const id = String(res.body.id);
    expect(await homeIds(follower.account.id)).toEqual([id]);
    // The first page delivered again, as SQS may, or as a re-drive racing a slow first page would.
    await enqueueDistribution(id);
    await enqueueDistribution(id);
    expect(await homeIds(follower.account.id)).toEqual([id]);
    expect(await mentionsOf(mentioned.account.id, id)).toBe(1);
  });

  it('is taken by one of two overlapping sweeps', async () => {
    const { author, follower } = await aFollowedAuthor();
    const res = await withQueueDown(() => post(author.token, { status: 'two sweepers at once' }, 'overlap-key'));
    const id = String(res.body.id);
    const later = Date.now() + OWED_GRACE_MS + 1000;
    const runs = await Promise.all([redriveOwedDistributions(later), redriveOwedDistributions(later)]);
    expect(runs.reduce((n, r) => n + r.redriven, 0)).toBe(1);
    expect(await homeIds(follower.account.id)).toEqual([id]);
    expect(await fanoutOwed(id)).toBeUndefined();
  });
});

describe('a reblog whose fan-out enqueue fails', () => {
  it('stands with its distribution owed, and reblogging again re-drives it', async () => {
    const { author, follower } = await aFollowedAuthor();
    const other = await aUser();
    const original = await post(other.token, { status: 'boost me' }, 'original-key');
    const boost = () => call(reblog, { method: 'POST', path: `/api/v1/statuses/${String(original.body.id)}/reblog`, pathParameters: { id: String(original.body.id) }, token: author.token });
    const first = await withQueueDown(boost);
    expect(first.status).toBe(200);
    const reblogId = String(first.body.id);
    expect(await fanoutOwed(reblogId)).toMatchObject({ statusId: reblogId });
    expect(await homeIds(follower.account.id)).toEqual([]);

    const again = await boost();
    expect(again.body.id).toBe(reblogId);
    expect(await homeIds(follower.account.id)).toEqual([reblogId]);
    expect(await fanoutOwed(reblogId)).toBeUndefined();
  });
});
