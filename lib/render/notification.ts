// Notification entity (https://docs.joinmastodon.org/entities/Notification/),
// Mastodon 3.5: id, type, created_at, account, and status for the status types; Mastodon 4.3's group_key;
// `report` (the Report entity) for an admin.report, read in one more batch only when the page has one.
// A page costs one batch read of accounts, one of statuses (plus one of the
// reblogged originals when a reblog notification names the reblog itself), and
// the status renderer's own batch read. Notifications whose actor is gone, or
// whose status was deleted or is no longer visible to the recipient, are dropped.
import { accountsByIds, type Account } from '../db/accounts';
import { GROUPABLE_TYPES, listedKeyOf } from '../db/notification_groups';
import { collectionTypes, statusTypes, type Notification } from '../db/notifications';
import { collectionsByIds } from '../db/collections';
import { renderCollections, type RenderedCollection } from './collection';
import { reportsByIds } from '../db/reports';
import { statusesByIds, type Status } from '../db/statuses';
import { goneFor, visibleTo } from '../policy';
import { renderAccount } from './account';
import { renderReport } from './report';
import { strikesByIds } from '../db/strikes';
import { renderAccountWarning } from './account_warning';
import { fallbackFor, needsFallback, type FallbackFacts } from './notification_fallback';
import { renderStatuses } from './status';

/** The Report entities of a page's admin.report notifications, by report id (a report or target gone: none). */
export async function notifiedReports(notifications: Notification[]): Promise<Map<string, ReturnType<typeof renderReport>>> {
  const ids = [...new Set(notifications.flatMap((n) => (n.type === 'admin.report' && n.reportId ? [n.reportId] : [])))];
  if (ids.length === 0) return new Map();
  const reports = await reportsByIds(ids);
  const targets = await accountsByIds([...new Set([...reports.values()].map((r) => r.targetAccountId))]);
  const out = new Map<string, ReturnType<typeof renderReport>>();
  for (const report of reports.values()) {
    const target = targets.get(report.targetAccountId);
    if (target) out.set(report.id, renderReport(report, target));
  }
  return out;
}

/**
 * The Collection entities of a page's collection notifications (Mastodon 4.6's `target_collection`), by notification
 * id, rendered for the recipient: one BatchGet of the collections, and the collection renderer's own. An
 * `added_to_collection` whose item was taken out since has none, as Mastodon's target is then nil.
 */
export async function notifiedCollections(notifications: Notification[], viewer: Account): Promise<Map<string, RenderedCollection>> {
  const wanted = notifications.filter((n) => collectionTypes.includes(n.type) && n.collectionId);
  if (wanted.length === 0) return new Map();
  const collections = await collectionsByIds([...new Set(wanted.map((n) => n.collectionId!))]);
  const rendered = new Map((await renderCollections(collections, viewer)).map((c) => [c.id, c]));
  const byId = new Map(collections.map((c) => [c.id, c]));
  const out = new Map<string, RenderedCollection>();
  for (const n of wanted) {
    const collection = byId.get(n.collectionId!);
    const entity = rendered.get(n.collectionId!);
    if (!collection || !entity) continue;
    if (n.type === 'added_to_collection' && !collection.items.some((e) => e.id === n.activityId && e.state !== 'revoked')) continue;
    out.set(n.id, entity);
  }
  return out;
}

/** The status a notification is about: for a reblog, the reblogged original (as Mastodon's target_status). */
export async function targetStatuses(notifications: Notification[]): Promise<Map<string, Status>> {
  const ids = notifications.flatMap((n) => (statusTypes.includes(n.type) && n.statusId ? [n.statusId] : []));
  if (ids.length === 0) return new Map();
  const found = await statusesByIds(ids);
  const originalIds = [...found.values()].flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : []));
  const originals = originalIds.length > 0 ? await statusesByIds(originalIds) : new Map<string, Status>();
  const targets = new Map<string, Status>();
  for (const [id, status] of found) {
    const target = status.reblogOfId ? originals.get(status.reblogOfId) : status;
    if (target) targets.set(id, target);
  }
  return targets;
}

