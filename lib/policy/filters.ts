// Filters as a rule of who sees what (Mastodon 4's CustomFilter matching, and
// FeedManager's dropping of what `hide` filters match): matching a status against a
// viewer's filters, dropping what the viewer's `hide` filters of a context match on
// read, and choosing who drops a status at fan-out and notification time. The filters
// themselves are kept by lib/filters; `warn` filters only mark statuses (status.filtered,
// lib/filters/results.ts).
//
// A status is judged by its original when it is a reblog; the viewer's own statuses are
// never dropped nor marked (as FeedManager never filters a receiver's own statuses).
import { filtersOfAccount, hideFiltersOf, hideSummariesOf, toHideFilter, type CustomFilter, type FilterContext, type HideFilter } from '../db/filters';
import { statusesByIds, type Status } from '../db/statuses';
import { factInRequest, setFactInRequest } from '../request_scope';
import { compileKeywords, type KeywordMatcher } from './keywords';

export { compileKeywords, type KeywordMatcher, type Phrase } from './keywords';

/** compileKeywords for v1-shaped filters (one phrase each). */
export const filterMatcher = (filters: { phrase: string; wholeWord: boolean }[]) => compileKeywords(filters.map((f) => ({ keyword: f.phrase, wholeWord: f.wholeWord })));

type Scoped = { context: readonly string[]; expiresAt: string | null; action?: string; irreversible?: boolean };

/** Filters in force for a context now (expired ones stop applying); with `hideOnly`, only those that drop (hide, v1's irreversible). */
export function activeFilters<F extends Scoped>(filters: F[], context: FilterContext, now: number = Date.now(), hideOnly = false): F[] {
  return filters.filter(
    (f) =>
      f.context.includes(context) &&
      (f.expiresAt === null || Date.parse(f.expiresAt) > now) &&
      (!hideOnly || f.action === 'hide' || f.irreversible === true),
  );
}

/** The text a status is matched on: content and content warning (Mastodon's searchable_text, without poll options and media descriptions). */
const textsOf = (status: Pick<Status, 'text' | 'spoilerText'>) => [status.spoilerText, status.text];

/** Whether a status's text (content and content warning) matches. */
export const statusMatches = (status: Pick<Status, 'text' | 'spoilerText'>, matcher: KeywordMatcher | undefined) =>
  matcher !== undefined && textsOf(status).some((t) => matcher.test(t));

/** The first text a filter's keywords match in a status (Mastodon's keyword_matches), or undefined. */
export function firstKeywordMatch(status: Pick<Status, 'text' | 'spoilerText'>, matcher: KeywordMatcher | undefined): string | undefined {
  if (!matcher) return undefined;
  for (const t of textsOf(status)) {
    const m = matcher.exec(t);
    if (m !== undefined) return m;
  }
  return undefined;
}

/** What a hide filter needs to judge a status: its keywords' matcher and its status ids. */
type Judge = { matcher: KeywordMatcher | undefined; statusIds: Set<string> };
const judgeOf = (filters: HideFilter[]): Judge => ({
  matcher: compileKeywords(filters.flatMap((f) => f.keywords)),
  statusIds: new Set(filters.flatMap((f) => f.statusIds)),
});

/** Does a status (`wrapper`, judged by `proper`, its original when it is a reblog) match? */
const judged = (j: Judge, wrapper: Status, proper: Status) =>
  j.statusIds.has(wrapper.id) || j.statusIds.has(proper.id) || statusMatches(proper, j.matcher);

/**
 * judged, for one recipient's filters in force, decided once per invocation: the fan-out
 * judges the same recipients again for their lists and as followers of its tags. The
 * answer is kept, not the compiled keywords (up to 500 of 512 characters for each of a
 * page's 1,000 recipients). `version` tells one reading of the recipient's summary from another.
 */
function judgedOnce(recipientId: string, version: number, filters: HideFilter[], wrapper: Status, proper: Status): boolean {
  const key = `filters:judged:${recipientId}:${version}:${filters.map((f) => f.id).join(',')}:${wrapper.id}`;
  const known = factInRequest(key);
  if (typeof known === 'boolean') return known;
  const answer = judged(judgeOf(filters), wrapper, proper);
  setFactInRequest(key, answer);
  return answer;
}

/** The originals of the reblogs among `statuses` that are not themselves in the list (one batch read, none when there are none). */
async function properOf(statuses: Status[]): Promise<(s: Status) => Status | undefined> {
  const onPage = new Map(statuses.map((s) => [s.id, s]));
  const missing = [...new Set(statuses.flatMap((s) => (s.reblogOfId && !onPage.has(s.reblogOfId) ? [s.reblogOfId] : [])))];
  const read = missing.length > 0 ? await statusesByIds(missing) : new Map<string, Status>();
  return (s) => (s.reblogOfId ? onPage.get(s.reblogOfId) ?? read.get(s.reblogOfId) : s);
}

/** Drops what `filters` (already narrowed to a context) match, the account's own statuses kept. */
async function withoutMatching(statuses: Status[], accountId: string, filters: HideFilter[]): Promise<Status[]> {
  if (filters.length === 0 || statuses.length === 0) return statuses;
  const judge = judgeOf(filters);
  const proper = await properOf(statuses);
  return statuses.filter((s) => {
    const p = proper(s);
    if (!p || p.accountId === accountId) return true;
    return !judged(judge, s, p);
  });
}

