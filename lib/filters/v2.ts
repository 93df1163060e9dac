// Filters, API v2 (https://docs.joinmastodon.org/methods/filters/, Mastodon 4's
// CustomFilter): a titled filter with contexts, an action (warn, and Mastodon 4.4's blur, which the server
// treats as warn: mark the status `filtered`; hide: drop it), an expiry, keywords and statuses. Creating and updating
// take `keywords_attributes[]` as Rails' nested attributes do: an entry without `id` adds
// a keyword (entries left all blank are ignored), one with `id` changes that keyword of
// this filter, or deletes it with `_destroy`. API v1's filters are views of these (index.ts).
import { z } from 'zod';
import type { Account } from '../db/accounts';
import { filterActions, filtersOfAccount, type CustomFilter, type FilterKeyword } from '../db/filters';
import { nowIso } from '../db/table';
import { notFound, unprocessable } from '../errors';
import { isId, newId } from '../ids';
import { mayView } from '../policy';
import { statusById } from '../db/statuses';
import { absent, booleanish } from '../schema';
import { cappedText, RAW_CAPS } from '../text/limits';
import { contextList, expiresIn } from './index';
import { checkContext, dropFilter, expiresAtOf, ownFilterById, storeFilter } from './store';

/** Keyword changes one request may carry (a transaction writes at most 100 items). */
const MAX_KEYWORD_ATTRIBUTES = 50;

const keywordText = absent(cappedText(RAW_CAPS.filterPhrase));

const keywordAttribute = z.object(
  {
    id: absent(z.union([z.string(), z.number()]).transform(String)),
    keyword: keywordText,
    whole_word: absent(booleanish),
    _destroy: absent(booleanish),
  },
  { invalid_type_error: 'must be an object' },
);

/** Rails accepts the list as an array or as a hash keyed by position (`keywords_attributes[0][keyword]`). */
const keywordsAttributes = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.values(v) : v),
  z.array(keywordAttribute, { invalid_type_error: 'must be an array' }).max(MAX_KEYWORD_ATTRIBUTES, `is too long (maximum is ${MAX_KEYWORD_ATTRIBUTES} entries)`).optional(),
);

const filterAction = absent(z.enum(filterActions, { errorMap: () => ({ message: `must be one of ${filterActions.join(', ')}` }) }));

export const filterV2Fields = z.object({
  title: absent(cappedText(RAW_CAPS.filterPhrase)),
  context: contextList,
  filter_action: filterAction,
  expires_in: expiresIn,
  keywords_attributes: keywordsAttributes,
});
export type FilterV2Fields = z.infer<typeof filterV2Fields>;

export const keywordFields = z.object({ keyword: keywordText, whole_word: absent(booleanish) });
export type KeywordFields = z.infer<typeof keywordFields>;

export const statusFilterFields = z.object({ status_id: absent(z.union([z.string(), z.number()]).transform(String)) });
export type StatusFilterFields = z.infer<typeof statusFilterFields>;

type KeywordAttribute = z.infer<typeof keywordAttribute>;

/** Applies nested keyword attributes to a filter's keywords (Rails' accepts_nested_attributes_for, reject_if: :all_blank, allow_destroy). */
function applyKeywordAttributes(current: FilterKeyword[], attributes: KeywordAttribute[] | undefined): FilterKeyword[] {
  let keywords = [...current];
  for (const a of attributes ?? []) {
    if (a.id !== undefined) {
      const at = keywords.findIndex((k) => k.id === a.id);
      if (at < 0) throw notFound();
      if (a._destroy) keywords = keywords.filter((k) => k.id !== a.id);
      else keywords[at] = { ...keywords[at]!, keyword: a.keyword?.trim() ?? keywords[at]!.keyword, wholeWord: a.whole_word ?? keywords[at]!.wholeWord };
      continue;
    }
    if (a._destroy) continue;
    if (a.keyword === undefined && !a.whole_word) continue;
    keywords.push({ id: newId(), keyword: a.keyword?.trim() ?? '', wholeWord: a.whole_word ?? true });
  }
  if (keywords.some((k) => k.keyword === '')) throw unprocessable("Validation failed: Keywords keyword can't be blank");
  return keywords;
}

export async function createFilterV2(accountId: string, input: FilterV2Fields): Promise<CustomFilter> {
  const missing: string[] = [];
  if (input.title === undefined || input.title.trim() === '') missing.push("Title can't be blank");
  if (input.context === undefined) missing.push("Context can't be blank");
  if (missing.length > 0) throw unprocessable(`Validation failed: ${missing.join(', ')}`);
  const filter: CustomFilter = {
    id: newId(),
    accountId,
    title: input.title!.trim(),
    context: checkContext(input.context)!,
    action: input.filter_action ?? 'warn',
    expiresAt: expiresAtOf(input.expires_in) ?? null,
    createdAt: nowIso(),
    keywords: applyKeywordAttributes([], input.keywords_attributes?.map((a) => ({ ...a, id: undefined }))),
    statuses: [],
    legacy: false,
  };
  return storeFilter(undefined, filter);
}

