// The filter entities of the API: v2's Filter, FilterKeyword, FilterStatus and
// FilterResult (https://docs.joinmastodon.org/entities/Filter/), and v1's Filter (one
// keyword with its filter's settings). They live beside the filters rather than in
// lib/render because lib/render/status.ts reads lib/filters/results.ts for
// `status.filtered`: rendering them there would close a loop of folders.
import type { CustomFilter, FilterKeyword, FilterStatus, V1Filter } from '../db/filters';
import type { FilterMatch } from '../policy/filters';

export const renderFilterKeyword = (k: FilterKeyword) => ({ id: k.id, keyword: k.keyword, whole_word: k.wholeWord });

export const renderFilterStatus = (s: FilterStatus) => ({ id: s.id, status_id: s.statusId });

/** v2's Filter; `withRules` adds its keywords and statuses (left out inside a FilterResult, as Mastodon). */
export function renderFilterV2(f: CustomFilter, withRules = true): Record<string, unknown> {
  return {
    id: f.id,
    title: f.title,
    context: f.context,
    expires_at: f.expiresAt,
    filter_action: f.action,
    ...(withRules ? { keywords: f.keywords.map(renderFilterKeyword), statuses: f.statuses.map(renderFilterStatus) } : {}),
  };
}

export const renderFilterResult = (m: FilterMatch) => ({
  filter: renderFilterV2(m.filter, false),
  keyword_matches: m.keywordMatches,
  status_matches: m.statusMatches,
});

/** v1's Filter. */
export const renderFilter = (f: V1Filter) => ({
  id: f.id,
  phrase: f.phrase,
  context: f.context,
  whole_word: f.wholeWord,
  expires_at: f.expiresAt,
  irreversible: f.irreversible,
});
