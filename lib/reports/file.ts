// Filing a report (POST /api/v1/reports; Mastodon's ReportService): a local
// account reports another account, with some of its statuses, a comment, a
// category and the instance rules it breaks. The report is stored for this
// server's moderators; with `forward`, a report about a remote account also goes
// to its server as a Flag from the instance actor (lib/federation/send_moderation.ts).
import type { Account } from '../db/accounts';
import { instanceSettings } from '../db/instance';
import { countDaily, countNamed } from '../db/daily_stats';
import { putReport, type Report, type ReportCategory } from '../db/reports';
import { statusesByIds, type Status } from '../db/statuses';
import { nowIso } from '../db/table';
import { notFound, unprocessable } from '../errors';
import { sendFlag } from '../federation/send_moderation';
import { isId, newId } from '../ids';
import { visibleAccountById } from '../policy/accounts';
import { isRemoteAccount } from '../policy/federation';
import { mayView } from '../policy/view';
import { queueStaffNotice } from '../queue/staff_notice';

/** Mastodon's limit on a local reporter's comment (Report::COMMENT_SIZE_LIMIT), in characters. */
export const REPORT_COMMENT_MAX = 1000;
/** Statuses one report may attach (Mastodon bounds them by its form; this bounds the reads). */
export const REPORT_STATUSES_MAX = 100;

export type ReportRequest = {
  accountId: string;
  statusIds: string[];
  comment: string;
  category?: ReportCategory;
  ruleIds: string[];
  forward: boolean;
};

/**
 * The statuses named, each of them the target's and one the reporter may see, in the order given;
 * 404 as soon as one is not (Mastodon finds them among the account's statuses the reporter can see).
 */
async function reportedStatuses(reporter: Account, target: Account, ids: string[]): Promise<Status[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  if (!wanted.every(isId)) throw notFound();
  const found = await statusesByIds(wanted.map((id) => BigInt(id).toString()));
  const statuses = [...found.values()];
  const ours = statuses.length === wanted.length && statuses.every((s) => s.accountId === target.id);
  if (!ours) throw notFound();
  for (const status of statuses) if (!(await mayView(reporter, status))) throw notFound();
  return statuses;
}

/** The category: as asked, else `violation` when rules are cited, else `other`. */
const categoryOf = (request: ReportRequest): ReportCategory => request.category ?? (request.ruleIds.length > 0 ? 'violation' : 'other');

/** The rules a `violation` cites must be the instance's (422 otherwise); other categories cite none. */
async function citedRules(category: ReportCategory, ruleIds: string[]): Promise<string[]> {
  if (category !== 'violation') return [];
  const known = new Set((await instanceSettings()).rules.map((r) => r.id));
  const cited = [...new Set(ruleIds)];
  if (!cited.every((id) => known.has(id))) throw unprocessable('Validation failed: Rule ids does not reference valid rules');
  return cited;
}

export async function fileReport(reporter: Account, request: ReportRequest): Promise<{ report: Report; target: Account }> {
  const target = await visibleAccountById(request.accountId);
  if ([...request.comment].length > REPORT_COMMENT_MAX) {
    throw unprocessable(`Validation failed: Comment is too long (maximum is ${REPORT_COMMENT_MAX} characters)`);
  }
  const statuses = await reportedStatuses(reporter, target, request.statusIds);
  const category = categoryOf(request);
  const forward = request.forward && isRemoteAccount(target);
  const report: Report = {
    id: newId(),
    accountId: reporter.id,
    targetAccountId: target.id,
    statusIds: statuses.map((s) => s.id),
    comment: request.comment,
    category,
    ruleIds: await citedRules(category, request.ruleIds),
    forwarded: forward,
    uri: null,
    actionTakenAt: null,
    actionTakenByAccountId: null,
    assignedAccountId: null,
    createdAt: nowIso(),
  };
  await putReport(report);
  // The moderators are told (admin.report, and an e-mail), off the request path; the dashboard counts it.
  await Promise.all([
    queueStaffNotice({ notice: 'admin.report', reportId: report.id }),
    countDaily('openedReports'),
    target.domain ? countNamed('report', target.domain.toLowerCase()) : undefined,
  ]);
  if (forward) await sendFlag(report, target, statuses.flatMap((s) => s.uri ?? []));
  return { report, target };
}
