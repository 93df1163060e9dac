// What a viewer's filters say of the statuses they read (Mastodon 4's FilterResult on
// `status.filtered`). CONTRACT: the filters v2 area owns this file.
import type { Status } from '../db/statuses';

/** The filter contexts of Mastodon 4 (a status is rendered in one of them). */
export type FilterResultContext = 'home' | 'notifications' | 'public' | 'thread' | 'account';

/** FilterResult entities by status id, for the statuses that any of the viewer's filters of `context` match. */
export async function filterResultsFor(viewerId: string, statuses: Status[], context: FilterResultContext): Promise<Map<string, unknown[]>> {
  void viewerId;
  void statuses;
  void context;
  return new Map();
}
