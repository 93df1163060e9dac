// Admin::Report (https://docs.joinmastodon.org/entities/Admin_Report/): a report as moderators see it, its four
// accounts as Admin::Account, its statuses as Status entities and the rules it cites as Rule entities. A page
// costs one BatchGet of accounts, one of statuses (then the status renderer's own), and the instance settings
// (kept per container): not one read per report.
import { accountsByIds, type Account } from '../db/accounts';
import { recentInstanceSettings } from '../db/instance';
import type { Report } from '../db/reports';
import { statusesByIds, type Status } from '../db/statuses';
import { renderAdminAccount } from './admin_account';
import { renderRule } from './instance';
import { renderStatuses } from './status';

export async function renderAdminReports(reports: Report[], viewer: Account): Promise<Record<string, unknown>[]> {
  if (reports.length === 0) return [];
  const accountIds = new Set(reports.flatMap((r) => [r.accountId, r.targetAccountId, r.assignedAccountId ?? [], r.actionTakenByAccountId ?? []].flat()));
  const statusIds = [...new Set(reports.flatMap((r) => r.statusIds))];
  const [accounts, statuses, settings] = await Promise.all([
    accountsByIds([...accountIds]),
    statusIds.length > 0 ? statusesByIds(statusIds) : Promise.resolve(new Map<string, Status>()),
    recentInstanceSettings(),
  ]);
  // Moderators see every reported status, whatever its visibility (as Mastodon's serializer shows them); a status
  // deleted since is left out.
  const rendered = new Map((await renderStatuses([...statuses.values()], viewer)).map((s) => [String(s.id), s]));
  const rules = new Map(settings.rules.map((rule) => [rule.id, rule]));
  const admin = (id: string | null) => {
    const account = id === null ? undefined : accounts.get(id);
    return account ? renderAdminAccount(account) : null;
  };
  return reports.map((r) => ({
    id: r.id,
    action_taken: r.actionTakenAt !== null,
    action_taken_at: r.actionTakenAt,
    category: r.category,
    comment: r.comment,
    forwarded: r.forwarded,
    created_at: r.createdAt,
    updated_at: r.updatedAt ?? r.createdAt,
    account: admin(r.accountId),
    target_account: admin(r.targetAccountId),
    assigned_account: admin(r.assignedAccountId),
    action_taken_by_account: admin(r.actionTakenByAccountId),
    statuses: r.statusIds.flatMap((id) => rendered.get(id) ?? []),
    rules: r.ruleIds.flatMap((id) => {
      const rule = rules.get(id);
      return rule ? [renderRule(rule)] : [];
    }),
  }));
}

export async function renderAdminReport(report: Report, viewer: Account): Promise<Record<string, unknown>> {
  const [rendered] = await renderAdminReports([report], viewer);
  return rendered!;
}