export async function updateFilterV2(accountId: string, id: string, input: FilterV2Fields): Promise<CustomFilter> {
  const filter = await ownFilterById(accountId, id);
  if (input.title !== undefined && input.title.trim() === '') throw unprocessable("Validation failed: Title can't be blank");
  const expiresAt = expiresAtOf(input.expires_in);
  return storeFilter(filter, {
    ...filter,
    title: input.title?.trim() ?? filter.title,
    context: checkContext(input.context) ?? filter.context,
    action: input.filter_action ?? filter.action,
    expiresAt: expiresAt === undefined ? filter.expiresAt : expiresAt,
    keywords: applyKeywordAttributes(filter.keywords, input.keywords_attributes),
  });
}

export async function deleteFilterV2(accountId: string, id: string): Promise<void> {
  await dropFilter(await ownFilterById(accountId, id));
}

export const filtersV2Of = (accountId: string) => filtersOfAccount(accountId);
export const filterV2 = ownFilterById;

// ---- keywords ----

/** The filter holding the account's keyword `id`, and the keyword; 404 otherwise. */
async function ownKeyword(accountId: string, id: string): Promise<{ filter: CustomFilter; keyword: FilterKeyword }> {
  if (!isId(id)) throw notFound();
  for (const filter of await filtersOfAccount(accountId, true)) {
    const keyword = filter.keywords.find((k) => k.id === id);
    if (keyword) return { filter, keyword };
  }
  throw notFound();
}

export const keywordOf = async (accountId: string, id: string) => (await ownKeyword(accountId, id)).keyword;

export async function addKeyword(accountId: string, filterId: string, input: KeywordFields): Promise<FilterKeyword> {
  const filter = await ownFilterById(accountId, filterId);
  if (input.keyword === undefined || input.keyword.trim() === '') throw unprocessable("Validation failed: Keyword can't be blank");
  const keyword: FilterKeyword = { id: newId(), keyword: input.keyword.trim(), wholeWord: input.whole_word ?? true };
  await storeFilter(filter, { ...filter, keywords: [...filter.keywords, keyword] });
  return keyword;
}

export async function changeKeyword(accountId: string, id: string, input: KeywordFields): Promise<FilterKeyword> {
  const { filter, keyword } = await ownKeyword(accountId, id);
  if (input.keyword !== undefined && input.keyword.trim() === '') throw unprocessable("Validation failed: Keyword can't be blank");
  const changed = { ...keyword, keyword: input.keyword?.trim() ?? keyword.keyword, wholeWord: input.whole_word ?? keyword.wholeWord };
  await storeFilter(filter, { ...filter, keywords: filter.keywords.map((k) => (k.id === id ? changed : k)) });
  return changed;
}

export async function removeKeyword(accountId: string, id: string): Promise<void> {
  const { filter } = await ownKeyword(accountId, id);
  await storeFilter(filter, { ...filter, keywords: filter.keywords.filter((k) => k.id !== id) });
}

// ---- statuses ----

async function ownStatusFilter(accountId: string, id: string) {
  if (!isId(id)) throw notFound();
  for (const filter of await filtersOfAccount(accountId, true)) {
    const status = filter.statuses.find((s) => s.id === id);
    if (status) return { filter, status };
  }
  throw notFound();
}

export const statusFilterOf = async (accountId: string, id: string) => (await ownStatusFilter(accountId, id)).status;

/** Adds a status to a filter: one the account may see (Mastodon: "Status must exist"), once per filter. */
export async function addStatusFilter(account: Account, filterId: string, input: StatusFilterFields) {
  const filter = await ownFilterById(account.id, filterId);
  if (input.status_id === undefined) throw unprocessable("Validation failed: Status can't be blank");
  const status = isId(input.status_id) ? await statusById(input.status_id) : undefined;
  if (!status || !(await mayView(account, status))) throw unprocessable('Validation failed: Status must exist');
  if (filter.statuses.some((s) => s.statusId === status.id)) throw unprocessable('Validation failed: Status has already been taken');
  const added = { id: newId(), statusId: status.id };
  await storeFilter(filter, { ...filter, statuses: [...filter.statuses, added] });
  return added;
}

export async function removeStatusFilter(accountId: string, id: string): Promise<void> {
  const { filter } = await ownStatusFilter(accountId, id);
  await storeFilter(filter, { ...filter, statuses: filter.statuses.filter((s) => s.id !== id) });
}