/**
 * Drops the statuses an account's `hide` filters for `context` match (a reblog is
 * judged by its original; a status filter matches the reblog or its original); the
 * account's own statuses stay, as in Mastodon's FeedManager. One Query of the account's
 * filters (the partition itself, so that a read follows every change at once), one
 * batch read for originals not on the page.
 */
export async function dropIrreversiblyFiltered(statuses: Status[], accountId: string, context: FilterContext): Promise<Status[]> {
  if (statuses.length === 0) return statuses;
  const hiding = (await filtersOfAccount(accountId)).filter((f) => f.action === 'hide').map(toHideFilter);
  return withoutMatching(statuses, accountId, activeFilters(hiding, context));
}

/**
 * Which of `recipientIds` drop `status` from `context` by a hide filter (Mastodon's
 * FeedManager#phrase_filtered?), at fan-out and notification time. One batch read of
 * the recipients' filter summaries (100 per call); recipients without hide filters cost
 * nothing more. The author's own statuses stay. A recipient's keywords are compiled once
 * per status and invocation and read its text once (lib/policy/keywords.ts), in time linear
 * in their total length (at most 500 of 512 characters) and in the text's.
 */
export async function recipientsFilteringOut(status: Status, recipientIds: string[], context: FilterContext, now: number = Date.now()): Promise<Set<string>> {
  const out = new Set<string>();
  if (recipientIds.length === 0) return out;
  const summaries = await hideSummariesOf(recipientIds);
  if (summaries.size === 0) return out;
  const proper = (await properOf([status]))(status);
  if (!proper) return out;
  for (const [recipientId, { filters, readAt }] of summaries) {
    if (recipientId === proper.accountId) continue;
    const active = activeFilters(filters, context, now);
    if (active.length > 0 && judgedOnce(recipientId, readAt, active, status, proper)) out.add(recipientId);
  }
  return out;
}

/** Drops notifications about statuses the viewer's `notifications` hide filters match (on read, for filters added later). */
export async function dropFilteredNotifications<N extends { statusId: string | null }>(notifications: N[], accountId: string): Promise<N[]> {
  const withStatus = notifications.filter((n) => n.statusId !== null);
  if (withStatus.length === 0) return notifications;
  const filters = activeFilters((await hideFiltersOf([accountId])).get(accountId) ?? [], 'notifications');
  if (filters.length === 0) return notifications;
  const statuses = await statusesByIds([...new Set(withStatus.map((n) => n.statusId!))]);
  const kept = new Set((await withoutMatching([...statuses.values()], accountId, filters)).map((s) => s.id));
  return notifications.filter((n) => n.statusId === null || !statuses.has(n.statusId) || kept.has(n.statusId));
}

/** One filter's matches on a status (Mastodon's FilterResult without the filter entity), or undefined when it does not match. */
export type FilterMatch = { filter: CustomFilter; keywordMatches: string[] | null; statusMatches: string[] | null };

/**
 * The viewer's filters of `context` (warn and hide alike) that match each status, by
 * status id; a reblog is judged by its original and its matches are also its original's
 * (as Mastodon's StatusRelationshipsPresenter). The viewer's own statuses are not marked.
 * `statuses` must hold the originals of its reblogs (the renderer's page does).
 */
export function filterMatches(statuses: Status[], viewerId: string, filters: CustomFilter[], context: FilterContext, now: number = Date.now()): Map<string, FilterMatch[]> {
  const out = new Map<string, FilterMatch[]>();
  const inForce = activeFilters(filters, context, now);
  // A filter's own matcher is compiled only once some keyword matched a status of the page (most pages: never),
  // so an ordinary page compiles the viewer's keywords once, not once together and once per filter.
  const active = inForce.map((f) => {
    let matcher: KeywordMatcher | undefined | null = null;
    const matcherOf = () => (matcher === null ? (matcher = compileKeywords(f.keywords)) : matcher);
    return { filter: f, matcherOf, statusIds: new Set(f.statuses.map((s) => s.statusId)) };
  });
  if (active.length === 0) return out;
  // Every keyword at once: a status none of them matches (most) is read once, not once per filter.
  const anyKeyword = compileKeywords(inForce.flatMap((f) => f.keywords));
  const byId = new Map(statuses.map((s) => [s.id, s]));
  for (const s of statuses) {
    const proper = s.reblogOfId ? byId.get(s.reblogOfId) : s;
    if (!proper || proper.accountId === viewerId) continue;
    const someKeyword = statusMatches(proper, anyKeyword);
    const matches = active.flatMap(({ filter, matcherOf, statusIds }): FilterMatch[] => {
      const keyword = someKeyword ? firstKeywordMatch(proper, matcherOf()) : undefined;
      const byStatus = statusIds.size > 0 ? [s.id, ...(s.reblogOfId ? [s.reblogOfId] : [])].filter((id) => statusIds.has(id)) : null;
      if (keyword === undefined && (byStatus === null || byStatus.length === 0)) return [];
      return [{ filter, keywordMatches: keyword === undefined ? null : [keyword], statusMatches: byStatus }];
    });
    if (matches.length === 0) continue;
    out.set(s.id, matches);
    if (s.reblogOfId && !out.has(s.reblogOfId)) out.set(s.reblogOfId, matches);
  }
  return out;
}
