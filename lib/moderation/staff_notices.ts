// Telling the staff (Mastodon's BootstrapTimelineService#notify_staff! and ReportService#notify_staff!): a new
// local sign-up is an `admin.sign_up` notification to every staff account whose role may manage users; a new
// report (filed here or received in a Flag) is an `admin.report` notification, and an e-mail, to every one whose
// role may manage reports, unless another report about the same account is still open (Mastodon's
// unresolved_siblings?: the moderators were told of that one and have not dealt with it yet). Run by the notify
// worker, off the request path; each notification goes through lib/notifications/notify.ts (stream and push).
import { config } from '../config';
import { accountById, accountsByIds, staffMembers, type Account } from '../db/accounts';
import { hasOpenSiblings, reportById, type Report } from '../db/reports';
import { log } from '../log';
import type { Mail } from '../mail';
import { notify } from '../notifications/notify';
import { can, type Permission } from '../policy/roles';
import { enqueue } from '../queue';
import type { StaffNoticeMessage } from '../queue/messages';
import { escapeHtml } from '../text';

const acct = (account: Pick<Account, 'username' | 'domain'>) => (account.domain ? `${account.username}@${account.domain}` : account.username);

/** A staff account that can act now (Mastodon's User#functional?): confirmed, approved, neither disabled nor suspended. */
const functional = (account: Account) => account.confirmedAt !== null && account.approved && !account.disabled && account.suspendedAt === null;

/**
 * The local staff accounts whose role (roleOf: a null role id on an `admin` account is the Owner) holds the
 * permission. One Query of the staff partition, one BatchGet of their accounts.
 */
export async function staffWhoCan(permission: Permission): Promise<Account[]> {
  const members = await staffMembers();
  if (members.length === 0) return [];
  const accounts = await accountsByIds(members.map((m) => m.accountId));
  return members.flatMap((m) => {
    const account = accounts.get(m.accountId);
    return account && account.domain === null && can(account, permission) ? [account] : [];
  });
}

/** The e-mail a moderator receives about a new report (Mastodon's AdminMailer#new_report). */
export function newReportMail(to: string, report: Report, reporter: Account | undefined, target: Account | undefined): Mail {
  const url = `${config.baseUrl}/admin/reports/${report.id}`;
  const about = target ? acct(target) : `account ${report.targetAccountId}`;
  const by = report.uri ? `another server (${reporter?.domain ?? 'unknown'})` : reporter ? acct(reporter) : `account ${report.accountId}`;
  const subject = `New report for ${config.domain} (#${report.id})`;
  const comment = report.comment.trim();
  const text = [
    `${by} has reported ${about}.`,
    '',
    `Category: ${report.category}`,
    ...(report.statusIds.length > 0 ? [`Statuses: ${report.statusIds.length}`] : []),
    ...(comment ? ['Comment:', comment] : []),
    '',
    `View the report: ${url}`,
  ].join('\n');
  const html =
    `<p>${escapeHtml(by)} has reported ${escapeHtml(about)}.</p>` +
    `<p>Category: ${escapeHtml(report.category)}</p>` +
    (comment ? `<blockquote>${escapeHtml(comment)}</blockquote>` : '') +
    `<p><a href="${escapeHtml(url)}">View the report</a></p>`;
  return { to, subject, text, html };
}

async function tellOfSignUp(accountId: string): Promise<number> {
  const account = await accountById(accountId);
  if (!account || account.domain !== null) return 0;
  const staff = await staffWhoCan('manage_users');
  let told = 0;
  for (const member of staff) {
    if ((await notify({ type: 'admin.sign_up', accountId: member.id, fromAccountId: account.id })) === 'created') told++;
  }
  return told;
}

async function tellOfReport(reportId: string): Promise<number> {
  const report = await reportById(reportId, true);
  if (!report || report.actionTakenAt !== null) return 0;
  if (await hasOpenSiblings(report)) return 0;
  const staff = (await staffWhoCan('manage_reports')).filter(functional);
  if (staff.length === 0) return 0;
  const parties = await accountsByIds([report.accountId, report.targetAccountId]);
  let told = 0;
  for (const member of staff) {
    const outcome = await notify({ type: 'admin.report', accountId: member.id, fromAccountId: report.accountId, reportId: report.id });
    if (outcome === 'created') told++;
    // A redelivered message finds the notification written ('duplicate'), and sends no second mail.
    if (outcome !== 'created' || !member.email) continue;
    try {
      await enqueue('mail', newReportMail(member.email, report, parties.get(report.accountId), parties.get(report.targetAccountId)));
    } catch (err) {
      log.error('staff notice: report mail not queued', { reportId: report.id, accountId: member.id, err });
    }
  }
  return told;
}

/** Tells the staff of a new sign-up or report; answers how many notifications were written. */
export const tellStaff = (notice: StaffNoticeMessage): Promise<number> =>
  notice.notice === 'admin.sign_up' ? tellOfSignUp(notice.accountId) : tellOfReport(notice.reportId);
