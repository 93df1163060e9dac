// Reports (Mastodon's Report): one account's complaint about another account and
// some of its statuses, for this server's moderators. A report is filed here
// (POST /api/v1/reports, by a local account) or received in a Flag from another
// server (by that server's actor). Stored once under its id, listed newest first
// for the operator through GSI1; a received Flag's report is written with a
// claim on (Flag id, reported account), so a redelivered Flag stores nothing twice.
// Moderators read them by state (open or resolved), and within a state by reporter
// or by target: three small entries per report (keys.reportQueue*Entry), written
// with the report and moved in the transaction that resolves or reopens it.
import { z } from 'zod';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import { countDaily } from './daily_stats';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { batchGet, batchWrite, getItem, keyString, nowIso, query, transact, updateItem, type TransactItem } from './table';

export const reportCategories = ['spam', 'legal', 'violation', 'other'] as const;
export type ReportCategory = (typeof reportCategories)[number];

export const reportItem = z.object({
  id: z.string(),
  /** Who reported: a local account, or the remote actor that sent the Flag (usually its instance actor). */
  accountId: z.string(),
  targetAccountId: z.string(),
  statusIds: z.array(z.string()).default([]),
  comment: z.string().default(''),
  category: z.enum(reportCategories).default('other'),
  ruleIds: z.array(z.string()).default([]),
  /** A Flag was sent to the reported account's server. */
  forwarded: z.boolean().default(false),
  /** The received Flag's id (a report from another server); null for one filed here. */
  uri: z.string().nullable().default(null),
  /** When a moderator resolved it (Mastodon's action_taken_at). */
  actionTakenAt: z.string().nullable().default(null),
  /** The moderator who resolved it (null while open, and for one resolved from the command line). */
  actionTakenByAccountId: z.string().nullable().default(null),
  /** The moderator who took it on (assign_to_self), until unassigned. */
  assignedAccountId: z.string().nullable().default(null),
  createdAt: z.string(),
  /** The last change (Mastodon's updated_at); absent on a report never changed. */
  updatedAt: z.string().optional(),
});
export type Report = z.infer<typeof reportItem>;
export type ReportState = keys.ReportState;

export const stateOf = (report: Pick<Report, 'actionTakenAt'>): ReportState => (report.actionTakenAt === null ? 'open' : 'resolved');

const reportRecord = (report: Report) => ({ ...keys.report(report.id), ...gsi1.report(report.id), ...reportItem.parse(report) });

/** The three queue entries of a report in a state: they carry the two account ids, so one filter can refine the other. */
const queueEntries = (report: Pick<Report, 'id' | 'accountId' | 'targetAccountId'>, state: ReportState) => {
  const body = { reportId: report.id, accountId: report.accountId, targetAccountId: report.targetAccountId };
  return [
    { ...keys.reportQueueEntry(state, report.id), ...body },
    { ...keys.reportQueueByEntry(state, report.accountId, report.id), ...body },
    { ...keys.reportQueueAboutEntry(state, report.targetAccountId, report.id), ...body },
  ];
};
const queueEntry = z.object({ reportId: z.string(), accountId: z.string(), targetAccountId: z.string() });

/** Stores a report filed here (its id is new: nothing to collide with), with its queue entries. */
export async function putReport(report: Report): Promise<boolean> {
  const stored = reportItem.parse(report);
  const result = await transact([
    { Put: { Item: reportRecord(stored), ConditionExpression: 'attribute_not_exists(PK)' } },
    ...queueEntries(stored, stateOf(stored)).map((Item): TransactItem => ({ Put: { Item } })),
  ]);
  return result.ok;
}

/**
 * Stores a report received in a Flag about one account, once per (Flag id, account): false when that
 * Flag's report about the account is already stored (a redelivery), and then nothing is written.
 */
