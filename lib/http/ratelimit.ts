// Rate limits as Mastodon's (config/initializers/rack_attack.rb): fixed windows
// counted in DynamoDB (lib/db/ratelimits.ts), a 429 `{"error"}` with the
// X-RateLimit-* headers when a budget is spent, and the same headers on the
// answers that stay within it. As Mastodon safelists localhost, a request from
// loopback on the local stage is counted against nothing (config.rateLimitLoopback
// turns that off); on a deployed stage the viewer's address comes from the
// distribution (lib/origin.ts) and nothing is exempt.
import { isIP } from 'node:net';
import { uncountedWrites } from '../aws';
import { config } from '../config';
import { countHit } from '../db/ratelimits';
import { HttpError } from '../errors';
import { rateTally } from './rate_tally';
import { Reply } from './reply';

export type Throttle = {
  /** Part of the counter's key: renaming one starts its counts afresh. */
  name: string;
  /** Requests allowed per window, before RATE_LIMIT_FACTOR. */
  limit: number;
  periodSeconds: number;
  /** What an endpoint's own throttle counts by: the address (the default), or the signed-in account. */
  per?: 'address' | 'account';
  /** Counted in the instance's memory and written in batches (./rate_tally.ts): the general API budgets. */
  tallied?: boolean;
};

/** Mastodon's throttles, by the name it gives them. */
export const throttles = {
  /** throttle_per_token_api: every /api request made with a valid access token, per token. */
  apiToken: { name: 'api-token', limit: 300, periodSeconds: 5 * 60, tallied: true },
  /** throttle_unauthenticated_api: /api requests without a valid token, per address. */
  apiAddress: { name: 'api-ip', limit: 300, periodSeconds: 5 * 60, tallied: true },
  /** throttle_api_sign_up: POST /api/v1/accounts, per address. */
  signUp: { name: 'sign-up', limit: 5, periodSeconds: 30 * 60 },
  /**
   * throttle_oauth_application_registrations/ip (Mastodon 4.3): POST /api/v1/apps,
   * per address. A client registers once per login, and every registration is a
   * record kept for good, so a handful per address is plenty.
   */
  appRegistration: { name: 'app', limit: 5, periodSeconds: 10 * 60 },
  /**
   * The client_credentials grant, per address, as app registration: a client asks for an app token once
   * per registration (to sign a user up), and every grant is a token kept for good (Mastodon never expires them).
   */
  appToken: { name: 'app-token', limit: 5, periodSeconds: 10 * 60 },
  /** throttle_login_attempts/ip: password grant and login form, per address. */
  signInAddress: { name: 'sign-in-ip', limit: 25, periodSeconds: 5 * 60 },
  /** throttle_login_attempts/email: the same, per e-mail address tried. */
  signInEmail: { name: 'sign-in-email', limit: 25, periodSeconds: 60 * 60 },
  /** throttle_api_media: POST /api/v1/media and /api/v2/media, per account (each upload is image work and storage). */
  mediaUpload: { name: 'media', limit: 30, periodSeconds: 30 * 60, per: 'account' },
  /** throttle_api_delete: DELETE /api/v1/statuses/:id and POST .../unreblog, per account (each fans out to every follower). */
  statusDelete: { name: 'delete', limit: 30, periodSeconds: 30 * 60, per: 'account' },
  /**
   * Not Mastodon's (its inbox has none; Rack::Attack's general throttle covers it): inbox POSTs that could not be
   * verified (no key, a key that cannot be fetched, a bad signature), per address. Each may cost a key fetch; an
   * honest server's deliveries verify and are not counted, its few first deliveries of an actor included. Tallied
   * (written in batches): a flood of them costs about one write in ten, not one each.
   */
  inboxUnverified: { name: 'inbox-unverified', limit: 100, periodSeconds: 5 * 60, tallied: true },
} satisfies Record<string, Throttle>;

/** A throttle's state once this request is counted. */
export type Budget = { limit: number; count: number; resetAt: Date };

/** Counters stay a little past their window, for anyone looking into a complaint; then TTL removes them. */
const KEEP_AFTER_WINDOW_SECONDS = 60 * 60;

export const limitOf = (throttle: Throttle) => Math.max(1, Math.round(throttle.limit * config.rateLimitFactor));

