// Keyword filters v1 (https://docs.joinmastodon.org/methods/filters/, Mastodon 3.5's
// CustomFilter): input rules and the Filter entity. What a filter hides, and from
// whom, is decided in lib/policy/filters.ts.
import { z } from 'zod';
import {
  createFilter,
  deleteFilter,
  filterById,
  filterContexts,
  filtersOf,
  refreshIrreversibleSummary,
  updateFilter,
  type Filter,
  type FilterChanges,
  type FilterContext,
} from '../db/filters';
import { nowIso } from '../db/table';
import { notFound, unprocessable } from '../errors';
import { absent, booleanish, oneOrMany } from '../schema';
import { cappedText, RAW_CAPS } from '../text/limits';
import { isId, newId } from '../ids';
import { publishFiltersChanged } from '../streaming/publish';

/** `expires_in` in seconds; null or '' means no expiry. */
const expiresIn = z.preprocess(
  (v) => (v === '' ? null : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
  z.number({ invalid_type_error: 'must be a number' }).int('must be an integer').min(1, 'must be positive').max(10 * 365 * 86400, 'is too far in the future').nullable().optional(),
);
const contextList = oneOrMany(z.array(z.string({ invalid_type_error: 'must be a string' }), { invalid_type_error: 'must be an array' }).max(10).optional());

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
