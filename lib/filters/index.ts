// Keyword filters, API v1 (https://docs.joinmastodon.org/methods/filters/): since
// Mastodon 4 a view of the v2 filters (lib/filters/v2.ts). A v1 filter is one keyword:
// its id is the keyword's id, `phrase` and `whole_word` are the keyword's, `context`,
// `expires_at` and `irreversible` (filter_action hide) its filter's. Creating one creates
// a filter with one keyword (both with the same id); changing the filter's settings
// through v1 is refused when the filter has other keywords, as Mastodon does. What a
// filter hides, and from whom, is decided in lib/policy/filters.ts.
import { z } from 'zod';
import { filtersOfAccount, v1FiltersOf, type CustomFilter, type V1Filter } from '../db/filters';
import { nowIso } from '../db/table';
import { notFound, unprocessable } from '../errors';
import { absent, booleanish, oneOrMany } from '../schema';
import { cappedText, RAW_CAPS } from '../text/limits';
import { isId, newId } from '../ids';
import { checkContext, dropFilter, expiresAtOf, storeFilter } from './store';

export { renderFilter } from './entities';

/** `expires_in` in seconds; null or '' means no expiry. */
export const expiresIn = z.preprocess(
  (v) => (v === '' ? null : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
  z.number({ invalid_type_error: 'must be a number' }).int('must be an integer').min(1, 'must be positive').max(10 * 365 * 86400, 'is too far in the future').nullable().optional(),
);
export const contextList = oneOrMany(z.array(z.string({ invalid_type_error: 'must be a string' }), { invalid_type_error: 'must be an array' }).max(10).optional());

export const filterFields = z.object({
  // Mastodon's CustomFilterKeyword limit; every status is matched against every phrase, so it stays small.
  phrase: absent(cappedText(RAW_CAPS.filterPhrase)),
  context: contextList,
  irreversible: absent(booleanish),
  whole_word: absent(booleanish),
  expires_in: expiresIn,
});
export type FilterFields = z.infer<typeof filterFields>;

/** The v1 filter (keyword) `id` of the account, with the filter holding it; 404 otherwise. */
async function ownKeyword(accountId: string, id: string): Promise<{ filter: CustomFilter; v1: V1Filter }> {
  if (!isId(id)) throw notFound();
  const filters = await filtersOfAccount(accountId, true);
  const filter = filters.find((f) => f.keywords.some((k) => k.id === id));
  const v1 = filter && v1FiltersOf([filter]).find((k) => k.id === id);
  if (!filter || !v1) throw notFound();
  return { filter, v1 };
}

const v1ViewOf = (filter: CustomFilter, keywordId: string): V1Filter => v1FiltersOf([filter]).find((k) => k.id === keywordId)!;

export async function addFilter(accountId: string, input: FilterFields): Promise<V1Filter> {
  const missing: string[] = [];
  if (input.phrase === undefined || input.phrase.trim() === '') missing.push("Phrase can't be blank");
  if (input.context === undefined) missing.push("Context can't be blank");
  if (missing.length > 0) throw unprocessable(`Validation failed: ${missing.join(', ')}`);
  // One id for the filter and its keyword: the v1 id then names both.
  const id = newId();
  const phrase = (input.phrase ?? '').trim();
  const filter: CustomFilter = {
    id,
    accountId,
    title: phrase,
    context: checkContext(input.context) ?? [],
    action: input.irreversible ? 'hide' : 'warn',
    expiresAt: expiresAtOf(input.expires_in) ?? null,
    createdAt: nowIso(),
    keywords: [{ id, keyword: phrase, wholeWord: input.whole_word ?? true }],
    statuses: [],
    legacy: false,
  };
  return v1ViewOf(await storeFilter(undefined, filter), id);
}

export async function ownFilter(accountId: string, id: string): Promise<V1Filter> {
  return (await ownKeyword(accountId, id)).v1;
}

export async function changeFilter(accountId: string, id: string, input: FilterFields): Promise<V1Filter> {
  const { filter } = await ownKeyword(accountId, id);
  if (input.phrase !== undefined && input.phrase.trim() === '') throw unprocessable("Validation failed: Phrase can't be blank");
  const context = checkContext(input.context);
  const action = input.irreversible === undefined ? filter.action : input.irreversible ? 'hide' : 'warn';
  const expiresAt = expiresAtOf(input.expires_in);
  const after: CustomFilter = {
    ...filter,
    context: context ?? filter.context,
    action,
    expiresAt: expiresAt === undefined ? filter.expiresAt : expiresAt,
    keywords: filter.keywords.map((k) => (k.id === id ? { ...k, keyword: input.phrase?.trim() ?? k.keyword, wholeWord: input.whole_word ?? k.wholeWord } : k)),
  };
  const settingsChanged = after.context.join(',') !== filter.context.join(',') || after.action !== filter.action || after.expiresAt !== filter.expiresAt;
  if (settingsChanged && filter.keywords.length > 1) {
    throw unprocessable('This parameter cannot be changed for this filter, as it applies to more than one filter keyword. Use a more recent application or the web interface.');
  }
  // A filter made through v1 is named after its phrase: it follows the phrase.
  if (filter.keywords.length === 1 && filter.title === filter.keywords[0]!.keyword) after.title = after.keywords[0]!.keyword;
  return v1ViewOf(await storeFilter(filter, after), id);
}

/**
 * Deletes the keyword (Mastodon's v1 destroy); its filter goes with it when nothing else
 * is left in it, so that a v1 client's deleted filter does not linger in v2's list.
 */
export async function removeFilter(accountId: string, id: string): Promise<void> {
  const { filter } = await ownKeyword(accountId, id);
  const keywords = filter.keywords.filter((k) => k.id !== id);
  if (keywords.length === 0 && filter.statuses.length === 0) await dropFilter(filter);
  else await storeFilter(filter, { ...filter, keywords });
}

export const listFilters = async (accountId: string): Promise<V1Filter[]> => v1FiltersOf(await filtersOfAccount(accountId));
