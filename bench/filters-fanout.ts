// Fan-out time of one status to a follower holding as many `hide` keywords of the longest
// length as the filters API takes (500 of 512 characters), against a follower with none: the
// cost of keyword filters inside the shared fan-out worker (issue 25). The texts are written
// to be costly for a matcher that tries each keyword at each position: a 2,500-character
// local status (a link whose path is one run of 'a', as the API takes it) and a 100,000-character
// remote-size text, each keyword a run of 'a' and one character the text does not hold; and a
// follower whose 500 keywords share no prefix (the largest automaton to compile).
// Against dynalite started in this process; the worker's page runs as processFanout.
// Usage: npm run bench:filters-fanout   (FILTERS_FANOUT_TEXTS=2500,100000, FILTERS_FANOUT_RUNS=5 by default)
import { randomBytes } from 'node:crypto';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, percentile, printTable } from './lib';

const TEXTS = (process.env.FILTERS_FANOUT_TEXTS ?? '2500,100000').split(',').map(Number);
const RUNS = Number(process.env.FILTERS_FANOUT_RUNS ?? 5);
const KEYWORDS = 500;
const KEYWORD_LENGTH = 512;

async function main() {
  const emulators = await inProcessEmulators();
  process.env.QUEUE_MODE = 'inline';
  process.env.TABLE_NAME = `filters-fanout-${randomBytes(3).toString('hex')}`;
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { followRecord } = await import('../lib/db/follows');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { QUEUES, registerInlineWorker } = await import('../lib/queue');
  const { createFilterV2 } = await import('../lib/filters/v2');
  const { processFanout } = await import('../lib/timelines/fanout_queue');
  // Messages the page sends on (federation, streams) are dropped: only the page itself is timed.
  for (const queue of QUEUES) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));

  const now = new Date().toISOString();
  /** An author followed by one local follower, who holds `keywords` hide keywords. */
  const anAccount = async () => {
    const username = `bench_${randomBytes(6).toString('hex')}`;
    const created = await createLocalAccount({ id: newId(), username, email: `${username}@example.com`, passwordHash: 'x', confirmedAt: now, approved: true });
    if (!created.ok) throw new Error(`${username} taken`);
    return created.account.id;
  };
  const anAuthor = async (keywords: string[]) => {
    const [authorId, followerId] = [await anAccount(), await anAccount()];
    await batchWrite([followRecord({ id: newId(), followerId, followedId: authorId, showReblogs: true, notify: false, createdAt: now })]);
    for (let i = 0; i < keywords.length; i += 50) {
      await createFilterV2(followerId, {
        title: `long ${i}`,
        context: ['home'],
        filter_action: 'hide',
        keywords_attributes: keywords.slice(i, i + 50).map((keyword, k) => ({ keyword, whole_word: k % 2 === 0 })),
      });
    }
    return authorId;
  };
  const keywords = Array.from({ length: KEYWORDS }, (_, i) => `${'a'.repeat(KEYWORD_LENGTH - 1)}${String.fromCodePoint(0x4e00 + i)}`);
  // Keywords that share nothing make the largest automaton (one node per character), the most costly to compile.
  const letters = 'bcdefghijklmnopqrstuvwxyz';
  let seed = 1;
  const nextLetter = () => letters[(seed = (seed * 48271) % 2147483647) % letters.length];
  const distinct = Array.from({ length: KEYWORDS }, () => Array.from({ length: KEYWORD_LENGTH }, nextLetter).join(''));
  const plain = await anAuthor([]);
  const filtering = await anAuthor(keywords);
  const filteringDistinct = await anAuthor(distinct);

  /** ms of one fan-out page of a new status of `authorId` with `text`. */
  const fanOutOnce = async (authorId: string, text: string) => {
    const id = newId();
    const status = statusItem.parse({ id, accountId: authorId, createdAt: now, visibility: 'public', conversationId: id, text, contentHtml: `<p>${text}</p>` });
    await batchWrite([statusRecord(status)]);
    const started = performance.now();
    await processFanout({ type: 'create', statusId: id });
    return performance.now() - started;
  };

  const rows: Record<string, string | number>[] = [];
  try {
    for (const length of TEXTS) {
      const prefix = length <= 2500 ? 'https://example.com/' : '';
      const text = `${prefix}${'a'.repeat(length - prefix.length)}`;
      const times = { none: [] as number[], filtered: [] as number[], distinct: [] as number[] };
      for (let run = 0; run < RUNS; run++) {
        times.none.push(await fanOutOnce(plain, text));
        times.filtered.push(await fanOutOnce(filtering, text));
        times.distinct.push(await fanOutOnce(filteringDistinct, text));
      }
      const none = percentile(times.none, 50);
      const filtered = percentile(times.filtered, 50);
      const other = percentile(times.distinct, 50);
      rows.push({
        text: `${length.toLocaleString('en')} chars`,
        runs: RUNS,
        'no filters p50 ms': Math.round(none),
        "a…a keywords p50 ms": Math.round(filtered),
        ratio: (filtered / none).toFixed(1),
        'distinct keywords p50 ms': Math.round(other),
        'ratio ': (other / none).toFixed(1),
      });
    }
  } finally {
    await emulators.stop();
  }
  process.stdout.write(`\nFan-out page of one status to one follower, ${KEYWORDS} hide keywords of ${KEYWORD_LENGTH} characters vs none (dynalite in-process):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
