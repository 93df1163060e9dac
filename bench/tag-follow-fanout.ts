// What a followed hashtag costs the fan-out: DynamoDB calls and time of the first fan-out page of a public
// status whose author has no followers, for N local accounts following its tag (none following the author),
// and of its deletion, which removes those home entries again. Against dynalite and s3rver started in this
// process (bench/fanout.ts's setup); messages run one after another, as SQS with a batch size of 1 would.
// Usage: npx tsx bench/tag-follow-fanout.ts        (TAG_FOLLOWERS=100,1000,5000 by default)
import { randomBytes } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, printTable } from './lib';

const SIZES = (process.env.TAG_FOLLOWERS ?? '100,1000,5000').split(',').map(Number);

async function main() {
  const emulators = await inProcessEmulators();
  process.env.QUEUE_MODE = 'inline';
  // Imported after the environment points at the emulators.
  const { meterDb } = await import('../lib/aws');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { tagFollowRecords } = await import('../lib/db/tag_follows');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { registerInlineWorker } = await import('../lib/queue');
  const { fanoutMessage } = await import('../lib/queue/messages');
  const { processFanout } = await import('../lib/timelines/fanout_queue');
  const { MAX_TAG_FOLLOWERS, TAG_FOLLOWERS_PAGE } = await import('../lib/timelines/fanout_tags');

  const queued: string[] = [];
  for (const queue of ['fanout', 'cards', 'deliver', 'notify'] as const) {
    registerInlineWorker(queue, async (event: SQSEvent) => {
      if (queue === 'fanout') for (const r of event.Records) queued.push(r.body);
      return { batchItemFailures: [] };
    });
  }
  /** Runs `first` and every page it leads to, counting DynamoDB calls (and writes) of all of them. */
  const chain = async (first: unknown) => {
    queued.push(JSON.stringify(first));
    const meter = { calls: 0, writes: 0 };
    const started = performance.now();
    let pages = 0;
    while (queued.length > 0) {
      const message = fanoutMessage.parse(JSON.parse(queued.shift()!));
      await meterDb(meter, () => processFanout(message));
      pages++;
    }
    return { ...meter, pages, ms: performance.now() - started };
  };

  const rows: Record<string, string | number>[] = [];
  try {
    for (const n of SIZES) {
      process.env.TABLE_NAME = `tagfanout-${n}-${randomBytes(3).toString('hex')}`;
      await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
      const now = new Date().toISOString();
      const tag = 'benchtag';
      const records = Array.from({ length: n }, (_, i) =>
        tagFollowRecords({ id: newId(), accountId: newId(Date.now() - n + i), tag, name: tag, createdAt: now }),
      ).flat();
      for (let i = 0; i < records.length; i += 25) await batchWrite(records.slice(i, i + 25));
      const authorId = newId();
      const id = newId();
      const status = statusItem.parse({ id, accountId: authorId, createdAt: now, visibility: 'public', conversationId: id, text: `#${tag}`, contentHtml: '', tags: [tag] });
      await batchWrite([statusRecord(status)]);
      const created = await chain({ type: 'create', statusId: id });
      const removed = await chain({ type: 'delete', statusId: id, accountId: authorId, mentionIds: [], deleted: { visibility: 'public', tags: [tag], hasMedia: false } });
      rows.push({
        'tag followers': n,
        pages: created.pages,
        'create calls': created.calls,
        'create writes': created.writes,
        'create ms': Math.round(created.ms),
        'delete calls': removed.calls,
        'delete ms': Math.round(removed.ms),
      });
    }
  } finally {
    await emulators.stop();
  }
  process.stdout.write(
    `\nTag-follower fan-out against dynalite (tag followers read ${TAG_FOLLOWERS_PAGE} per Query, at most ${MAX_TAG_FOLLOWERS} per status; the author has no followers):\n`,
  );
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
