// What an inbox spends on a key it does not have. Anyone can POST to an inbox naming any keyId, and fetching it costs
// us a function held while another server answers (or does not) and a signed GET sent wherever the keyId points. So
// a key fetch made for a signature check passes this gate first, cheapest refusal first:
//
// 1. a key or a host that failed lately is not asked again before its window ends (401 with Retry-After). The
//    failures are items in the table (lib/db/key_fetches.ts), mirrored in this instance's memory: a flood spreads
//    over hundreds of function instances, and memory alone would let each of them fetch each bad key once. The read
//    (a BatchGetItem of half a unit per item) is made only where a fetch would be, never for a stored key;
// 2. the caller's budget (the sender's address, counted by the inbox handler) may refuse it (429);
// 3. a host has FETCHES_PER_HOST slots (items in the table, shared by every instance): when they are all held the
//    request is answered 503 with Retry-After at once instead of queueing behind a server that is slow;
// 4. the fetch itself is limited to KEY_FETCH_TIMEOUT_MS (connect and answer), and the request waits for it at most
//    KEY_WAIT_MS in all: past that it is answered 503 with Retry-After and the fetch goes on to its own limit, so
//    that a slow but honest server's key is stored for the retry its server makes (Mastodon retries a 503).
//
// A failure recorded per key: the document is missing (4xx) or names no usable key; per host: no answer (a
// timeout, a refused connection, a 5xx). A fetch abandoned by its request and settled long after its limit (the
// function was frozen between two invocations) tells nothing about the server and is not recorded.
import { randomBytes } from 'node:crypto';
import { keyFetchFailedUntil, recordKeyFetchFailure, releaseKeyFetchSlot, takeKeyFetchSlot } from '../db/key_fetches';
import { HttpError } from '../errors';
import { log } from '../log';
import { BudgetSpent, withinBudget } from './budget';
import { FetchFailed, fetchObject } from './fetch';
import type { ApDocument } from './vocab';

/** A key fetch's own limit, connect and answer: an actor document is small, and honest servers answer in well under a second. */
export const KEY_FETCH_TIMEOUT_MS = 2_500;
/** How long one inbox request's verification may wait, its key fetches and their gate's reads in all (the function is held about that long at most). */
export const KEY_WAIT_MS = 1_000;
/** A key whose document was missing or unusable is not fetched again for this long. */
export const KEY_FAILURE_WINDOW_MS = 5 * 60_000;
/** A host that did not answer is not asked again for this long. */
export const HOST_FAILURE_WINDOW_MS = 60_000;
/** Key fetches one host may have outstanding at once, across every instance. */
export const FETCHES_PER_HOST = 2;

let fetchTimeoutMs = KEY_FETCH_TIMEOUT_MS;
let waitMs = KEY_WAIT_MS;
/** Tests: a longer wait, so that an honest fetch on a busy test machine is not cut short (undefined restores it). */
export function useKeyWait(ms: number | undefined): void {
  waitMs = ms ?? KEY_WAIT_MS;
}
/** Tests: a longer key-fetch limit, so that a slot held by a server that never answers stays held while the test looks (undefined restores it). */
export function useKeyFetchTimeout(ms: number | undefined): void {
  fetchTimeoutMs = ms ?? KEY_FETCH_TIMEOUT_MS;
}

/** The gate refused a key fetch: `answer` is what the request gets. A FetchFailed, so a refresh refused keeps the stored key. */
export class KeyFetchRefused extends FetchFailed {
  constructor(url: string, readonly answer: HttpError) {
    super(url, answer.message);
    this.name = 'KeyFetchRefused';
  }
}

const retryAfter = (ms: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) });

// ---- the failures, as this instance last read or wrote them (subject -> until, epoch ms) ----
const FAILURES_MAX = 10_000;
const knownFailures = new Map<string, number>();
const rememberFailure = (subject: string, until: number) => {
  if (knownFailures.size >= FAILURES_MAX) knownFailures.delete(knownFailures.keys().next().value!);
  knownFailures.set(subject, until);
};
const knownFailure = (subject: string, now: number) => {
  const until = knownFailures.get(subject);
  return until !== undefined && until > now ? until : undefined;
};

/** Fetches this instance let go on past their request (tests wait for them: nothing runs after a test's end). */
const abandoned = new Set<Promise<unknown>>();
export const abandonedKeyFetches = async (): Promise<void> => {
  await Promise.allSettled([...abandoned]);
};

