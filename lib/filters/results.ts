// What a viewer's filters say of the statuses they read (Mastodon 4's FilterResult on
// `status.filtered`). CONTRACT: the filters v2 area owns this file.
//
// Mastodon marks a status with every active filter that matches, whatever the context,
// and leaves it to the client to compare the filter's `context` with where the status is
// shown; here the renderer says where (RenderOptions.context) and only filters of that
// context are reported, which every client reads the same way. The viewer's own statuses
// are not marked (as FeedManager never filters them). One Query of the viewer's filter
// partition per page, also for a viewer without filters.
import type { Status } from '../db/statuses';
import { filtersOfAccount } from '../db/filters';
import { filterMatches } from '../policy/filters';
import { renderFilterResult } from './entities';

/** The filter contexts of Mastodon 4 (a status is rendered in one of them). */
export type FilterResultContext = 'home' | 'notifications' | 'public' | 'thread' | 'account';

/** FilterResult entities by status id, for the statuses that any of the viewer's filters of `context` match. */
export async function filterResultsFor(viewerId: string, statuses: Status[], context: FilterResultContext): Promise<Map<string, unknown[]>> {
  if (statuses.length === 0) return new Map();
  const filters = await filtersOfAccount(viewerId);
  if (filters.length === 0) return new Map();
  const matches = filterMatches(statuses, viewerId, filters, context);
  return new Map([...matches].map(([id, found]) => [id, found.map(renderFilterResult)]));
}
