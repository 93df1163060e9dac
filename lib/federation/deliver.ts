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
// in sync, at the price of those few last tries. Any other 4xx is the server's
// final answer: dropped, logged.
//
// Server health: each transient failure counts against the inbox's domain
// (lib/db/server_health.ts); UNAVAILABLE_AFTER_FAILURES consecutive failures
// spanning at least an hour mark it unavailable for six hours, during which
// deliverTo enqueues nothing for it and pending retries to it are dropped (as
// Mastodon skips unavailable inboxes); any success forgets its failures. When
// the six hours are up, the next failure marks it again at once.
import { accountById } from '../db/accounts';
import { clearServerHealth, markServerUnavailable, recordDeliveryFailure, serverHealthOf, unavailableServers } from '../db/server_health';
import { config } from '../config';
import { log } from '../log';
import { federationRefusal, refusedAmong } from '../policy/instance_domains';
import { enqueue, MAX_DELAY_SECONDS } from '../queue';
import type { DeliverMessage } from '../queue/messages';
import { FetchFailed, FetchRefused, postActivity } from './fetch';
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

/** Enqueues one delivery per distinct inbox (our own URLs and servers marked unavailable left out). */
export async function deliverTo(activity: Record<string, unknown>, inboxes: string[], signer: SignerRef): Promise<void> {
  const remote = [...new Set(inboxes.flatMap((i) => httpUrl(i) ?? []))].filter((inbox) => !isLocalUrl(inbox));
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

export type DeliveryOutcome = 'delivered' | 'dropped' | 'retrying' | 'waiting' | 'skipped';

const transientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

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
  await enqueue('deliver', { ...message, attempt: message.attempt + 1, notBefore }, { delaySeconds: Math.min(delay, MAX_DELAY_SECONDS) });
}

/**
 * One delivery: POST the activity to the inbox, signed; answers what became of it. Throws
 * (for the queue's redrive to the dead-letter queue) only when the last attempt failed.
 */
export async function deliverOne(message: DeliverMessage, now = new Date()): Promise<DeliveryOutcome> {
  // Held back until due; only SQS can hold a message, the lambda and inline modes deliver at once.
  if (message.notBefore && config.queueMode === 'sqs' && Date.parse(message.notBefore) > now.getTime()) {
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
  const health = await serverHealthOf(domain);
  if (health?.unavailableUntil && Date.parse(health.unavailableUntil) > now.getTime()) {
    // The last attempt's redrive receives (SQS's, after it failed once) may find the server marked by its own
    // failures: it must still reach the dead-letter queue, not vanish as a skipped message.
    if (message.attempt >= MAX_ATTEMPTS) throw new Error(`delivery to ${message.inbox} failed ${message.attempt} times; server unavailable`);
    log.info('delivery dropped: server unavailable', { inbox: message.inbox, until: health.unavailableUntil });
    return 'skipped';
  }
  const signer = await signerOf(message);
  if (!signer) {
    log.warn('delivery dropped: no such signing account', { inbox: message.inbox, signer: message.signer });
    return 'dropped';
  }
  let status: number | undefined;
  let failure: string;
  try {
    status = await postActivity(message.inbox, message.activity, signer);
    failure = `answered ${status}`;
  } catch (err) {
    if (err instanceof FetchRefused) {
      log.warn('delivery dropped: destination refused', { inbox: message.inbox, reason: err.reason });
      return 'dropped';
    }
    if (!(err instanceof FetchFailed)) throw err;
    failure = err.reason;
  }
  if (status !== undefined && status >= 200 && status < 300) {
    if (health) await clearServerHealth(domain);
    return 'delivered';
  }
  if (status !== undefined && !transientStatus(status)) {
    log.warn('delivery refused by the server', { inbox: message.inbox, status, activity: message.activity.id });
    return 'dropped';
  }
  await countFailure(domain, now);
  if (message.attempt >= MAX_ATTEMPTS) throw new Error(`delivery to ${message.inbox} failed ${message.attempt} times; last: ${failure}`);
  log.info('delivery failed; retrying later', { inbox: message.inbox, attempt: message.attempt, reason: failure });
  await retryLater(message, RETRY_DELAYS_S[message.attempt - 1]!, now);
  return 'retrying';
}