const hostOf = (url: string) => new URL(url).host.toLowerCase();
/** No answer from the server at all (or an answer saying it is unwell): the host, not the key, failed. */
const hostFailed = (err: FetchFailed) => err.status === undefined || err.status >= 500 || err.status === 429;

async function recordFailure(scope: 'key' | 'host', subject: string, windowMs: number): Promise<void> {
  const until = Date.now() + windowMs;
  rememberFailure(`${scope}#${subject}`, until);
  try {
    await recordKeyFetchFailure(scope, subject, until);
  } catch (err) {
    log.warn('key gate: failure not recorded', { scope, subject, err });
  }
}

/** The gate of one inbox request, made when its verification starts: it waits for fetches until `waitMs` from then; `beforeFetch` may refuse (the sender's budget). */
export type KeyGate = {
  /** fetchObject behind the gate, for the key `keyId`. */
  fetchDocument: (keyId: string) => (url: string) => Promise<ApDocument>;
  /** The key was fetched and no usable key came of it: its failure is recorded. */
  keyUnusable: (keyId: string) => Promise<void>;
  /** Did this request fetch a document (an answer, whatever it said)? */
  fetched: () => boolean;
};

export function keyGate(opts: { waitMs?: number; beforeFetch?: () => Promise<void> } = {}): KeyGate {
  let fetched = false;
  const deadline = Date.now() + (opts.waitMs ?? waitMs);

  /** The checks, the slot, the fetch and its bookkeeping: all of it may outlast the request's wait. */
  const gatedFetch = async (keyId: string, url: string): Promise<ApDocument> => {
    const now = Date.now();
    const host = hostOf(url);
    let until = knownFailure(`key#${keyId}`, now) ?? knownFailure(`host#${host}`, now);
    if (until === undefined) {
      const stored = await keyFetchFailedUntil(keyId, host, now);
      if (stored.key !== undefined) rememberFailure(`key#${keyId}`, stored.key);
      if (stored.host !== undefined) rememberFailure(`host#${host}`, stored.host);
      until = stored.key ?? stored.host;
    }
    if (until !== undefined) {
      throw new KeyFetchRefused(url, new HttpError(401, "Signature: the key could not be fetched lately; not fetched again yet", {}, retryAfter(until - now)));
    }
    if (opts.beforeFetch) {
      try {
        await opts.beforeFetch();
      } catch (err) {
        if (err instanceof HttpError) throw new KeyFetchRefused(url, err);
        throw err;
      }
    }
    const limit = fetchTimeoutMs;
    const lease = randomBytes(8).toString('hex');
    const slot = await takeKeyFetchSlot(host, FETCHES_PER_HOST, lease, now + limit + 1_000, now);
    if (slot === undefined) {
      throw new KeyFetchRefused(url, new HttpError(503, "Signature: too many key fetches to the key's server at once; try again", {}, retryAfter(limit)));
    }
    const started = Date.now();
    const work = fetchObject(url, { timeoutMs: limit })
      .then((doc) => {
        fetched = true;
        return doc;
      })
      .catch(async (err: unknown) => {
        // Settled long after its limit: the function was frozen meanwhile, which says nothing of the server.
        if (err instanceof FetchFailed && Date.now() - started <= limit + 1_000) {
          await (hostFailed(err) ? recordFailure('host', host, HOST_FAILURE_WINDOW_MS) : recordFailure('key', keyId, KEY_FAILURE_WINDOW_MS));
        }
        throw err;
      })
      .finally(() => releaseKeyFetchSlot(host, slot, lease).catch((err: unknown) => log.warn('key gate: slot not released', { host, err })));
    return work;
  };

  // The gate's own reads count against the wait too: a slow table must not hold the request either (a slot taken
  // after the request stopped waiting frees itself at its `until`).
  const fetchDocument = (keyId: string) => async (url: string): Promise<ApDocument> => {
    const work = gatedFetch(keyId, url);
    try {
      return await withinBudget(work, deadline);
    } catch (err) {
      if (!(err instanceof BudgetSpent)) throw err;
      const settled = work.catch(() => undefined).finally(() => abandoned.delete(settled));
      abandoned.add(settled);
      log.info('key gate: key fetch still running when its request stopped waiting', { keyId, url });
      throw new KeyFetchRefused(url, new HttpError(503, 'Signature: the key could not be had in time; try again', {}, retryAfter(fetchTimeoutMs)));
    }
  };

  return {
    fetchDocument,
    keyUnusable: (keyId) => recordFailure('key', keyId, KEY_FAILURE_WINDOW_MS),
    fetched: () => fetched,
  };
}
