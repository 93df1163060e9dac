// Inbox rate: received activities processed per second by one inbox worker, against dynalite
// started in this process. Each activity is a Create(Note) of a distinct id from a stored
// remote actor with 10 local followers, as the inbox endpoint enqueues it (signature already
// verified); the worker's SQS handler gets them in batches of 10, one batch after another, as
// one consumer with batchSize 10 would. Measured twice: with the fan-out left queued (the
// worker's own work: checks, the at-most-once claim, storing the Note in one transaction,
// search index, enqueueing), and with the fan-out and notify workers run inline as each
// message is sent (the 10 home entries, streams, tag counts: what a Note costs end to end).
// Replays (the same activities delivered again) are measured last.
// Usage: npx tsx bench/federation-inbox.ts        (INBOX_ACTIVITIES=500 by default)
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { federationBench, percentile, printTable } from './lib';

const COUNT = Number(process.env.INBOX_ACTIVITIES ?? 500);
const FOLLOWERS = 10;
const BATCH = 10;

async function main() {
  const emulators = await federationBench('inbox');
  // Imported after the environment points at the emulators.
  const { accountItem } = await import('../lib/db/accounts');
  const { followRecord } = await import('../lib/db/follows');
  const { createRemoteAccount } = await import('../lib/db/remote');
  const { batchWrite } = await import('../lib/db/table');
  const { AS_PUBLIC } = await import('../lib/federation/urls');
  const { newId } = await import('../lib/ids');
  const { registerInlineWorker, sqsEvent } = await import('../lib/queue');
  const { handler: inboxWorker } = await import('../functions/workers/inbox');
  const { handler: fanoutWorker } = await import('../functions/workers/fanout');
  const { handler: notifyWorker } = await import('../functions/workers/notify');

  let fanOutInline = false;
  let queuedFanouts = 0;
  registerInlineWorker('fanout', async (event: SQSEvent) => {
    if (fanOutInline) return fanoutWorker(event);
    queuedFanouts += event.Records.length;
    return { batchItemFailures: [] };
  });
  registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
  registerInlineWorker('deliver', async () => ({ batchItemFailures: [] }));

  const now = new Date().toISOString();
  const uri = 'https://remote.example/users/poster';
  const author = accountItem.parse({
    id: newId(),
    username: 'poster',
    domain: 'remote.example',
    uri,
    inboxUrl: `${uri}/inbox`,
    sharedInboxUrl: 'https://remote.example/inbox',
    followersUrl: `${uri}/followers`,
    createdAt: now,
    fetchedAt: now,
  });
  await createRemoteAccount(author);
  // The local followers: accounts and follow edges as the follow endpoint writes them.
  const followers = Array.from({ length: FOLLOWERS }, (_, i) =>
    accountItem.parse({ id: newId(), username: `local${i}`, createdAt: now, confirmedAt: now, approved: true }),
  );
  const keys = await import('../lib/db/keys');
  await batchWrite([
    ...followers.map((a) => ({ ...keys.account(a.id), ...a })),
    ...followers.map((a) => followRecord({ id: newId(), followerId: a.id, followedId: author.id, showReblogs: true, notify: false, createdAt: now })),
  ]);

  const createNote = () => {
    const id = `${uri}/statuses/${randomUUID()}`;
    return {
      id: `${id}/activity`,
      type: 'Create',
      actor: uri,
      object: { id, type: 'Note', attributedTo: uri, to: [AS_PUBLIC], cc: [`${uri}/followers`], content: '<p>bench <a href="https://remote.example/tags/bench">#bench</a></p>', tag: { type: 'Hashtag', name: '#bench' }, published: new Date().toISOString() },
    };
  };
  const messageOf = (activity: Record<string, unknown>) => ({ activity, signer: uri, receivedAt: new Date().toISOString() });

  /** Hands `messages` to the worker in batches of BATCH, one after another; answers the time of each batch. */
  const run = async (messages: unknown[]) => {
    const batches: number[] = [];
    for (let i = 0; i < messages.length; i += BATCH) {
      const t = performance.now();
      const res = await inboxWorker(sqsEvent('inbox', messages.slice(i, i + BATCH)));
      batches.push(performance.now() - t);
      if (res.batchItemFailures.length > 0) throw new Error(`${res.batchItemFailures.length} activities failed`);
    }
    const ms = batches.reduce((a, b) => a + b, 0);
    return { ms, batches };
  };

  const rows: Record<string, string | number>[] = [];
  const row = (name: string, count: number, r: { ms: number; batches: number[] }) =>
    rows.push({
      run: name,
      activities: count,
      'total ms': Math.round(r.ms),
      'activities/s': Math.round((count / r.ms) * 1000),
      'ms/activity': Number((r.ms / count).toFixed(2)),
      [`batch of ${BATCH} p50 ms`]: Math.round(percentile(r.batches, 50)),
      [`batch of ${BATCH} max ms`]: Math.round(percentile(r.batches, 100)),
    });
  try {
    await run(Array.from({ length: 20 }, () => messageOf(createNote()))); // warm-up: connections, modules
    const queued = Array.from({ length: COUNT }, () => messageOf(createNote()));
    row('Create(Note), fan-out queued', COUNT, await run(queued));
    fanOutInline = true;
    const inline = Array.from({ length: COUNT }, () => messageOf(createNote()));
    row(`Create(Note) + fan-out to ${FOLLOWERS} followers inline`, COUNT, await run(inline));
    row('the same activities again (replays)', COUNT, await run(inline));
  } finally {
    await emulators.stop();
  }
  process.stdout.write(`\nInbox worker against dynalite (in-process; one worker, batches of ${BATCH} one after another; ${queuedFanouts} fan-outs left queued in the first run):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
