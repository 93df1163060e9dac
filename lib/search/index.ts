// GET /api/v2/search, locally (no federation: `resolve` is answered from local
// data). Statuses: full text over all public statuses plus the searcher's own
// statuses of any visibility (a deliberate choice over Mastodon 3.x's
// "own, mentions, favourites, bookmarks": public posts are findable by anyone),
// through the word index written at posting time (lib/db/search.ts): the
// longest word drives paged Queries newest first, the other words are checked
// with one batch read of exact index keys per page (AND), and what remains goes
// through what the viewer may see (lib/policy visibleTo, `search`: visibility, blocks and mutes). Hashtags: a prefix Query on the tag-name index.
// Accounts: lib/graph/search.ts (username prefix).
import type { Account } from '../db/accounts';
import { searchWords, statusesHavingWords, statusIdsByWord, tagNamesByPrefix } from '../db/search';
import { statusesByIds, type Status } from '../db/statuses';
import { recentUnlistedTags } from '../db/trends';
import type { Item } from '../db/table';
import { hiddenFor, visibleTo, type Hidden } from '../policy';
import { tagsWithHistory } from '../tags/trends';
import { normalizeTag } from '../text/tags';

/** How many index Queries one source (public / own) may make while filling a page. */
const MAX_CALLS = 8;
/** At most this many words of a query are used. */
const MAX_QUERY_WORDS = 8;

export type StatusSearch = { q: string; limit: number; offset: number; accountId?: string; maxId?: string; minId?: string };

const newerFirst = (a: Status, b: Status) => (BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0);

/** The newest `wanted` matches from one partition family (public, or the viewer's own). */
async function fromSource(
  viewer: Account,
  hidden: Hidden,
  driver: string,
  others: string[],
  ownerId: string | undefined,
  input: StatusSearch,
  wanted: number,
): Promise<Status[]> {
  const found: Status[] = [];
  let start: Item | undefined;
  let calls = 0;
  const pageSize = Math.min(Math.max(wanted * 2, 40), 200);
  do {
    const page = await statusIdsByWord(driver, ownerId, pageSize, input.maxId, start);
    calls++;
    start = page.lastKey;
    const minId = input.minId;
    const ids = minId ? page.ids.filter((id) => BigInt(id) > BigInt(minId)) : page.ids;
    const byId = await statusesByIds(ids);
    let candidates = ids.flatMap((id) => {
      const s = byId.get(id);
      return s && !s.reblogOfId && (!input.accountId || s.accountId === input.accountId) ? [s] : [];
    });
    const all = await statusesHavingWords(candidates, others, ownerId === undefined);
    candidates = candidates.filter((s) => all.has(s.id));
    found.push(...(await visibleTo(viewer, candidates, 'search', { hidden })));
    // Ids are newest first: once one is at or below min_id, nothing older can match.
    if (ids.length < page.ids.length) break;
  } while (start && found.length < wanted && calls < MAX_CALLS);
  return found;
}

export async function searchStatuses(viewer: Account, input: StatusSearch): Promise<Status[]> {
  const words = searchWords(input.q.replace(/^#/, '')).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0 || input.limit < 1) return [];
  const driver = [...words].sort((a, b) => b.length - a.length)[0]!;
  const others = words.filter((w) => w !== driver);
  const wanted = input.offset + input.limit;
  const hidden = await hiddenFor(viewer.id);
  const [shared, own] = await Promise.all([
    fromSource(viewer, hidden, driver, others, undefined, input, wanted),
    fromSource(viewer, hidden, driver, others, viewer.id, input, wanted),
  ]);
  const merged = new Map<string, Status>();
  for (const s of [...shared, ...own]) merged.set(s.id, s);
  return [...merged.values()].sort(newerFirst).slice(input.offset, wanted);
}

/** A hashtag query: `#tag` or `tag`, normalised as tags are stored; undefined when it cannot be a tag. */
export function tagPrefix(q: string): string | undefined {
  const t = normalizeTag(q.trim().replace(/^#/, ''));
  return /^[\p{L}\p{N}_\p{M}·]+$/u.test(t) && t.length <= 100 ? t : undefined;
}

/** Names read beyond the page, so that a few unlistable tags do not shorten it. */
const UNLISTED_SLACK = 5;

export async function searchHashtags(input: { q: string; limit: number; offset: number }): Promise<string[]> {
  const prefix = tagPrefix(input.q);
  if (prefix === undefined || input.limit < 1) return [];
  const [found, unlisted] = await Promise.all([tagNamesByPrefix(prefix, input.offset + input.limit + UNLISTED_SLACK), recentUnlistedTags()]);
  // Tags moderators made unlistable are not suggested (Mastodon's Tag.search_for excludes them).
  const names = found.filter((n) => !unlisted.has(n));
  // The exact tag first, then alphabetical.
  const exact = names.filter((n) => n === prefix);
  return [...exact, ...names.filter((n) => n !== prefix)].slice(input.offset, input.offset + input.limit);
}

/** Tag entities with a week of history from the trends counters (lib/db/tags.ts; one batch read). */
export const renderSearchTags = (names: string[]) => tagsWithHistory(names.map((name) => ({ tag: name, name })));
