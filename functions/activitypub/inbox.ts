// POST /users/:username/inbox and POST /inbox (ActivityPub §7, server-to-server;
// signatures as https://docs.joinmastodon.org/spec/security/#http): the activity is
// verified and queued here, then handled by the inbox worker; the sender gets 202.
// Requests that cannot be verified are counted per address (throttles.inboxUnverified, only
// when they fail: an honest peer's deliveries verify and cost it nothing): past the budget
// they are answered 429 and cost no key fetch.
import { z } from 'zod';
import { HttpError } from '../../lib/errors';
import { receiveInboxRequest } from '../../lib/federation/inbox_request';
import { http, Reply, type Ctx } from '../../lib/http';
import { addressSubject, exemptFromRateLimits, hit, spent, throttles, tooManyRequests, type Budget } from '../../lib/http/ratelimit';

/** `username` for a personal inbox; absent for the shared inbox. */
export const schema = z.object({ username: z.string().min(1).optional() });

/** Addresses this instance saw spend their budget, until its window ends: refused with no read at all. */
const spentBudgets = new Map<string, Budget>();
const SPENT_MAX = 10_000;

/** 401 (unverifiable) and 503 (a key not to be had now) are what the budget counts. */
const unverifiable = (err: unknown) => err instanceof HttpError && (err.status === 401 || err.status === 503);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  const subject = addressSubject(ctx.ip);
  const known = spentBudgets.get(subject);
  if (known && known.resetAt.getTime() > Date.now()) throw tooManyRequests(known);
  const refuse = (budget: Budget): never => {
    if (spentBudgets.size >= SPENT_MAX) spentBudgets.delete(spentBudgets.keys().next().value!);
    spentBudgets.set(subject, budget);
    throw tooManyRequests(budget);
  };
  const query = ctx.event.rawQueryString ? `?${ctx.event.rawQueryString}` : '';
  try {
    await receiveInboxRequest(
      { method: ctx.event.requestContext.http.method, path: `${ctx.path}${query}`, headers: ctx.headers, body: ctx.rawBody ?? Buffer.alloc(0) },
      input.username,
      {
        // A request that would spend a key fetch asks this instance's tally, no table read: an address spent here is
        // refused before anything (above); one spent in another instance is refused here after its next failure.
        beforeKeyFetch: async () => {
          const budget = spentBudgets.get(subject);
          if (budget && budget.resetAt.getTime() > Date.now()) refuse(budget);
        },
      },
    );
  } catch (err) {
    if (unverifiable(err) && !exemptFromRateLimits(ctx.ip)) {
      const budget = await hit(throttles.inboxUnverified, subject);
      if (spent(budget)) refuse(budget);
    }
    throw err;
  }
  return new Reply(202, '', {}, [], 'raw');
}

export const handler = http(run, { auth: 'public', schema, rawBody: true });
