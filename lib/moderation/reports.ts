// The moderators' side of reports (Mastodon's Api::V1::Admin::ReportsController and Report model): list them by
// state, reporter and target; take one on or give it up; reclassify it; resolve or reopen it. Every change is
// recorded in the audit log (target type Report); a call that changes nothing (resolving a resolved report,
// assigning it to whoever has it) answers the report as it is and records nothing.
import type { Account } from '../db/accounts';
import { instanceSettings } from '../db/instance';
import {
  assignReport,
  classifyReport,
  moveReport,
  reportById,
  reportQueuePage,
  type Report,
  type ReportCategory,
  type ReportChange,
  type ReportQueueFilter,
} from '../db/reports';
import { notFound, unprocessable } from '../errors';
import { isId } from '../ids';
import type { Page } from '../paging';
import { recordAction, type AuditTarget } from './audit';

/** A report as an audit target: Mastodon logs a report by its id. */
const reportTarget = (report: Pick<Report, 'id'>): AuditTarget => ({ type: 'Report', id: report.id, human: report.id });

/** The id as stored (no leading zeros); undefined for what cannot be a report id. */
const storedId = (id: string): string | undefined => (isId(id) ? BigInt(id).toString() : undefined);

export const moderatorReports = (filter: ReportQueueFilter, page: Page): Promise<Report[]> => reportQueuePage(filter, page);

export async function reportForModerator(id: string): Promise<Report> {
  const key = storedId(id);
  const report = key ? await reportById(key, true) : undefined;
  if (!report) throw notFound();
  return report;
}

async function changed(moderator: Account, action: string, change: ReportChange | undefined): Promise<Report> {
  if (!change) throw notFound();
  if (change.changed) await recordAction(moderator, action, reportTarget(change.report));
  return change.report;
}

const need = (id: string): string => {
  const key = storedId(id);
  if (!key) throw notFound();
  return key;
};

export const assignReportToSelf = async (moderator: Account, id: string) =>
  changed(moderator, 'assigned_to_self', await assignReport(need(id), moderator.id));

export const unassignReport = async (moderator: Account, id: string) => changed(moderator, 'unassigned', await assignReport(need(id), null));

export const resolveReportAs = async (moderator: Account, id: string) => changed(moderator, 'resolve', await moveReport(need(id), 'resolved', moderator.id));

export const reopenReport = async (moderator: Account, id: string) => changed(moderator, 'reopen', await moveReport(need(id), 'open', null));

export type ReportClassification = { category?: ReportCategory; ruleIds?: string[] };

/**
 * Reclassifies a report as Mastodon's Report validations allow: when the category or the rules change, a report
 * of any category but `violation` cites no rule ("Rule ids must be blank"), and a `violation` cites only rules
 * of this instance ("Rule ids does not reference valid rules"). Omitted fields keep their value.
 */
export async function reclassifyReport(moderator: Account, id: string, input: ReportClassification): Promise<Report> {
  const report = await reportForModerator(id);
  const category = input.category ?? report.category;
  const ruleIds = input.ruleIds ? [...new Set(input.ruleIds)] : report.ruleIds;
  const touched = category !== report.category || ruleIds.join(',') !== report.ruleIds.join(',');
  if (touched && category !== 'violation' && ruleIds.length > 0) throw unprocessable('Validation failed: Rule ids must be blank');
  if (touched && category === 'violation') {
    const known = new Set((await instanceSettings()).rules.map((r) => r.id));
    if (!ruleIds.every((r) => known.has(r))) throw unprocessable('Validation failed: Rule ids does not reference valid rules');
  }
  return changed(moderator, 'update', await classifyReport(report.id, category, ruleIds));
}
