// The fan-out worker runs one page of followers per queue message and finishes
// for any number of followers: an author with 50,000 followers, every page run
// through the worker's real handler from the very message JSON the queue was
// sent, one page delivered twice at once and one again after the chain ended.
// Every follower's home gets the entry exactly once, and the chain ends.
import type { SQSEvent } from 'aws-lambda';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import type { Account } from '../../lib/db/accounts';
import { followRecord } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { batchWrite } from '../../lib/db/table';
import { claimFanoutPage } from '../../lib/db/timelines';
import { newId } from '../../lib/ids';
import { enqueue, registerInlineWorker, sqsEvent } from '../../lib/queue';
import { FANOUT_PAGE_SIZE } from '../../lib/timelines/fanout';
import { fanoutMessage } from '../../lib/queue/messages';
import { CLAIM_STALE_MS } from '../../lib/timelines/fanout_queue';
import { aPostedStatus, aUser } from '../support/factories';
import { scanTable } from '../support/items';

// Every message the fan-out sends is kept, as the SQS queue would keep it, until the test hands it to the worker.
const queued: string[] = [];
registerInlineWorker('fanout', async (event: SQSEvent) => {
  for (const record of event.Records) queued.push(record.body);
  return { batchItemFailures: [] };
});
beforeEach(() => {
  queued.length = 0;
});

/** One SQS delivery of a queued body, to the worker's handler. */
async function deliver(body: string) {
  const event = sqsEvent('fanout', [{}]);
  event.Records[0]!.body = body;
  const res = await fanoutWorker(event);
  expect(res.batchItemFailures).toEqual([]);
}

/** Follow edges to `author` from `n` accounts (the fan-out reads only the edges): BatchWrites of 25, 8 in flight. */
async function followers(author: Account, n: number): Promise<string[]> {
  const base = Date.now() - n;
  const ids = Array.from({ length: n }, (_, i) => newId(base + i));
  const now = new Date().toISOString();
  const records = ids.map((followerId) => followRecord({ id: newId(), followerId, followedId: author.id, showReblogs: true, notify: false, createdAt: now }));
  const chunks: (typeof records)[] = [];
  for (let i = 0; i < records.length; i += 25) chunks.push(records.slice(i, i + 25));
  let next = 0;
  const lane = async () => {
    while (next < chunks.length) await batchWrite(chunks[next++]!);
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return ids;
}

/** The owners of every home entry of `statusId`, with repeats (a scan: the test's own table, once per check). */
async function homesHolding(statusId: string): Promise<string[]> {
  const owners: string[] = [];
  const filter = { FilterExpression: 'SK = :sk AND begins_with(PK, :home)', ExpressionAttributeValues: { ':sk': keys.homeEntry('0', statusId).SK, ':home': 'HOME#' } };
  await scanTable({ ...filter, ProjectionExpression: 'PK' }, (out) => {
    for (const item of out.Items ?? []) owners.push(String(item.PK));
  });
  return owners;
}

const homeOf = (accountId: string) => keys.homePartition(accountId);
const sorted = (xs: string[]) => [...xs].sort();

describe('fan-out worker: one message per page of followers', () => {
  it('writes the home entry of each of 50,000 followers exactly once, one page per message, with pages delivered twice', async () => {
    const N = 50_000;
    const author = (await aUser()).account;
    const ids = await followers(author, N);
    // A follower on a late page is also mentioned: served once, by the first page.
    const mentioned = ids[N - 10]!;
    const status = await aPostedStatus(author, { mentions: [{ id: mentioned, username: 'm', acct: 'm', url: 'https://social.example/@m' }] });

    await enqueue('fanout', { type: 'create', statusId: status.id });
    const delivered: string[] = [];
    while (queued.length > 0) {
      const body = queued.shift()!;
      delivered.push(body);
      // The third page arrives twice at the same moment, as SQS may hand out one message twice.
      if (delivered.length === 3) await Promise.all([deliver(body), deliver(body)]);
      else await deliver(body);
    }
    // A page delivered again once everything finished.
    await deliver(delivered[1]!);

    const pages = Math.ceil(N / FANOUT_PAGE_SIZE);
    const messages = delivered.map((body) => fanoutMessage.parse(JSON.parse(body)));
    // One message per page (a last, empty page when N is a multiple of the page size), each enqueued once.
    expect(messages.length).toBeGreaterThanOrEqual(pages);
    expect(messages.length).toBeLessThanOrEqual(pages + 1);
    expect(new Set(messages.map((m) => m.after ?? '')).size).toBe(messages.length);
    expect(queued).toEqual([]);

    const owners = await homesHolding(status.id);
    expect(owners.length).toBe(N + 1);
    expect(sorted(owners)).toEqual(sorted([author.id, ...ids].map(homeOf)));

    // The delete goes page by page too, and leaves no entry behind.
    await enqueue('fanout', { type: 'delete', statusId: status.id, accountId: author.id, mentionIds: [mentioned] });
    let deletes = 0;
    while (queued.length > 0) {
      await deliver(queued.shift()!);
      deletes++;
    }
    expect(deletes).toBeGreaterThanOrEqual(pages);
    expect(await homesHolding(status.id)).toEqual([]);
  }, 600_000);

  it('enqueues the next page again when the delivery that claimed it died before sending it', async () => {
    const author = (await aUser()).account;
    const ids = await followers(author, FANOUT_PAGE_SIZE + 5);
    const status = await aPostedStatus(author);
    // An earlier delivery of the first page claimed the second and was cut off (its claim is older than any live worker).
    const lastOfFirstPage = ids[FANOUT_PAGE_SIZE - 1]!;
    expect(await claimFanoutPage(status.id, 'create', lastOfFirstPage, CLAIM_STALE_MS, Date.now() - CLAIM_STALE_MS - 1000)).toBe(true);

    await deliver(JSON.stringify({ type: 'create', statusId: status.id }));
    expect(queued.map((body) => JSON.parse(body))).toEqual([{ type: 'create', statusId: status.id, after: lastOfFirstPage }]);
    await deliver(queued.shift()!);
    expect(queued).toEqual([]);
    expect((await homesHolding(status.id)).length).toBe(FANOUT_PAGE_SIZE + 6);
  }, 120_000);

  it('leaves the next page to the delivery that is sending it, and still writes its own page', async () => {
    const author = (await aUser()).account;
    const ids = await followers(author, FANOUT_PAGE_SIZE + 5);
    const status = await aPostedStatus(author);
    // Another delivery of the first page claimed the second a moment ago and is about to send it.
    expect(await claimFanoutPage(status.id, 'create', ids[FANOUT_PAGE_SIZE - 1]!, CLAIM_STALE_MS)).toBe(true);

    await deliver(JSON.stringify({ type: 'create', statusId: status.id }));
    expect(queued).toEqual([]);
    expect((await homesHolding(status.id)).length).toBe(FANOUT_PAGE_SIZE + 1);
  }, 120_000);
});