/** How a client asked for notifications: `supportedTypes`, the types it says it shows (Mastodon 4.6's `supported_types[]`). */
export type NotificationRendering = { supportedTypes?: readonly string[] };

/** The entity with its fallback added, when the client's list of supported types lacks its type (./notification_fallback.ts). */
export function withFallback<T extends Record<string, unknown>>(entity: T, type: Notification['type'], opts: NotificationRendering, facts?: () => FallbackFacts): T {
  if (!needsFallback(type, opts.supportedTypes)) return entity;
  // A v1 Notification carries what its fallback names; a NotificationGroup names its accounts by id, so it passes them.
  const fallback = fallbackFor(type, facts ? facts() : (entity as unknown as FallbackFacts));
  return fallback ? { ...entity, fallback } : entity;
}

export async function renderNotifications(notifications: Notification[], viewer: Account, opts: NotificationRendering = {}): Promise<Record<string, unknown>[]> {
  if (notifications.length === 0) return [];
  const [accounts, targets, reports, strikes, collections] = await Promise.all([
    accountsByIds([...new Set(notifications.map((n) => n.fromAccountId))]),
    targetStatuses(notifications),
    notifiedReports(notifications),
    strikesByIds(notifications.flatMap((n) => (n.strikeId ? [n.strikeId] : []))),
    notifiedCollections(notifications, viewer),
  ]);
  const visible = await visibleTo(viewer, [...new Map([...targets.values()].map((s) => [s.id, s])).values()], 'notifications');
  // The status renderer leaves out statuses it cannot show (author gone), so match its output by id.
  const renderedById = new Map((await renderStatuses(visible, viewer, { context: 'notifications' })).map((r) => [String(r.id), r]));

  const out: Record<string, unknown>[] = [];
  for (const n of notifications) {
    const from = accounts.get(n.fromAccountId);
    // A suspended actor's notifications are gone with it (its account is gone for everyone else).
    if (!from || goneFor(from, viewer.id)) continue;
    // group_key (Mastodon 4.3): what a client merges a streamed notification into a grouped list by.
    const base = { id: n.id, type: n.type, group_key: listedKeyOf(n, GROUPABLE_TYPES), created_at: n.createdAt, account: renderAccount(from) };
    if (n.type === 'admin.report') {
      const report = n.reportId ? reports.get(n.reportId) : undefined;
      if (report) out.push(withFallback({ ...base, report }, n.type, opts));
      continue;
    }
    if (n.type === 'moderation_warning') {
      // Mastodon 4.3: the strike itself, as AccountWarning; none without it.
      const strike = n.strikeId ? strikes.get(n.strikeId) : undefined;
      if (strike) out.push(withFallback({ ...base, moderation_warning: renderAccountWarning(strike, viewer) }, n.type, opts));
      continue;
    }
    if (collectionTypes.includes(n.type)) {
      // Mastodon 4.6: the collection, as the recipient sees it; none once it is gone.
      const collection = collections.get(n.id);
      if (collection) out.push(withFallback({ ...base, collection }, n.type, opts));
      continue;
    }
    if (!statusTypes.includes(n.type)) {
      out.push(withFallback(base, n.type, opts));
      continue;
    }
    const target = n.statusId ? targets.get(n.statusId) : undefined;
    const status = target ? renderedById.get(target.id) : undefined;
    if (!status) continue;
    out.push({ ...base, status });
  }
  return out;
}

/** One notification, or undefined when it would be dropped from a list. */
export async function renderNotification(notification: Notification, viewer: Account, opts: NotificationRendering = {}): Promise<Record<string, unknown> | undefined> {
  const [rendered] = await renderNotifications([notification], viewer, opts);
  return rendered;
}