export async function putReceivedReport(report: Report & { uri: string }): Promise<boolean> {
  const stored = reportItem.parse(report);
  const result = await transact([
    { Put: { Item: { ...keys.reportOnce(report.uri, report.targetAccountId), reportId: report.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: reportRecord(stored), ConditionExpression: 'attribute_not_exists(PK)' } },
    ...queueEntries(stored, stateOf(stored)).map((Item): TransactItem => ({ Put: { Item } })),
  ]);
  return result.ok;
}

export const reportById = (id: string, consistent = false): Promise<Report | undefined> => getItem(keys.report(id), reportItem, consistent);

/** Reports by id (one BatchGet per 100), for a page of admin.report notifications. */
export async function reportsByIds(ids: string[]): Promise<Map<string, Report>> {
  const found = await batchGet(ids.map((id) => keys.report(id)), reportItem);
  return new Map([...found.values()].map((r) => [r.id, r]));
}

/** Every report, newest first (GSI1), whatever its state. */
export const reportsPage = (page: Page): Promise<Report[]> =>
  queryIdRange({ index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.reportsPartition }, page, reportItem);

/** What the moderators' list is narrowed to (Mastodon's ReportFilter: a state, then the reporter and the target). */
export type ReportQueueFilter = { state: ReportState; accountId?: string; targetAccountId?: string };

/** Queries of a filtered page (the reporter and the target both named): each evaluates at most max(2 × limit, 40) entries. */
export const REPORT_FILTER_MAX_QUERIES = 5;

/**
 * A page of the reports in one state, newest first: one Query of the narrowest partition (the target's, else the
 * reporter's, else the state's), then one BatchGet of the reports (100 keys a call). Naming both the reporter and the
 * target filters the target's entries by reporter: at most REPORT_FILTER_MAX_QUERIES Queries, so a page may come
 * back short when the target has many reports by others.
 */
export async function reportQueuePage(filter: ReportQueueFilter, page: Page): Promise<Report[]> {
  const partition =
    filter.targetAccountId !== undefined
      ? keys.reportQueueAboutPartition(filter.state, filter.targetAccountId)
      : filter.accountId !== undefined
        ? keys.reportQueueByPartition(filter.state, filter.accountId)
        : keys.reportQueuePartition(filter.state);
  const both = filter.targetAccountId !== undefined && filter.accountId !== undefined;
  const entries = await queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition }, page, queueEntry, {
    ...(both ? { filter: { expression: 'accountId = :reporter', values: { ':reporter': filter.accountId } }, maxCalls: REPORT_FILTER_MAX_QUERIES } : {}),
  });
  if (entries.length === 0) return [];
  const found = await batchGet(entries.map((e) => keys.report(e.reportId)), reportItem);
  return entries.flatMap((e) => {
    const report = found.get(keyString(keys.report(e.reportId)));
    return report ? [report] : [];
  });
}

/**
 * Is another report about the same account still open (Mastodon's unresolved_siblings?)? One Query of the target's
 * open entries, at most two keys read.
 */
export async function hasOpenSiblings(report: Pick<Report, 'id' | 'targetAccountId'>): Promise<boolean> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': keys.reportQueueAboutPartition('open', report.targetAccountId) },
      ProjectionExpression: 'reportId',
      Limit: 2,
    },
    z.object({ reportId: z.string() }),
  );
  return page.items.some((e) => e.reportId !== report.id);
}

/** A change to a report: what it is now, and whether this call changed it (false: it already was so). */
export type ReportChange = { report: Report; changed: boolean };

/**
 * Moves a report to `to` (resolved by `by`, or reopened): the report and its three queue entries in one
 * transaction, conditioned on the state read. Undefined when there is no such report; `changed: false` when it
 * already was in that state (a resolved report keeps its first time and moderator).
 */
