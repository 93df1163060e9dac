// What the operator's IP rules (lib/db/sign_up_blocks.ts, Mastodon's IpBlock) mean for a request's address:
// `no_access` refuses every request from the range (checked by lib/http for each request, as Mastodon's
// Rack::Attack blocklist), `sign_up_block` refuses sign-ups, `sign_up_requires_approval` holds them for a
// moderator. The rules are read whole through lib/memo.ts: a request costs no read of its own most of the time,
// and a rule made in another container applies within IP_RULES_TTL_MS. An expired rule applies no more.
import { allIpBlocks, type IpBlock, type IpBlockSeverity } from '../db/sign_up_blocks';
import { memo } from '../memo';
import { cidrContains } from '../net';

/** How long a container keeps the rules: every request asks, so one read a minute per container; a change shows within it. */
export const IP_RULES_TTL_MS = 60_000;

const recentRules = memo(() => allIpBlocks(), { ttlMs: IP_RULES_TTL_MS });

/** Forgets the kept rules (after a change made in this container; tests). */
export const forgetIpBlocks = (): void => recentRules.forget();

const live = (rule: IpBlock, now: number) => rule.expiresAt === null || Date.parse(rule.expiresAt) > now;

/** The live rules of `severity` whose range holds `ip`. */
export async function ipRulesFor(ip: string, severity: IpBlockSeverity, now = Date.now()): Promise<IpBlock[]> {
  if (ip === '') return [];
  const rules = await recentRules.get();
  return rules.filter((r) => r.severity === severity && live(r, now) && cidrContains(r.cidr, ip));
}

/** Loopback is never refused, as Mastodon's Rack::Attack safelists localhost: the operator cannot lock the stack out of itself. */
const isLoopback = (ip: string) => ip === '::1' || ip.startsWith('127.') || ip === '::ffff:127.0.0.1';

/** Is every request from `ip` refused (a live `no_access` rule holds it)? */
export const isNoAccessAddress = async (ip: string): Promise<boolean> => !isLoopback(ip) && (await ipRulesFor(ip, 'no_access')).length > 0;
