// The operator's report commands (`npm run admin -- reports ...`): list the
// reports this server holds (filed here, or received from other servers in a
// Flag), show one, mark one resolved. Moderation actions themselves (silence,
// suspend) are not here: resolving records that a moderator dealt with it.
import { accountsByIds, type Account } from '../db/accounts';
import { reindexReportQueues, reportById, reportsPage, resolveReport, type Report } from '../db/reports';
import { isId } from '../ids';
import { AdminError } from './commands';

/** Reports listed by `reports list`, newest first. */
export const REPORTS_LISTED = 100;

const handleOf = (account: Account | undefined, id: string): string =>
  account ? (account.domain ? `${account.username}@${account.domain}` : account.username) : `(gone: ${id})`;

const stateOf = (report: Report) => (report.actionTakenAt ? `resolved ${report.actionTakenAt}` : 'open');

/** Where a report came from: a local reporter, or another server (its Flag). */
const originOf = (report: Report, reporter: Account | undefined) =>
  report.uri ? `from ${reporter?.domain ?? 'another server'}` : `by ${handleOf(reporter, report.accountId)}`;

async function accountsOf(reports: Report[]): Promise<Map<string, Account>> {
  return accountsByIds([...new Set(reports.flatMap((r) => [r.accountId, r.targetAccountId]))]);
}

export async function listReports(): Promise<string> {
  const reports = await reportsPage({ limit: REPORTS_LISTED });
  if (reports.length === 0) return 'No reports.';
  const accounts = await accountsOf(reports);
  return reports
    .map((r) =>
      [r.id, stateOf(r), `about ${handleOf(accounts.get(r.targetAccountId), r.targetAccountId)}`, originOf(r, accounts.get(r.accountId)), r.category, r.createdAt].join('  '),
    )
    .join('\n');
}

async function findReport(id: string): Promise<Report> {
  const report = isId(id) ? await reportById(BigInt(id).toString(), true) : undefined;
  if (!report) throw new AdminError(`No report with id ${id}`);
  return report;
}

export async function showReport(id: string): Promise<string> {
  const report = await findReport(id);
  const accounts = await accountsOf([report]);
  return [
    `id:          ${report.id}`,
    `state:       ${stateOf(report)}`,
    `about:       ${handleOf(accounts.get(report.targetAccountId), report.targetAccountId)} (id ${report.targetAccountId})`,
    `reported:    ${originOf(report, accounts.get(report.accountId))}`,
    `category:    ${report.category}`,
    `created:     ${report.createdAt}`,
    `statuses:    ${report.statusIds.join(', ') || 'none'}`,
    `rules:       ${report.ruleIds.join(', ') || 'none'}`,
    `forwarded:   ${report.forwarded ? 'yes' : 'no'}`,
    ...(report.uri ? [`flag:        ${report.uri}`] : []),
    `comment:     ${report.comment.replace(/\s+/g, ' ').trim() || '(none)'}`,
  ].join('\n');
}

export async function resolveReportCommand(id: string): Promise<string> {
  const report = await findReport(id);
  if (report.actionTakenAt) return `Report ${report.id} was already resolved (${report.actionTakenAt}).`;
  await resolveReport(report.id);
  return `Resolved report ${report.id}.`;
}

/** Files every stored report into the moderators' queues (reports stored before the queues existed are not in them). */
export async function reindexReportsCommand(): Promise<string> {
  const count = await reindexReportQueues();
  return `Filed ${count} report${count === 1 ? '' : 's'} into the moderators' queues.`;
}