export async function moveReport(id: string, to: ReportState, by: string | null, at = nowIso()): Promise<ReportChange | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const report = await reportById(id, true);
    if (!report) return undefined;
    const from = stateOf(report);
    if (from === to) return { report, changed: false };
    const changes = to === 'resolved' ? { actionTakenAt: at, actionTakenByAccountId: by } : { actionTakenAt: null, actionTakenByAccountId: null };
    const result = await transact([
      {
        Update: {
          Key: keys.report(id),
          UpdateExpression: 'SET actionTakenAt = :at, actionTakenByAccountId = :by, updatedAt = :now',
          ConditionExpression:
            from === 'open' ? 'attribute_exists(PK) AND (attribute_not_exists(actionTakenAt) OR actionTakenAt = :null)' : 'attribute_exists(PK) AND actionTakenAt <> :null',
          ExpressionAttributeValues: { ':at': changes.actionTakenAt, ':by': changes.actionTakenByAccountId, ':now': at, ':null': null },
        },
      },
      // A report stored before the queues existed has no entries to delete: deleting a missing item is no failure.
      ...queueEntries(report, from).map((e): TransactItem => ({ Delete: { Key: { PK: e.PK, SK: e.SK } } })),
      ...queueEntries(report, to).map((Item): TransactItem => ({ Put: { Item } })),
    ]);
    if (result.ok) {
      // The dashboard's resolved_reports counts each resolution.
      if (to === 'resolved') await countDaily('resolvedReports');
      return { report: { ...report, ...changes, updatedAt: at }, changed: true };
    }
    // Another moderator moved it meanwhile: read it again.
  }
  throw new Error(`report ${id}: state kept changing`);
}

/** Marks a report resolved (by a moderator, or null from the command line). Undefined when there is no such report. */
export async function resolveReport(id: string, at = nowIso(), by: string | null = null): Promise<Report | undefined> {
  return (await moveReport(id, 'resolved', by, at))?.report;
}

/** Assigns a report to a moderator (null: to nobody). Undefined when there is no such report. */
export async function assignReport(id: string, assigneeId: string | null, at = nowIso()): Promise<ReportChange | undefined> {
  const updated = await updateItem(
    {
      Key: keys.report(id),
      UpdateExpression: 'SET assignedAccountId = :a, updatedAt = :at',
      // Only a change is written (and dated): assigning twice to the same moderator leaves updated_at alone.
      ConditionExpression: 'attribute_exists(PK) AND NOT (assignedAccountId = :a OR (attribute_not_exists(assignedAccountId) AND :a = :null))',
      ExpressionAttributeValues: { ':a': assigneeId, ':at': at, ':null': null },
    },
    reportItem,
  );
  if (updated) return { report: updated, changed: true };
  const report = await reportById(id, true);
  return report ? { report, changed: false } : undefined;
}

/** Sets a report's category and cited rules. Undefined when there is no such report. */
export async function classifyReport(id: string, category: ReportCategory, ruleIds: string[], at = nowIso()): Promise<ReportChange | undefined> {
  const before = await reportById(id, true);
  if (!before) return undefined;
  if (before.category === category && before.ruleIds.join(',') === ruleIds.join(',')) return { report: before, changed: false };
  const updated = await updateItem(
    {
      Key: keys.report(id),
      UpdateExpression: 'SET category = :c, ruleIds = :r, updatedAt = :at',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':c': category, ':r': ruleIds, ':at': at },
    },
    reportItem,
  );
  return updated ? { report: updated, changed: true } : undefined;
}

/**
 * Writes the queue entries of reports stored before the queues existed (`npm run admin -- reports reindex`): every
 * report, a GSI1 page of 100 at a time, its entries for its present state put (idempotent). Answers how many reports.
 */
export async function reindexReportQueues(): Promise<number> {
  let count = 0;
  let max_id: string | undefined;
  for (;;) {
    const page = await reportsPage({ limit: 100, ...(max_id ? { max_id } : {}) });
    if (page.length === 0) return count;
    await batchWrite(page.flatMap((r) => queueEntries(r, stateOf(r))));
    count += page.length;
    max_id = page.at(-1)!.id;
  }
}
