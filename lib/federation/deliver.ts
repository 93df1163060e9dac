// Delivery of our activities: one `deliver` message per (activity, inbox), each
// POSTed, signed, by the deliver worker (functions/workers/deliver.ts).
//
// Retries: a server error, 408, 429, a timeout or a network failure sends the
// message back with attempt+1, after a delay that grows from a minute to four
// hours (RETRY_DELAYS_S: eight attempts over about eight hours). SQS delays a
// message by at most 15 minutes, so a longer wait is made of hops: the message
// carries `notBefore` and is sent back, unposted, until it is due. After the
// last attempt the worker throws, and the queue's own redrive (five receives,
// its visibility timeout apart) moves the message to the dead-letter queue,
// where an operator can see and redrive it: no second path to the DLQ to keep
// in sync, at the price of those few last tries. A 401 is retried too, as
// Mastodon retries it: a server that could not fetch our key in time (its
// first sight of us, or our function cold) answers 401 or 503 and has the key
// by the retry. Any other 4xx, and 501, is the server's final answer: dropped,
// logged.
//
// Retry-After: a server that answers with one is asked again when it says, for
// the first RETRY_AFTER_TRUSTED_ATTEMPTS retries (sooner than our schedule when
// it says sooner: a key gate's "try again in 3 s"); after those, never sooner
// than our schedule. Such an answer is the server alive and saying when, not a
// failure of its health.
//
// Server health: each transient failure counts against the inbox's domain
// (lib/db/server_health.ts); UNAVAILABLE_AFTER_FAILURES consecutive failures
// spanning at least an hour mark it unavailable for six hours, during which
// deliverTo enqueues nothing for it and pending retries to it are dropped (as
// Mastodon skips unavailable inboxes); any success forgets its failures. When
// the six hours are up, the next failure marks it again at once.
//
// Fair per server (issue 27): the worker runs a few batches at once, and a server that answers slowly, or not at
// all until the time limit, would hold every one of them. So a server has DELIVERY_SLOTS_PER_SERVER deliveries in
// flight at most, across every worker (slot items with a lease, lib/db/delivery_slots.ts, read with its health in
// one Query); a message whose server has none free is not attempted but sent back with a short delay, its attempt
// not counted (`deferrals` grows instead). A server that failed SLOW_AFTER_FAILURES times in a row lately is slow:
// one delivery in flight, cut off after SLOW_SERVER_TIMEOUT_MS. A hanging server thus costs one worker slot for a
// few seconds at a time while every other server is delivered to at full rate.
import { randomBytes } from 'node:crypto';
import { accountById } from '../db/accounts';
import { deliveryServerState, releaseDeliverySlot, takeDeliverySlot } from '../db/delivery_slots';
import { clearServerHealth, markServerUnavailable, recordDeliveryFailure, unavailableServers, type ServerHealth } from '../db/server_health';
import { log } from '../log';
import { federationRefusal, refusedAmong } from '../policy/instance_domains';
import { enqueue, MAX_DELAY_SECONDS, queueHoldsDelays } from '../queue';
import type { DeliverMessage } from '../queue/messages';
import { FetchFailed, FetchRefused, postActivity, requestTimeout } from './fetch';
import { MAX_URL_LENGTH } from './guard';
import { instanceSigner, signerFor } from './keys';
import type { Signer } from './signatures';
import { apUrls, isLocalUrl } from './urls';
import { httpUrl } from './vocab';

/** The signing account: a local account id, or `instance` for the instance actor. */
export type SignerRef = { accountId: string } | 'instance';

/** Delay before attempt n+1, after attempt n failed (n from 1): 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h. */
export const RETRY_DELAYS_S = [60, 300, 900, 1800, 3600, 7200, 14400] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
export const UNAVAILABLE_AFTER_FAILURES = 10;
export const UNAVAILABLE_AFTER_SPAN_MS = 3600_000;
export const UNAVAILABLE_FOR_MS = 6 * 3600_000;
/** Messages sent at once by deliverTo (the inline queue mode runs each delivery inside its send). */
const ENQUEUE_CONCURRENCY = 32;
/** Deliveries one server may have in flight at once, across every worker. */
export const DELIVERY_SLOTS_PER_SERVER = 4;
/** A server whose last SLOW_AFTER_FAILURES deliveries failed (a timeout, a 5xx, a 429...), the last within SLOW_FOR_MS, is slow: */
export const SLOW_AFTER_FAILURES = 2;
export const SLOW_FOR_MS = 10 * 60_000;
/** ... it has SLOW_SERVER_SLOTS deliveries in flight at most, each cut off after SLOW_SERVER_TIMEOUT_MS. */
export const SLOW_SERVER_SLOTS = 1;
export const SLOW_SERVER_TIMEOUT_MS = 3_000;
/** A slot's lease outlasts its POST's time limit by this much (the reads and writes around it). */
export const SLOT_LEASE_MARGIN_MS = 5_000;
/** A deferred message waits 1 to 3 s for a busy server; for a slow one 5 s, doubling per deferral up to 60 s, jittered. */
const DEFER_BUSY_S = [1, 3] as const;
const DEFER_SLOW_BASE_S = 5;
const DEFER_MAX_S = 60;
/**
 * A server whose deliveries in flight all began within this long is busy, not slow: a message waits for one of its
 * slots that long at most (reading them every SLOT_POLL_MS or so) before it is sent back.
 */
