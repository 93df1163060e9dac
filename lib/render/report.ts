// Report entity (https://docs.joinmastodon.org/entities/Report/): what the reporter
// gets back from POST /api/v1/reports. Collections (Mastodon 4.5's featured
// collections) do not exist here: always empty.
import type { Account } from '../db/accounts';
import type { Report } from '../db/reports';
import { renderAccount } from './account';

export function renderReport(report: Report, target: Account) {
  return {
    id: report.id,
    action_taken: report.actionTakenAt !== null,
    action_taken_at: report.actionTakenAt,
    category: report.category,
    comment: report.comment,
    forwarded: report.forwarded,
    created_at: report.createdAt,
    status_ids: report.statusIds,
    // Mastodon keeps no rule ids for a report that cites none: null.
    rule_ids: report.ruleIds.length > 0 ? report.ruleIds : null,
    collection_ids: [] as string[],
    target_account: renderAccount(target),
  };
}
