// The crash test of posting: is every post acknowledged with 200 delivered to its follower's home, even when
// the stack dies between the commit and the fan-out? The local stack (test/support/stack.ts) is started; four
// clients (four authors, one follower of all four) post, each with an Idempotency-Key; once CRASH_AFTER posts
// are acknowledged the stack's whole process group is SIGKILLed, as a crash would, in the middle of posting and
// fan-out. It is started again on the same data directory; the follower's home is read, then the sweeper is run
// as its schedule would run it after the grace period (through the Lambda endpoint, with a later `time`: it
// re-drives the distributions still owed, lib/timelines/fanout_owed.ts), and the home is read again until every
// acknowledged post is there or DELIVERY_WAIT_MS has passed.
// Usage: npm run bench:crash-post   (CRASH_AFTER=40 CRASH_CLIENTS=4 DELIVERY_WAIT_MS=60000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from '../test/support/stack';
import { sweepAt } from '../test/support/sweep';
import { BENCH_STACK_ENV, fixtureUser, json, printTable } from './lib';

const CRASH_AFTER = Number(process.env.CRASH_AFTER ?? 40);
const CLIENTS = Number(process.env.CRASH_CLIENTS ?? 4);
const DELIVERY_WAIT_MS = Number(process.env.DELIVERY_WAIT_MS ?? 60_000);
/** Later than any grace period the sweeper waits before re-driving (lib/timelines/fanout_owed.ts: 2 minutes). */
const SWEEP_AHEAD_MS = 10 * 60_000;

const as = (token: string) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });

/** Every status id in `token`'s home timeline, following max_id to the end. */
async function homeIds(baseUrl: string, token: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let maxId = '';
  for (;;) {
    const page = await json<{ id: string }[]>(fetch(`${baseUrl}/api/v1/timelines/home?limit=40${maxId ? `&max_id=${maxId}` : ''}`, { headers: as(token) }));
    if (page.length === 0) return ids;
    for (const s of page) ids.add(s.id);
    maxId = page[page.length - 1]!.id;
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tootless-crash-'));
  let stack: Stack | undefined;
  try {
    stack = await startStack({ env: BENCH_STACK_ENV, dataDir });
    const baseUrl = stack.baseUrl;
    const follower = await fixtureUser(baseUrl);
    const authors = [];
    for (let i = 0; i < CLIENTS; i++) {
      const author = await fixtureUser(baseUrl);
      const account = await json<{ id: string }>(fetch(`${baseUrl}/api/v1/accounts/verify_credentials`, { headers: as(author.token) }));
      await json(fetch(`${baseUrl}/api/v1/accounts/${account.id}/follow`, { method: 'POST', headers: as(follower.token) }));
      authors.push(author);
    }
    const acked: string[] = [];
    const dbCalls: number[] = [];
    let failed = 0;
    let killed: Promise<void> | undefined;
    const crashing = stack;
    await Promise.all(
      authors.map(async (author, client) => {
        for (let i = 0; !killed; i++) {
          try {
            const res = await fetch(`${baseUrl}/api/v1/statuses`, {
              method: 'POST',
              headers: { ...as(author.token), 'Idempotency-Key': `crash-${client}-${i}` },
              body: JSON.stringify({ status: `Crash test post ${i} of client ${client}, a few words and a #crashbench tag` }),
            });
            const body = (await res.json()) as { id?: string };
            if (res.status !== 200 || !body.id) throw new Error(`post: ${res.status}`);
            acked.push(body.id);
            const calls = Number(res.headers.get('x-db-calls') ?? NaN);
            if (!Number.isNaN(calls)) dbCalls.push(calls);
            // The crash: the process group dies while the other clients' posts and fan-outs are in flight.
            if (acked.length === CRASH_AFTER && !killed) killed = crashing.kill();
          } catch {
            failed++;
            if (killed) return;
          }
        }
      }),
    );
    await killed;
    process.stdout.write(`Killed the stack after ${acked.length} posts acknowledged (${failed} requests cut off)\n`);

    stack = await startStack({ env: BENCH_STACK_ENV, dataDir });
    const delivered = (ids: Set<string>) => acked.filter((id) => ids.has(id)).length;
    const afterRestart = delivered(await homeIds(stack.baseUrl, follower.token));
    const sweep = (await sweepAt(stack, Date.now() + SWEEP_AHEAD_MS)) as { distributions?: { due: number; redriven: number } };
    const waitUntil = Date.now() + DELIVERY_WAIT_MS;
    let afterSweep = 0;
    for (;;) {
      afterSweep = delivered(await homeIds(stack.baseUrl, follower.token));
      if (afterSweep === acked.length || Date.now() > waitUntil) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    printTable([
      {
        acknowledged: acked.length,
        'delivered after restart': afterRestart,
        're-driven by the sweeper': sweep.distributions?.redriven ?? 'n/a',
        'delivered after the sweep': afterSweep,
        lost: acked.length - afterSweep,
        'db calls per post (mean)': dbCalls.length ? (dbCalls.reduce((a, b) => a + b, 0) / dbCalls.length).toFixed(1) : 'n/a',
      },
    ]);
  } finally {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