export const SLOT_WAIT_MS = 1_000;
const SLOT_POLL_MS = 100;
/** Where the queue cannot hold a message (inline workers), the worker pauses this long (at most) before sending it back. */
const LOCAL_DEFER_PAUSE_MS = 100;

/** The server an inbox belongs to, as server health counts it: host[:port], lower-case. */
export const inboxDomain = (inbox: string): string => new URL(inbox).host.toLowerCase();

/** Runs `task` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await task(items[next++]!);
  });
  await Promise.all(runners);
}

/** `inboxes` in turns of their servers (one of each server, then the next of each), so that a batch spreads over servers. */
function byServerInTurn(inboxes: string[]): string[] {
  const perServer = new Map<string, string[]>();
  for (const inbox of inboxes) {
    const list = perServer.get(inboxDomain(inbox));
    if (list) list.push(inbox);
    else perServer.set(inboxDomain(inbox), [inbox]);
  }
  const lists = [...perServer.values()];
  const out: string[] = [];
  for (let turn = 0; out.length < inboxes.length; turn++) for (const list of lists) if (turn < list.length) out.push(list[turn]!);
  return out;
}

/** Enqueues one delivery per distinct inbox (our own URLs, URLs too long to fetch and servers marked unavailable left out), the servers in turn. */
export async function deliverTo(activity: Record<string, unknown>, inboxes: string[], signer: SignerRef): Promise<void> {
  const remote = byServerInTurn(
    [...new Set(inboxes.flatMap((i) => httpUrl(i) ?? []))].filter((inbox) => !isLocalUrl(inbox) && inbox.length <= MAX_URL_LENGTH),
  );
  if (remote.length === 0) return;
  const unavailable = await unavailableServers(remote.map(inboxDomain), new Date());
  // Suspended servers, and in limited federation mode those not allowed.
  const suspended = await refusedAmong(remote.map(inboxDomain));
  const targets = remote.filter((inbox) => !unavailable.has(inboxDomain(inbox)) && !suspended.has(inboxDomain(inbox)));
  if (suspended.size > 0) log.info('delivery skips servers not federated with', { servers: [...suspended], activity: activity.id });
  if (targets.length < remote.length) log.info('delivery skips unavailable servers', { servers: [...unavailable], activity: activity.id });
  await eachLimited(targets, ENQUEUE_CONCURRENCY, (inbox) => enqueue('deliver', { inbox, activity, signer, attempt: 1 }));
}

