// Mastodon's AnnualReport entity (https://docs.joinmastodon.org/entities/AnnualReport/) and WrappedAnnualReports: the
// reports with the statuses and accounts their data names, rendered for the viewer in one batch.
import type { Account } from '../db/accounts';
import type { AnnualReport } from '../db/annual_reports';
import { statusesByIds, type Status } from '../db/statuses';
import { renderStatuses } from './status';

/**
 * One report. `share_url` is null: Mastodon links a public page of the report (/@user/wrapstodon/<year>/<key>),
 * which this server does not serve.
 */
export const renderAnnualReport = (report: AnnualReport) => ({
  year: report.year,
  data: report.data,
  schema_version: report.schemaVersion,
  share_url: null,
  account_id: report.accountId,
});

/** The statuses a report's data names (its top statuses), as GeneratedAnnualReport#status_ids. */
const statusIdsOf = (report: AnnualReport): string[] =>
  Object.values(report.data.top_statuses).filter((id): id is string => id !== null);

/**
 * WrappedAnnualReports. `accounts` holds the accounts the data names: schema 2 names none (schema 1's
 * most_reblogged_accounts and commonly_interacted_with_accounts are not generated here). A status deleted since
 * the report was made is left out, as Mastodon's query finds it no more.
 */
export async function renderAnnualReports(reports: AnnualReport[], viewer: Account) {
  const ids = [...new Set(reports.flatMap(statusIdsOf))];
  const found = ids.length > 0 ? await statusesByIds(ids) : new Map<string, Status>();
  const statuses = ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
  return {
    annual_reports: reports.map(renderAnnualReport),
    accounts: [] as unknown[],
    statuses: statuses.length > 0 ? await renderStatuses(statuses, viewer) : [],
  };
}
