// Reports (Mastodon's Report): one account's complaint about another account and
// some of its statuses, for this server's moderators. A report is filed here
// (POST /api/v1/reports, by a local account) or received in a Flag from another
// server (by that server's actor). Stored once under its id, listed newest first
// for the operator through GSI1; a received Flag's report is written with a
// claim on (Flag id, reported account), so a redelivered Flag stores nothing twice.
import { z } from 'zod';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import { countDaily } from './daily_stats';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { getItem, nowIso, putItem, transact, updateItem } from './table';

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
  createdAt: z.string(),
  updatedAt: z.string().optional(),
});
export type Report = z.infer<typeof reportItem>;

const reportRecord = (report: Report) => ({ ...keys.report(report.id), ...gsi1.report(report.id), ...reportItem.parse(report) });

/** Stores a report filed here (its id is new: nothing to collide with). */
export const putReport = (report: Report): Promise<boolean> => putItem(reportRecord(report));

/**
 * Stores a report received in a Flag about one account, once per (Flag id, account): false when that
 * Flag's report about the account is already stored (a redelivery), and then nothing is written.
 */
export async function putReceivedReport(report: Report & { uri: string }): Promise<boolean> {
  const result = await transact([
    { Put: { Item: { ...keys.reportOnce(report.uri, report.targetAccountId), reportId: report.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: reportRecord(report), ConditionExpression: 'attribute_not_exists(PK)' } },
  ]);
  return result.ok;
}

export const reportById = (id: string, consistent = false): Promise<Report | undefined> => getItem(keys.report(id), reportItem, consistent);

/** Every report, newest first (GSI1). */
export const reportsPage = (page: Page): Promise<Report[]> =>
  queryIdRange({ index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.reportsPartition }, page, reportItem);

/** Marks a report resolved (once: an already resolved one keeps its time). Undefined when there is no such report. */
export async function resolveReport(id: string, at = nowIso()): Promise<Report | undefined> {
  const resolved = await updateItem(
    {
      Key: keys.report(id),
      // A report not yet resolved holds actionTakenAt as null: set it then, keep an earlier time otherwise.
      UpdateExpression: 'SET actionTakenAt = :at, updatedAt = :at',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(actionTakenAt) OR actionTakenAt = :null)',
      ExpressionAttributeValues: { ':at': at, ':null': null },
    },
    reportItem,
  );
  // The dashboard's resolved_reports counts a report's first resolution.
  if (resolved) await countDaily('resolvedReports');
  return resolved ?? reportById(id, true);
}