/** Our actor's username in an activity's `actor` (`<base>/users/:username`), if it is one of ours. */
function localUsernameOf(actor: unknown): string | undefined {
  if (typeof actor !== 'string' || !isLocalUrl(actor)) return undefined;
  const match = /\/users\/([^/?#]+)$/.exec(new URL(actor).pathname);
  const username = match ? decodeURIComponent(match[1]!) : undefined;
  return username && apUrls.actor(username) === actor ? username : undefined;
}

/**
 * The key a message is signed with. A local account that is gone by the time its message is
 * sent (a Delete of the account itself) still signs as the actor the activity names.
 */
async function signerOf(message: DeliverMessage): Promise<Signer | undefined> {
  if (message.signer === 'instance') return instanceSigner();
  const account = await accountById(message.signer.accountId);
  if (account && account.domain === null) return signerFor(account);
  const username = account ? undefined : localUsernameOf(message.activity.actor);
  return username ? signerFor({ id: message.signer.accountId, username }) : undefined;
}

export type DeliveryOutcome = 'delivered' | 'dropped' | 'retrying' | 'waiting' | 'skipped' | 'deferred';

/** Answers worth another attempt (Mastodon's: 401, 408, 429 and 5xx but 501). */
const transientStatus = (status: number) => status === 401 || status === 408 || status === 429 || (status >= 500 && status !== 501);

/** Retries after which a server's Retry-After may no longer bring the next attempt before our own schedule. */
export const RETRY_AFTER_TRUSTED_ATTEMPTS = 2;

/** Seconds before attempt n+1, after attempt n failed, the server having asked for `retryAfterS` (if it did). */
export function retryDelaySeconds(attempt: number, retryAfterS: number | undefined): number {
  const scheduled = RETRY_DELAYS_S[Math.min(attempt, RETRY_DELAYS_S.length) - 1]!;
  if (retryAfterS === undefined) return scheduled;
  const asked = Math.max(1, retryAfterS);
  return attempt <= RETRY_AFTER_TRUSTED_ATTEMPTS ? asked : Math.max(scheduled, asked);
}

/** Counts a transient failure against the server, marking it unavailable once it has kept failing. */
async function countFailure(domain: string, now: Date): Promise<void> {
  const health = await recordDeliveryFailure(domain, now);
  if (!health || health.failures < UNAVAILABLE_AFTER_FAILURES) return;
  const span = now.getTime() - Date.parse(health.firstFailureAt);
  const alreadyMarked = health.unavailableUntil !== null && Date.parse(health.unavailableUntil) > now.getTime();
  if (span >= UNAVAILABLE_AFTER_SPAN_MS && !alreadyMarked) {
    log.warn('server marked unavailable', { domain, failures: health.failures, since: health.firstFailureAt });
    await markServerUnavailable(domain, new Date(now.getTime() + UNAVAILABLE_FOR_MS));
  }
}

/** Sends the message back for its next attempt, `delay` seconds from now (in hops past SQS's 15 minutes). */
async function retryLater(message: DeliverMessage, delay: number, now: Date): Promise<void> {
  const notBefore = delay > MAX_DELAY_SECONDS ? new Date(now.getTime() + delay * 1000).toISOString() : undefined;
  await enqueue('deliver', { ...message, attempt: message.attempt + 1, notBefore, deferrals: undefined }, { delaySeconds: Math.min(delay, MAX_DELAY_SECONDS) });
}

/** Is the server slow (it failed its last deliveries, lately)? */
export const isSlowServer = (health: ServerHealth | undefined, now: Date): boolean =>
  health !== undefined && health.failures >= SLOW_AFTER_FAILURES && now.getTime() - Date.parse(health.lastFailureAt) < SLOW_FOR_MS;

/** The slots a delivery may take, given those held: none once `capacity` are held (a slow server's few, whichever they are). */
function freeSlots(held: { slot: number }[], capacity: number): number[] {
  if (held.length >= capacity) return [];
  const taken = new Set(held.map((h) => h.slot));
  const free = Array.from({ length: capacity }, (_, i) => i).filter((i) => !taken.has(i));
  // Workers racing for one server try its free slots in different orders.
  for (let i = free.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [free[i], free[j]] = [free[j]!, free[i]!];
  }
  return free;
}

/** How long a message put off for its server waits before it is tried again, in seconds. */
export function deferDelaySeconds(deferrals: number, slow: boolean): number {
  if (!slow) return DEFER_BUSY_S[0] + Math.floor(Math.random() * (DEFER_BUSY_S[1] - DEFER_BUSY_S[0] + 1));
  const full = Math.min(DEFER_MAX_S, DEFER_SLOW_BASE_S * 2 ** Math.min(deferrals, 6));
  return Math.ceil(full / 2 + Math.random() * (full / 2));
}

/** Sends the message back unattempted: its server has its deliveries in flight. Not a failure: `attempt` stays. */
async function defer(message: DeliverMessage, slow: boolean): Promise<'deferred'> {
  const deferrals = (message.deferrals ?? 0) + 1;
  // Only a queue that holds the message spares the worker a busy loop; elsewhere it pauses a moment first.
  if (!queueHoldsDelays('deliver')) await new Promise((resolve) => setTimeout(resolve, LOCAL_DEFER_PAUSE_MS * (0.5 + Math.random() / 2)));
  await enqueue('deliver', { ...message, deferrals }, { delaySeconds: deferDelaySeconds(deferrals - 1, slow) });
  return 'deferred';
}

/**
 * One delivery: POST the activity to the inbox, signed; answers what became of it. Throws
 * (for the queue's redrive to the dead-letter queue) only when the last attempt failed.
 */
export async function deliverOne(message: DeliverMessage, now = new Date()): Promise<DeliveryOutcome> {
  // Held back until due, where the queue can hold a message (inline workers deliver at once).
  if (message.notBefore && queueHoldsDelays('deliver') && Date.parse(message.notBefore) > now.getTime()) {
    const wait = Math.ceil((Date.parse(message.notBefore) - now.getTime()) / 1000);
    await enqueue('deliver', message, { delaySeconds: Math.min(wait, MAX_DELAY_SECONDS) });
    return 'waiting';
  }
  const domain = inboxDomain(message.inbox);
  const refusal = await federationRefusal(domain);
  if (refusal) {
    log.info('delivery dropped: server not federated with', { inbox: message.inbox, activity: message.activity.id, refusal });
    return 'skipped';
  }
  // Leases are on the clock, whatever `now` a caller (a test) gives for the server's health.
  const waitStarted = Date.now();
  let { health, held } = await deliveryServerState(domain, waitStarted);
  if (health?.unavailableUntil && Date.parse(health.unavailableUntil) > now.getTime()) {
    // The last attempt's redrive receives (SQS's, after it failed once) may find the server marked by its own
    // failures: it must still reach the dead-letter queue, not vanish as a skipped message.
    if (message.attempt >= MAX_ATTEMPTS) throw new Error(`delivery to ${message.inbox} failed ${message.attempt} times; server unavailable`);
    log.info('delivery dropped: server unavailable', { inbox: message.inbox, until: health.unavailableUntil });
    return 'skipped';
  }
  const slow = isSlowServer(health, now);
  const capacity = slow ? SLOW_SERVER_SLOTS : DELIVERY_SLOTS_PER_SERVER;
  let free = freeSlots(held, capacity);
  // A busy server's deliveries end in moments: wait for one, unless one of them has lasted long (slow, or hanging).
  while (free.length === 0 && !slow && held.every((h) => Date.now() - h.since < SLOT_WAIT_MS) && Date.now() - waitStarted < SLOT_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, SLOT_POLL_MS * (0.5 + Math.random())));
    ({ held } = await deliveryServerState(domain, Date.now()));
    free = freeSlots(held, capacity);
  }
  if (free.length === 0) return defer(message, slow);
  const signer = await signerOf(message);
  if (!signer) {
    log.warn('delivery dropped: no such signing account', { inbox: message.inbox, signer: message.signer });
    return 'dropped';
  }
  const timeoutMs = slow ? Math.min(SLOW_SERVER_TIMEOUT_MS, requestTimeout()) : requestTimeout();
  const lease = randomBytes(8).toString('hex');
  const slot = await takeDeliverySlot(domain, free, lease, Date.now() + timeoutMs + SLOT_LEASE_MARGIN_MS);
  if (slot === undefined) return defer(message, slow);
  let status: number | undefined;
  let retryAfterS: number | undefined;
  let failure: string;
  try {
    ({ status, retryAfterS } = await postActivity(message.inbox, message.activity, signer, { timeoutMs }));
    failure = `answered ${status}`;
  } catch (err) {
    if (err instanceof FetchRefused) {
      log.warn('delivery dropped: destination refused', { inbox: message.inbox, reason: err.reason });
      return 'dropped';
    }
    if (!(err instanceof FetchFailed)) throw err;
    failure = err.reason;
  } finally {
    // A failure to give it back costs the server its slot until the lease runs out, not the delivery.
    await releaseDeliverySlot(domain, slot, lease).catch((err: unknown) => log.warn('delivery slot not released', { domain, slot, err }));
  }
  if (status !== undefined && status >= 200 && status < 300) {
    if (health) await clearServerHealth(domain);
    return 'delivered';
  }
  if (status !== undefined && !transientStatus(status)) {
    log.warn('delivery refused by the server', { inbox: message.inbox, status, activity: message.activity.id });
    return 'dropped';
  }
  if (retryAfterS === undefined) await countFailure(domain, now);
  if (message.attempt >= MAX_ATTEMPTS) throw new Error(`delivery to ${message.inbox} failed ${message.attempt} times; last: ${failure}`);
  const delay = retryDelaySeconds(message.attempt, retryAfterS);
  log.info('delivery failed; retrying later', { inbox: message.inbox, attempt: message.attempt, reason: failure, delay });
  await retryLater(message, delay, now);
  return 'retrying';
}
