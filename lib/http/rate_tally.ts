// The general API budgets (300 requests in 5 minutes per token, or per address) counted by each
// function instance in its memory and written to the shared counter in batches: one UpdateItem per
// batch of hits (RATE_TALLY_BATCH, 10), or when the last write is TALLY_MAX_AGE_MS old, instead of
// one per request. Written on every API call, the counter cost more than the call's own reads (a
// write request unit is priced at five read units, and the token and account reads are half a unit
// each), and it was one more DynamoDB call that every small request waited on.
//
// Exact where it matters: an instance writes the first hit of each window and every hit once its
// count comes within a batch of the limit, so the requests one instance answers are counted one by
// one, and a refusal always rests on the shared count. What another instance has counted and not
// yet written (less than a batch, at most TALLY_MAX_AGE_MS old) is not seen: a client spreading its
// requests over n warm instances at once may get up to n × (batch − 1) requests past the limit, a
// few percent of 300. The narrow budgets (sign-in, sign-up, uploads, deletes) are not tallied: they
// write every hit.
import { config } from '../config';

/** How long an instance goes without writing its count (and reading everyone's). */
export const TALLY_MAX_AGE_MS = 5_000;
/** Subjects an instance keeps a tally for (the oldest goes first). */
const MAX_SUBJECTS = 10_000;

/** `writtenAt`: when this instance last wrote the window's count; undefined before its first write. */
type Tally = { window: number; shared: number; unwritten: number; writtenAt: number | undefined };

/** Writes `hits` to the shared counter and answers its new total (lib/db/ratelimits.ts countHit). */
export type WriteHits = (hits: number) => Promise<number>;

/** One instance's tallies (a module has one; tests make several to stand for several instances). */
export class RateTally {
  private readonly tallies = new Map<string, Tally>();

  /** `batch`: hits counted before they are written; RATE_TALLY_BATCH when not given. */
  constructor(private readonly batch?: number) {}

  /**
   * Counts one hit of `key` in the window starting at `window` (epoch seconds) against `limit`, and
   * answers the count with this hit: the shared count as last read plus what this instance has
   * not written, or the shared count itself when this hit is written.
   */
  async hit(key: string, window: number, limit: number, write: WriteHits, now = Date.now()): Promise<number> {
    let tally = this.tallies.get(key);
    if (!tally || tally.window !== window) {
      // A new window: what was not written of the last one is dropped with it.
      tally = { window, shared: 0, unwritten: 0, writtenAt: undefined };
      this.remember(key, tally);
    }
    tally.unwritten += 1;
    const count = tally.shared + tally.unwritten;
    const batch = this.batch ?? config.rateTallyBatch;
    const due = tally.writtenAt === undefined || tally.unwritten >= batch || now - tally.writtenAt >= TALLY_MAX_AGE_MS || count > limit - batch;
    if (!due) return count;
    const hits = tally.unwritten;
    tally.unwritten = 0;
    tally.writtenAt = now;
    let total: number;
    try {
      total = await write(hits);
    } catch (err) {
      // Not written: counted again with the next hit.
      tally.unwritten += hits;
      tally.writtenAt = undefined;
      throw err;
    }
    // Counts only grow: a write answered late (another invocation's, in the same instance) never lowers it.
    tally.shared = Math.max(tally.shared, total);
    return total;
  }

  private remember(key: string, tally: Tally): void {
    this.tallies.delete(key);
    if (this.tallies.size >= MAX_SUBJECTS) this.tallies.delete(this.tallies.keys().next().value!);
    this.tallies.set(key, tally);
  }

  /** Forgets every tally (tests: a new instance). */
  clear(): void {
    this.tallies.clear();
  }
}

/** This instance's tallies. */
export const rateTally = new RateTally();
