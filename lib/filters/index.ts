// Keyword filters v1 (https://docs.joinmastodon.org/methods/filters/, Mastodon 3.5's
// CustomFilter): input rules, the Filter entity, and matching a status's text.
import { z } from 'zod';
import {
  createFilter,
  deleteFilter,
  filterById,
  filterContexts,
  filtersOf,
  irreversibleFiltersOf,
  refreshIrreversibleSummary,
  updateFilter,
  type Filter,
  type FilterChanges,
  type FilterContext,
} from '../db/filters';
import { statusesByIds, type Status } from '../db/statuses';
import { nowIso } from '../db/table';
import { notFound, unprocessable } from '../errors';
import { booleanish } from '../http/validate';
import { cappedText, RAW_CAPS } from '../text/limits';
import { isId, newId } from '../ids';
import { publishFiltersChanged } from '../streaming/publish';

const absent = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (v === null || v === '' ? undefined : v), schema.optional());
/** `expires_in` in seconds; null or '' means no expiry. */
const expiresIn = z.preprocess(
  (v) => (v === '' ? null : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
  z.number({ invalid_type_error: 'must be a number' }).int('must be an integer').min(1, 'must be positive').max(10 * 365 * 86400, 'is too far in the future').nullable().optional(),
);
const contextList = z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string({ invalid_type_error: 'must be a string' }), { invalid_type_error: 'must be an array' }).max(10).optional());

export const filterFields = z.object({
  // Mastodon's CustomFilterKeyword limit; every status is matched against every phrase, so it stays small.
  phrase: absent(cappedText(RAW_CAPS.filterPhrase)),
  context: contextList,
  irreversible: absent(booleanish),
  whole_word: absent(booleanish),
  expires_in: expiresIn,
});
export type FilterFields = z.infer<typeof filterFields>;

/** Mastodon's CustomFilter#context_must_be_valid. */
function checkContext(context: string[] | undefined): FilterContext[] | undefined {
  if (context === undefined) return undefined;
  const valid = (c: string): c is FilterContext => (filterContexts as readonly string[]).includes(c);
  if (context.length === 0 || !context.every(valid)) throw unprocessable('Validation failed: Context None or invalid context supplied');
  return [...new Set(context.filter(valid))];
}

const expiresAtOf = (seconds: number | null | undefined) =>
  seconds === undefined ? undefined : seconds === null ? null : new Date(Date.now() + seconds * 1000).toISOString();

export async function addFilter(accountId: string, input: FilterFields): Promise<Filter> {
  const missing: string[] = [];
  if (input.phrase === undefined || input.phrase.trim() === '') missing.push("Phrase can't be blank");
  if (input.context === undefined) missing.push("Context can't be blank");
  if (missing.length > 0) throw unprocessable(`Validation failed: ${missing.join(', ')}`);
  const filter: Filter = {
    id: newId(),
    accountId,
    phrase: (input.phrase ?? '').trim(),
    context: checkContext(input.context) ?? [],
    wholeWord: input.whole_word ?? true,
    irreversible: input.irreversible ?? false,
    expiresAt: expiresAtOf(input.expires_in) ?? null,
    createdAt: nowIso(),
  };
  await createFilter(filter);
  await refreshIrreversibleSummary(accountId);
  await publishFiltersChanged(accountId);
  return filter;
}

export async function ownFilter(accountId: string, id: string): Promise<Filter> {
  const found = isId(id) ? await filterById(accountId, id) : undefined;
  if (!found) throw notFound();
  return found;
}

export async function changeFilter(accountId: string, id: string, input: FilterFields): Promise<Filter> {
  await ownFilter(accountId, id);
  if (input.phrase !== undefined && input.phrase.trim() === '') throw unprocessable("Validation failed: Phrase can't be blank");
  const changes: FilterChanges = {
    phrase: input.phrase?.trim(),
    context: checkContext(input.context),
    wholeWord: input.whole_word,
    irreversible: input.irreversible,
    expiresAt: expiresAtOf(input.expires_in),
  };
  const updated = await updateFilter(accountId, id, changes);
  if (!updated) throw notFound();
  await refreshIrreversibleSummary(accountId);
  await publishFiltersChanged(accountId);
  return updated;
}

export async function removeFilter(accountId: string, id: string): Promise<void> {
  if (!isId(id) || !(await deleteFilter(accountId, id))) throw notFound();
  await refreshIrreversibleSummary(accountId);
  await publishFiltersChanged(accountId);
}

export const listFilters = (accountId: string) => filtersOf(accountId);

/** The v1 Filter entity. */
export const renderFilter = (f: Filter) => ({
  id: f.id,
  phrase: f.phrase,
  context: f.context,
  whole_word: f.wholeWord,
  expires_at: f.expiresAt,
  irreversible: f.irreversible,
});

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
