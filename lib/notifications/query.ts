// Inputs of GET /api/v1/notifications: paging (Mastodon 3.x: 15 by default, at
// most 30), `types[]`, `exclude_types[]` and `account_id`. Unknown type names
// are ignored rather than refused, as Mastodon's `browserable` scope does.
import { z } from 'zod';
import { notificationTypes, type NotificationType } from '../db/notifications';
import { pageQuery } from '../paging';
import { isId } from '../ids';

export const NOTIFICATIONS_LIMIT = 15;
export const NOTIFICATIONS_MAX_LIMIT = 30;

export const typeList = z
  .union([z.string(), z.array(z.string({ invalid_type_error: 'must be a list of strings' }))], { invalid_type_error: 'must be a list of strings' })
  .transform((v) => (Array.isArray(v) ? v : [v]))
  .pipe(z.array(z.string().max(64, 'is too long')).max(notificationTypes.length * 4, 'has too many entries'));

/** Mastodon 4.6's `supported_types[]`: the types a client shows; others outside the baseline carry a fallback text. */
export const supportedTypes = { supported_types: typeList.optional() };

export const notificationsQuery = pageQuery(NOTIFICATIONS_LIMIT, NOTIFICATIONS_MAX_LIMIT).extend({
  ...supportedTypes,
  types: typeList.optional(),
  exclude_types: typeList.optional(),
  account_id: z.string({ invalid_type_error: 'must be an id' }).refine(isId, 'must be an id').optional(),
});
export type NotificationsQuery = z.infer<typeof notificationsQuery>;

const known = (names: string[]) => notificationTypes.filter((t) => names.includes(t));

/** The types a request asks for: `types[]` (or all), less `exclude_types[]`. */
export function requestedTypes(input: Pick<NotificationsQuery, 'types' | 'exclude_types'>): NotificationType[] {
  const included = input.types && input.types.length > 0 ? known(input.types) : [...notificationTypes];
  const excluded = new Set(known(input.exclude_types ?? []));
  return included.filter((t) => !excluded.has(t));
}

/** The query parameters a Link header carries over to the next and previous pages. */
export function linkQuery(input: NotificationsQuery, given: Record<string, unknown>): Record<string, string | string[] | undefined> {
  return {
    ...('limit' in given ? { limit: String(input.limit) } : {}),
    types: input.types,
    exclude_types: input.exclude_types,
    account_id: input.account_id,
    supported_types: input.supported_types,
  };
}
