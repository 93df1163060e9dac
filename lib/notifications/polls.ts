// Closing polls: the sweeper reads the poll-expiry minute buckets it has not
// read yet (from its watermark; at most a day of buckets per run, starting a
// day back on the very first run), and for every poll whose end has passed
// asks the notify worker to tell each voter and the author, then removes the
// bucket entry. A redelivered or repeated run is harmless: the worker writes a
// poll notification once per (recipient, poll status).
import { markPollChanged, pollById, pollExpiryEntries, removePollExpiry, votersOf, type Poll } from '../db/polls';
import { advanceSweeperWatermark, sweeperWatermark } from '../db/sweeper';
import { log } from '../log';
import { enqueue } from '../queue';

const MINUTE = 60_000;
/** Buckets read per run at most (a day); a longer outage is caught up over the following runs. */
export const MAX_MINUTES_PER_RUN = 24 * 60;
const PARALLEL_BUCKETS = 16;
const PARALLEL_MESSAGES = 10;

const JOB = 'POLLS';

/** `YYYY-MM-DDTHH:MM` (UTC) of an instant, as lib/db/polls.ts names its buckets. */
export const minuteOf = (ms: number) => new Date(ms).toISOString().slice(0, 16);
const startOf = (minute: string) => Date.parse(`${minute}:00.000Z`);

async function inChunks<T>(items: T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}

/** Voters of a poll (all of them) and its author, each once; a remote poll's author hears of it from its own server. */
async function pollAudience(poll: Poll): Promise<string[]> {
  return [...new Set([...(await votersOf(poll.id)), ...(poll.remote ? [] : [poll.accountId])])];
}

/** Notifies the audience of one due bucket entry, then removes the entry. Answers whether a poll was closed. */
async function closeEntry(minute: string, pollId: string, now: number): Promise<boolean> {
  const poll = await pollById(pollId, true);
  if (poll && new Date(poll.expiresAt).getTime() > now) return false;
  if (poll) {
    const audience = await pollAudience(poll);
    await inChunks(audience, PARALLEL_MESSAGES, (accountId) =>
      enqueue('notify', { type: 'poll', accountId, fromAccountId: poll.accountId, statusId: poll.statusId }),
    );
    // Our poll's end goes to other servers as an Update(Question) with `closed` (lib/federation/send_polls.ts).
    if (!poll.remote) await markPollChanged(poll);
  }
  await removePollExpiry(minute, pollId);
  return poll !== undefined;
}

async function sweepBucket(minute: string, now: number): Promise<number> {
  const entries = await pollExpiryEntries(minute);
  let closed = 0;
  for (const entry of entries) {
    if (new Date(entry.expiresAt).getTime() > now) continue;
    if (await closeEntry(minute, entry.pollId, now)) closed += 1;
  }
  return closed;
}

export type SweepResult = { buckets: number; closed: number; watermark: string | undefined };

/**
 * Closes the polls due by `now`. Buckets of past minutes are read once (the
 * watermark moves past them); the current minute's bucket is read on every run,
 * since polls ending later in that minute are not due yet.
 */
export async function closeDuePolls(now: number = Date.now()): Promise<SweepResult> {
  const current = startOf(minuteOf(now));
  const mark = await sweeperWatermark(JOB);
  const first = mark ? startOf(mark) + MINUTE : current - (MAX_MINUTES_PER_RUN - 1) * MINUTE;
  const last = Math.min(current, first + (MAX_MINUTES_PER_RUN - 1) * MINUTE);
  const minutes: string[] = [];
  for (let t = first; t <= last; t += MINUTE) minutes.push(minuteOf(t));

  let closed = 0;
  let watermark = mark;
  for (let i = 0; i < minutes.length; i += PARALLEL_BUCKETS) {
    const chunk = minutes.slice(i, i + PARALLEL_BUCKETS);
    const counts = await Promise.all(chunk.map((minute) => sweepBucket(minute, now)));
    closed += counts.reduce((a, b) => a + b, 0);
    const done = chunk.filter((m) => startOf(m) < current).at(-1);
    if (done) {
      await advanceSweeperWatermark(JOB, done);
      watermark = done;
    }
  }
  if (closed > 0) log.info('sweeper: polls closed', { closed, buckets: minutes.length });
  return { buckets: minutes.length, closed, watermark };
}
