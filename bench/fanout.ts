// Fan-out rate: home entries written per second by the fan-out worker's code
// for an author with 1,000 and 10,000 followers, against dynalite and s3rver
// started in this process (the same emulators as the local stack).
// Usage: npm run bench:fanout        (FANOUT_SIZES=1000,10000 by default)
import { randomBytes } from 'node:crypto';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, printTable } from './lib';

const SIZES = (process.env.FANOUT_SIZES ?? '1000,10000').split(',').map(Number);

async function main() {
  const emulators = await inProcessEmulators();
  // Imported after the environment points at the emulators.
  const { followRecord } = await import('../lib/db/follows');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { fanOut, fanOutDelete } = await import('../lib/timelines/fanout');
  const rows: Record<string, string | number>[] = [];
  try {
    for (const n of SIZES) {
      process.env.TABLE_NAME = `fanout-${n}-${randomBytes(3).toString('hex')}`;
      await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
      const authorId = newId();
      const now = new Date().toISOString();
      const followers = Array.from({ length: n }, (_, i) => newId(Date.now() - n + i));
      await batchWrite(followers.map((followerId) => followRecord({ id: newId(), followerId, followedId: authorId, showReblogs: true, notify: false, createdAt: now })));
      const id = newId();
      const status = statusItem.parse({ id, accountId: authorId, createdAt: now, visibility: 'public', conversationId: id, text: 'bench', contentHtml: '<p>bench</p>' });
      await batchWrite([statusRecord(status)]);
      const created = await fanOut(status.id);
      const removed = await fanOutDelete(status.id, authorId, []);
      rows.push({
        followers: n,
        'entries written': created.written,
        'create ms': created.ms,
        'entries/s': Math.round((created.written / Math.max(created.ms, 1)) * 1000),
        'delete ms': removed.ms,
        'removed/s': Math.round((removed.written / Math.max(removed.ms, 1)) * 1000),
      });
    }
  } finally {
    await emulators.stop();
  }
  process.stdout.write('\nFan-out against dynalite (in-process, one worker invocation):\n');
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
