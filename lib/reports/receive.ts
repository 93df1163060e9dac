// Reports received from other servers (Mastodon's ActivityPub::Activity::Flag →
// ReportService): a Flag naming one of our accounts becomes a report for this
// server's moderators, filed by the sending actor (usually that server's
// instance actor: the person who reported stays unknown, as Mastodon sends it).
// Its comment is plain text, capped as Mastodon caps it. One report per account
// named, stored once per (Flag, account) however often the Flag is delivered.
import type { Account } from '../db/accounts';
import { countDaily } from '../db/daily_stats';
import { putReceivedReport, type Report } from '../db/reports';
import type { Status } from '../db/statuses';
import { nowIso } from '../db/table';
import { newId } from '../ids';
import { queueStaffNotice } from '../queue/staff_notice';

/** Characters of a received Flag's comment kept (Mastodon keeps 5,000). */
export const RECEIVED_COMMENT_MAX = 5000;

/** Cuts a comment to RECEIVED_COMMENT_MAX characters (whole code points). */
export const cappedComment = (text: string): string => [...text].slice(0, RECEIVED_COMMENT_MAX).join('');

/**
 * Stores `reporter`'s report (its Flag `flagUri`) about `target` (local) and those of `statuses` that are
 * the target's own ones; the rest are dropped. False when this Flag's report about the account was stored before.
 */
export async function receiveReport(reporter: Account, target: Account, statuses: Status[], comment: string, flagUri: string): Promise<boolean> {
  const report: Report & { uri: string } = {
    id: newId(),
    accountId: reporter.id,
    targetAccountId: target.id,
    statusIds: statuses.filter((s) => s.accountId === target.id && s.uri === null).map((s) => s.id),
    comment: cappedComment(comment),
    category: 'other',
    ruleIds: [],
    forwarded: false,
    uri: flagUri,
    actionTakenAt: null,
    actionTakenByAccountId: null,
    assignedAccountId: null,
    createdAt: nowIso(),
  };
  const stored = await putReceivedReport(report);
  // The moderators are told of it once: a redelivered Flag stores nothing and tells nobody again.
  if (stored) await Promise.all([queueStaffNotice({ notice: 'admin.report', reportId: report.id }), countDaily('openedReports')]);
  return stored;
}
