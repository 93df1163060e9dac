// Irreversible keyword filters as a rule of who sees what (Mastodon 3.5's
// CustomFilter matching and FeedManager#phrase_filtered?): matching a status's
// text, dropping what a viewer's filters hide on read, and choosing who drops a
// status at fan-out and notification time. The filters themselves are kept by lib/filters.
import { filtersOf, irreversibleFiltersOf, type Filter, type FilterContext } from '../db/filters';
import { statusesByIds, type Status } from '../db/statuses';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wordChar = /[\p{L}\p{N}_]/u;

/** Mastodon's CustomFilter matching: case-insensitive, word boundaries only where the phrase starts/ends with a word character. */
export function filterRegExp(filters: Filter[]): RegExp | undefined {
  if (filters.length === 0) return undefined;
  const parts = filters.map((f) => {
    const body = escapeRegExp(f.phrase);
    if (!f.wholeWord) return body;
    const start = wordChar.test(f.phrase.at(0) ?? '') ? '(?<![\\p{L}\\p{N}_])' : '';
    const end = wordChar.test(f.phrase.at(-1) ?? '') ? '(?![\\p{L}\\p{N}_])' : '';
    return `${start}${body}${end}`;
  });
  return new RegExp(parts.join('|'), 'iu');
}

/** Filters in force for a context now (expired ones stop applying). */
export function activeFilters(filters: Filter[], context: FilterContext, now: number = Date.now(), irreversibleOnly = false): Filter[] {
  return filters.filter(
    (f) => f.context.includes(context) && (f.expiresAt === null || Date.parse(f.expiresAt) > now) && (!irreversibleOnly || f.irreversible),
  );
}

/** Whether a status's text (content and content warning) matches. */
export const statusMatches = (status: Pick<Status, 'text' | 'spoilerText'>, re: RegExp | undefined) =>
  re !== undefined && (re.test(status.text) || re.test(status.spoilerText));

/**
 * Drops the statuses an account's irreversible filters for `context` match (a
 * reblog is judged by its original's text); the account's own statuses stay, as
 * in Mastodon's FeedManager. One query for the filters, one batch read for originals.
 */
export async function dropIrreversiblyFiltered(statuses: Status[], accountId: string, context: FilterContext): Promise<Status[]> {
  if (statuses.length === 0) return statuses;
  const re = filterRegExp(activeFilters(await filtersOf(accountId), context, Date.now(), true));
  if (!re) return statuses;
  const originals = await statusesByIds([...new Set(statuses.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))]);
  return statuses.filter((s) => {
    const judged = s.reblogOfId ? originals.get(s.reblogOfId) : s;
    if (!judged || judged.accountId === accountId) return true;
    return !statusMatches(judged, re);
  });
}

/** The text a status is judged by: a reblog by its original's (undefined when the original is gone). */
async function judgedStatus(status: Status): Promise<Status | undefined> {
  if (!status.reblogOfId) return status;
  return (await statusesByIds([status.reblogOfId])).get(status.reblogOfId);
}

/**
 * Which of `recipientIds` drop `status` from `context` by an irreversible filter
 * (Mastodon's FeedManager#phrase_filtered?), at fan-out and notification time.
 * One batch read of the recipients' filter summaries (100 per call); recipients
 * without irreversible filters cost nothing more. The author's own statuses stay.
 */
export async function recipientsFilteringOut(status: Status, recipientIds: string[], context: FilterContext, now: number = Date.now()): Promise<Set<string>> {
  const out = new Set<string>();
  if (recipientIds.length === 0) return out;
  const summaries = await irreversibleFiltersOf(recipientIds);
  if (summaries.size === 0) return out;
  const judged = await judgedStatus(status);
  if (!judged) return out;
  for (const [recipientId, filters] of summaries) {
    if (recipientId === judged.accountId) continue;
    if (statusMatches(judged, filterRegExp(activeFilters(filters, context, now, true)))) out.add(recipientId);
  }
  return out;
}

/** Drops notifications about statuses the viewer's irreversible `notifications` filters match (on read, for filters added later). */
export async function dropFilteredNotifications<N extends { statusId: string | null }>(notifications: N[], accountId: string): Promise<N[]> {
  const withStatus = notifications.filter((n) => n.statusId !== null);
  if (withStatus.length === 0) return notifications;
  const filters = (await irreversibleFiltersOf([accountId])).get(accountId) ?? [];
  const re = filterRegExp(activeFilters(filters, 'notifications', Date.now(), true));
  if (!re) return notifications;
  const statuses = await statusesByIds([...new Set(withStatus.map((n) => n.statusId!))]);
  const kept = await dropIrreversiblyFilteredWith([...statuses.values()], accountId, re);
  const keptIds = new Set(kept.map((s) => s.id));
  return notifications.filter((n) => n.statusId === null || !statuses.has(n.statusId) || keptIds.has(n.statusId));
}

async function dropIrreversiblyFilteredWith(statuses: Status[], accountId: string, re: RegExp): Promise<Status[]> {
  const originals = await statusesByIds([...new Set(statuses.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))]);
  return statuses.filter((s) => {
    const judged = s.reblogOfId ? originals.get(s.reblogOfId) : s;
    if (!judged || judged.accountId === accountId) return true;
    return !statusMatches(judged, re);
  });
}
