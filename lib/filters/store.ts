// The write path every filter endpoint shares (v1 and v2): finding the caller's own
// filter, the caps that keep an account's filters (and its hide summary item) small,
// saving a changed filter and rewriting the hide summary. The filters_changed stream
// event is sent by the handlers (lib/streaming imports lib/render, which reads
// lib/filters/results.ts: sending it from here would close a loop of folders).
import {
  deleteFilter,
  filterOfAccount,
  filtersOfAccount,
  filterWriteSize,
  MAX_FILTER_WRITE_ITEMS,
  refreshHideSummary,
  saveFilter,
  type CustomFilter,
  type FilterContext,
  filterContexts,
} from '../db/filters';
import { notFound, unprocessable } from '../errors';
import { isId } from '../ids';

/**
 * Per account: Mastodon sets no limits, but every status a viewer reads is matched
 * against every keyword, and the hide summary is one item (400 KB): 500 keywords of at
 * most 512 characters and 500 statuses stay well under it.
 */
export const FILTER_CAPS = { filters: 100, keywords: 500, statuses: 500 } as const;

/** The caller's filter by id, or 404 (also for ids that cannot exist). */
export async function ownFilterById(accountId: string, id: string): Promise<CustomFilter> {
  const found = isId(id) ? await filterOfAccount(accountId, id) : undefined;
  if (!found) throw notFound();
  return found;
}

/** Mastodon's CustomFilter#context_must_be_valid: at least one context, all known. Duplicates are dropped. */
export function checkContext(context: string[] | undefined): FilterContext[] | undefined {
  if (context === undefined) return undefined;
  const valid = (c: string): c is FilterContext => (filterContexts as readonly string[]).includes(c);
  if (context.length === 0 || !context.every(valid)) throw unprocessable('Validation failed: Context None or invalid context supplied');
  return [...new Set(context.filter(valid))];
}

/** `expires_in` seconds as the stored expiry: undefined leaves it, null clears it. */
export const expiresAtOf = (seconds: number | null | undefined) =>
  seconds === undefined ? undefined : seconds === null ? null : new Date(Date.now() + seconds * 1000).toISOString();

/** Refuses a write that would take the account past FILTER_CAPS (read from the account's filters, consistent). */
async function checkCaps(before: CustomFilter | undefined, after: CustomFilter): Promise<void> {
  if (filterWriteSize(before, after) > MAX_FILTER_WRITE_ITEMS) throw unprocessable('Validation failed: Too many keyword changes at once');
  const grows = !before || after.keywords.length > before.keywords.length || after.statuses.length > before.statuses.length;
  if (!grows) return;
  const all = await filtersOfAccount(after.accountId, true);
  const others = all.filter((f) => f.id !== after.id);
  const count = (pick: (f: CustomFilter) => number) => others.reduce((n, f) => n + pick(f), pick(after));
  if (!before && others.length + 1 > FILTER_CAPS.filters) throw unprocessable(`Validation failed: You cannot have more than ${FILTER_CAPS.filters} filters`);
  if (after.keywords.length > (before?.keywords.length ?? 0) && count((f) => f.keywords.length) > FILTER_CAPS.keywords) {
    throw unprocessable(`Validation failed: You cannot have more than ${FILTER_CAPS.keywords} filter keywords`);
  }
  if (after.statuses.length > (before?.statuses.length ?? 0) && count((f) => f.statuses.length) > FILTER_CAPS.statuses) {
    throw unprocessable(`Validation failed: You cannot have more than ${FILTER_CAPS.statuses} filtered statuses`);
  }
}

/** Writes `after` over `before` (a new filter when undefined), then the hide summary. 404 when the filter went meanwhile. */
export async function storeFilter(before: CustomFilter | undefined, after: CustomFilter): Promise<CustomFilter> {
  await checkCaps(before, after);
  const saved = await saveFilter(before, after);
  if ('failed' in saved) {
    if (saved.failed === 'filter-gone') throw notFound();
    throw new Error(`filter id collision ${after.id}`);
  }
  await refreshHideSummary(after.accountId);
  return { ...after, legacy: false };
}

/** Deletes a filter with its keywords and statuses, then the hide summary. 404 when it was already gone. */
export async function dropFilter(filter: CustomFilter): Promise<void> {
  if (!(await deleteFilter(filter))) throw notFound();
  await refreshHideSummary(filter.accountId);
}
