// The general API budgets counted in each instance's memory and written in batches
// (lib/http/rate_tally.ts): what one instance answers is counted exactly, the shared counter
// in DynamoDB is written with the first hit of a window, every TALLY_BATCH hits, when the last
// write is TALLY_MAX_AGE_MS old, and on every hit near the limit; several instances together get
// at most instances × (TALLY_BATCH − 1) requests past it.
import fc from 'fast-check';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { dynamo } from '../../lib/aws';
import { sha256 } from '../../lib/crypto';
import * as keys from '../../lib/db/keys';
import { countHit } from '../../lib/db/ratelimits';
import { getItem } from '../../lib/db/table';
import { RateTally, rateTally, TALLY_MAX_AGE_MS } from '../../lib/http/rate_tally';
import { throttles, windowStart } from '../../lib/http/ratelimit';
import { newId } from '../../lib/ids';
import { z } from 'zod';
import { call } from '../support/http';
import { aUser } from '../support/factories';

const WINDOW = 1_800_000_000;
/** The batch the functions run with (RATE_TALLY_BATCH's default; the other test files set 1). */
const TALLY_BATCH = 10;
const anInstance = () => new RateTally(TALLY_BATCH);

/** The shared counter of `subject` in the test window, as DynamoDB holds it. */
const stored = async (subject: string, window = WINDOW) =>
  (await getItem(keys.rateCounter('tally-test', subject, window), z.object({ hits: z.number() })))?.hits ?? 0;

const writer = (subject: string, window = WINDOW) => (hits: number) => countHit('tally-test', subject, window, window + 3600, hits);

describe('one instance', () => {
  it('counts every hit, and writes the first, then one in TALLY_BATCH, then every one near the limit', async () => {
    const tally = anInstance();
    const subject = newId();
    const limit = 40;
    const writes: number[] = [];
    const write = writer(subject);
    const counts: number[] = [];
    for (let i = 1; i <= 45; i++) {
      counts.push(await tally.hit(subject, WINDOW, limit, async (hits) => (writes.push(i), write(hits)), 1000));
    }
    expect(counts).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
    // Hit 1 (the window's first), 11 and 21 (ten each), then from 31 on (within ten of the limit) every one.
    expect(writes).toEqual([1, 11, 21, ...Array.from({ length: 15 }, (_, i) => 31 + i)]);
    expect(await stored(subject)).toBe(45);
  });

  it('writes what it counted once its last write is TALLY_MAX_AGE_MS old, and reads what others wrote', async () => {
    const tally = anInstance();
    const subject = newId();
    const write = writer(subject);
    await tally.hit(subject, WINDOW, 300, write, 0);
    await tally.hit(subject, WINDOW, 300, write, 1);
    expect(await stored(subject)).toBe(1);
    await write(50); // another instance
    expect(await tally.hit(subject, WINDOW, 300, write, TALLY_MAX_AGE_MS - 1)).toBe(3);
    expect(await tally.hit(subject, WINDOW, 300, write, TALLY_MAX_AGE_MS)).toBe(54);
    expect(await stored(subject)).toBe(54);
  });

  it('starts each window afresh', async () => {
    const tally = anInstance();
    const subject = newId();
    for (let i = 0; i < 5; i++) await tally.hit(subject, WINDOW, 300, writer(subject), 0);
    expect(await tally.hit(subject, WINDOW + 300, 300, writer(subject, WINDOW + 300), 0)).toBe(1);
    expect(await stored(subject, WINDOW + 300)).toBe(1);
  });

  it('keeps hits whose write failed, and writes them with the next', async () => {
    const tally = anInstance();
    const subject = newId();
    const write = writer(subject);
    await tally.hit(subject, WINDOW, 300, write, 0);
    for (let i = 0; i < TALLY_BATCH - 1; i++) await tally.hit(subject, WINDOW, 300, write, 0);
    // The tenth unwritten hit is due and its write fails: that request fails, as when every hit was written.
    await expect(tally.hit(subject, WINDOW, 300, () => Promise.reject(new Error('throttled')), 0)).rejects.toThrow('throttled');
    expect(await stored(subject)).toBe(1);
    expect(await tally.hit(subject, WINDOW, 300, write, 0)).toBe(TALLY_BATCH + 2);
    expect(await stored(subject)).toBe(TALLY_BATCH + 2);
  });
});

describe('several instances', () => {
  it('let at most instances × (TALLY_BATCH − 1) requests past the limit, and refuse only on the shared count', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 60 }), fc.array(fc.nat(3), { minLength: 1, maxLength: 120 }), async (n, limit, order) => {
        const instances = Array.from({ length: n }, () => anInstance());
        const subject = newId();
        let admitted = 0;
        let shared = 0;
        const write = async (hits: number) => (shared = await writer(subject)(hits));
        for (const pick of order) {
          const before = shared;
          const count = await instances[pick % n]!.hit(subject, WINDOW, limit, write, 0);
          if (count <= limit) admitted += 1;
          // A refusal is a count that was just written: never an estimate.
          else expect(shared).not.toBe(before);
        }
        expect(admitted).toBeLessThanOrEqual(limit + n * (TALLY_BATCH - 1));
        // With one instance, exactly the limit.
        if (n === 1) expect(admitted).toBe(Math.min(limit, order.length));
      }),
      { numRuns: 60 },
    );
  });
});

describe('through the API', () => {
  it('verify_credentials: the counter written with the first request and every tenth, the headers exact', async () => {
    const user = await aUser();
    process.env.RATE_TALLY_BATCH = String(TALLY_BATCH);
    rateTally.clear();
    const ops: string[] = [];
    process.env.EXPOSE_METRICS = '1';
    const stop = dynamo().observe((op) => ops.push(op));
    const remaining: string[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const res = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: user.token });
        expect(res.status).toBe(200);
        remaining.push(res.headers['x-ratelimit-remaining']!);
      }
    } finally {
      stop();
      delete process.env.EXPOSE_METRICS;
      process.env.RATE_TALLY_BATCH = '1';
    }
    expect(remaining).toEqual(Array.from({ length: 12 }, (_, i) => String(299 - i)));
    // Each request reads the token and the account; the counter is updated twice in twelve.
    expect(ops.filter((op) => op === 'UpdateItem')).toHaveLength(2);
    expect(ops.filter((op) => op === 'GetItem')).toHaveLength(24);
    const counter = await getItem(keys.rateCounter(throttles.apiToken.name, sha256(user.token), windowStart(throttles.apiToken)), z.object({ hits: z.number() }));
    expect(counter?.hits).toBe(11);
  });
});