/** The start of the fixed window `at` falls in, in epoch seconds, as Rack::Attack aligns them. */
export const windowStart = (throttle: Throttle, at: number = Date.now()) =>
  Math.floor(at / 1000 / throttle.periodSeconds) * throttle.periodSeconds;

/**
 * Counts one request against a throttle: in DynamoDB, or for a tallied throttle in this
 * instance's tally, written in batches (./rate_tally.ts). The write is bookkeeping, not the
 * request's effect: it is made (and left out of the write metrics) even when the request is
 * then refused.
 */
export async function hit(throttle: Throttle, subject: string, at: number = Date.now()): Promise<Budget> {
  const start = windowStart(throttle, at);
  const end = start + throttle.periodSeconds;
  const limit = limitOf(throttle);
  const write = (hits: number) => uncountedWrites(() => countHit(throttle.name, subject, start, end + KEEP_AFTER_WINDOW_SECONDS, hits));
  const count = throttle.tallied ? await rateTally.hit(`${throttle.name}#${subject}`, start, limit, write, at) : await write(1);
  return { limit, count, resetAt: new Date(end * 1000) };
}

export const spent = (budget: Budget) => budget.count > budget.limit;

export function rateLimitHeaders(budget: Budget): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(budget.limit),
    'X-RateLimit-Remaining': String(Math.max(0, budget.limit - budget.count)),
    'X-RateLimit-Reset': budget.resetAt.toISOString(),
  };
}

/** Mastodon's throttled answer; a spent budget has 0 remaining. */
export const tooManyRequests = (budget: Budget) => new HttpError(429, 'Too many requests', {}, rateLimitHeaders(budget));

/**
 * Throws the 429 of the first spent budget (in the order given: the most
 * specific first); otherwise answers the one with the fewest requests left,
 * whose headers the answer carries, as Mastodon picks its most limited throttle.
 */
export function enforce(budgets: (Budget | undefined)[]): Budget | undefined {
  const counted = budgets.filter((b): b is Budget => b !== undefined);
  const over = counted.find(spent);
  if (over) throw tooManyRequests(over);
  return counted.reduce<Budget | undefined>((least, b) => (!least || b.limit - b.count < least.limit - least.count ? b : least), undefined);
}

/** Adds a budget's headers to an answer, unless the answer carries its own (a 429). */
export function withRateLimitHeaders(reply: Reply, budget: Budget | undefined): Reply {
  if (!budget || Object.keys(reply.headers).some((k) => k.toLowerCase() === 'x-ratelimit-limit')) return reply;
  return new Reply(reply.status, reply.body, { ...rateLimitHeaders(budget), ...reply.headers }, reply.cookies, reply.kind);
}

/** Is `ip` on loopback (127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6)? */
export function isLoopback(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return ip.startsWith('127.');
  if (family !== 6) return false;
  const groups = ipv6Groups(ip);
  if (groups.join(':') === '0:0:0:0:0:0:0:1') return true;
  return groups.slice(0, 6).join(':') === '0:0:0:0:0:ffff' && parseInt(groups[6] ?? '0', 16) >> 8 === 127;
}

/** A request from `ip` is counted against no rate limit (Mastodon's localhost safelist, on the local stage only). */
export const exemptFromRateLimits = (ip: string): boolean => !config.rateLimitLoopback && isLoopback(ip);

/** Mastodon's API paths: the general budget covers these alone. */
export const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

/**
 * The subject an address is counted under: IPv4 as it is, IPv6 cut to its /64
 * (one subscriber usually holds a whole /64, as Mastodon's throttleable_remote_ip).
 */
export function addressSubject(ip: string): string {
  const family = isIP(ip);
  if (family === 4) return ip;
  if (family !== 6) return 'unknown';
  const groups = ipv6Groups(ip);
  const mapped = groups.slice(0, 6).join(':') === '0:0:0:0:0:ffff';
  if (mapped) return groups.slice(6).flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]).join('.');
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, zone dropped, dotted tail converted, without leading zeros. */
function ipv6Groups(ip: string): string[] {
  let text = ip.split('%')[0] ?? '';
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((g) => parseInt(g, 16).toString(16));
}
