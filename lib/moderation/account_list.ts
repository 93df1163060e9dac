// The moderators' account list (Mastodon's AccountFilter behind GET /api/v1 and /api/v2/admin/accounts), read
// from the facets of lib/db/admin_accounts.ts. The facet read is the most selective one the filters name (a state,
// the sign-up address, the origin); the username and domain filters run inside the Query; the rest (a second state,
// `active`, display name, e-mail, role) on the accounts read to render the page anyway.
//
// A page's cost is bounded: at most MAX_QUERIES Queries, each examining at most SCAN_LIMIT facet items when a filter
// needs the account (then the batch reads of the accounts they matched: at most 2 per Query), SCAN_LIMIT_IN_QUERY
// when every filter runs in the Query (its matches only are read, at most `limit` + what one Query matched). A page that filters out more than that answers what
// it found, and its Link goes on from the last item examined, so paging never stalls and never skips.
import { accountByEmail, accountsByIds, type Account } from '../db/accounts';
import { ipFacet, readFacet, type Facet, type FacetFilter, type StateFacet } from '../db/admin_accounts';
import type { Item } from '../db/table';
import type { IdRange, PageEdges } from '../paging';
import { roleOf } from '../policy/roles';

export const MAX_QUERIES = 4;
/** Facet items examined per Query when some filter needs the account itself (each match costs an account read). */
export const SCAN_LIMIT = 200;
/** ... and when every filter runs inside the Query (a facet item is ~100 bytes: 1,000 of them cost ~12 read units). */
export const SCAN_LIMIT_IN_QUERY = 1_000;

export type AccountListFilter = {
  origin?: 'local' | 'remote';
  /** States the account must be in (all of them). */
  states: StateFacet[];
  /** Not suspended (Mastodon's `active`). */
  active?: boolean;
  roleIds?: string[];
  /** Nothing matches (a filter on something never recorded here, such as `invited_by`). */
  none?: boolean;
  username?: string;
  displayName?: string;
  byDomain?: string;
  email?: string;
  ip?: string;
};

/** Which facet to read: the rarest state named, else the sign-up address, else the origin. */
function facetFor(f: AccountListFilter): Facet {
  const order: StateFacet[] = ['pending', 'staff', 'suspended', 'disabled', 'silenced', 'sensitized'];
  const state = order.find((s) => f.states.includes(s));
  if (state) return state;
  if (f.ip) return ipFacet(f.ip);
  if (f.byDomain !== undefined) return 'remote';
  return f.origin ?? 'all';
}

const lower = (s: string) => s.toLowerCase();

function inState(a: Account, state: StateFacet): boolean {
  switch (state) {
    case 'pending': return a.domain === null && !a.approved;
    case 'staff': return roleOf(a).id !== '-99';
    case 'silenced': return a.silencedAt !== null;
    case 'suspended': return a.suspendedAt !== null;
    case 'disabled': return a.disabled;
    case 'sensitized': return a.sensitizedAt !== null;
  }
}

/** The filters a facet read cannot apply, on the account itself. */
function matches(a: Account, f: AccountListFilter): boolean {
  if (f.origin === 'local' && a.domain !== null) return false;
  if (f.origin === 'remote' && a.domain === null) return false;
  if (!f.states.every((s) => inState(a, s))) return false;
  if (f.active && a.suspendedAt !== null) return false;
  if (f.roleIds && !f.roleIds.includes(roleOf(a).id)) return false;
  if (f.username && !lower(a.username).startsWith(lower(f.username))) return false;
  if (f.byDomain !== undefined && lower(a.domain ?? '') !== lower(f.byDomain)) return false;
  if (f.displayName && !lower(a.displayName).startsWith(lower(f.displayName))) return false;
  if (f.email && !(a.domain === null && lower(a.email ?? '').startsWith(lower(f.email)))) return false;
  if (f.ip && lower(a.signUpIp ?? '') !== lower(f.ip)) return false;
  return true;
}

export type AccountListPage = { accounts: Account[]; edges: PageEdges; queries: number };

const inRange = (id: string, r: IdRange) => {
  const n = BigInt(id);
  if (r.max_id !== undefined && n >= BigInt(r.max_id)) return false;
  const lo = r.min_id ?? r.since_id;
  return lo === undefined || n > BigInt(lo);
};

export async function listAccounts(f: AccountListFilter, range: IdRange, limit: number): Promise<AccountListPage> {
  if (f.none) return { accounts: [], edges: {}, queries: 0 };
  // An e-mail address in full names one account (its EMAIL# item): one read instead of a walk. A part of one
  // (Mastodon matches a prefix) walks the facet like the other filters.
  if (f.email && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(f.email)) {
    const one = await accountByEmail(f.email);
    const hit = one && matches(one, f) && inRange(one.id, range) ? [one] : [];
    return { accounts: hit, edges: { newest: hit[0]?.id, oldest: hit[0]?.id }, queries: 0 };
  }
  const facet = facetFor(f);
  const ascending = range.min_id !== undefined;
  const inQuery: FacetFilter = {
    ...(f.username ? { usernamePrefix: f.username } : {}),
    ...(f.byDomain !== undefined ? { host: f.byDomain } : {}),
    ...(f.origin && facet !== f.origin && !(f.byDomain !== undefined) ? { origin: f.origin } : {}),
  };
  const needsAccount = f.states.length > (facet === f.states[0] ? 1 : 0) || f.active || f.roleIds || f.displayName || f.email || (f.ip && facet !== ipFacet(f.ip));
  const scan = needsAccount ? SCAN_LIMIT : Object.keys(inQuery).length > 0 ? SCAN_LIMIT_IN_QUERY : limit + 1;
  const taken: Account[] = [];
  let startKey: Item | undefined;
  let stopAt: string | undefined;
  let queries = 0;
  while (queries < MAX_QUERIES) {
    const read = await readFacet(facet, range, scan, inQuery, startKey);
    queries++;
    // Without a filter on the account itself every id read matches: only those the page still needs (and one
    // more, to know it is full) are read.
    const wanted = needsAccount ? read.ids : read.ids.slice(0, limit - taken.length + 1);
    const byId = await accountsByIds(wanted);
    let filled = false;
    for (const id of wanted) {
      const a = byId.get(id);
      if (!a || !matches(a, f)) continue;
      if (taken.length === limit) {
        filled = true;
        break;
      }
      taken.push(a);
    }
    if (filled) {
      stopAt = taken.at(-1)!.id;
      break;
    }
    if (!read.lastKey) {
      stopAt = undefined;
      break;
    }
    startKey = read.lastKey;
    stopAt = read.continueFrom;
  }
  const first = taken[0]?.id;
  const last = taken.at(-1)?.id;
  const edges: PageEdges = ascending
    ? { newest: stopAt ?? last, oldest: first ?? stopAt }
    : { newest: first ?? stopAt, oldest: stopAt ?? last };
  return { accounts: ascending ? taken.reverse() : taken, edges, queries };
}
