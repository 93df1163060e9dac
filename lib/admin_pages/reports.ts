// The report queue and one report (Mastodon's admin/reports): unresolved reports first (the default tab), each
// with its target, reporter, comment, category and statuses; a report's page shows the reported statuses and
// offers resolve / reopen and an action on the target account that resolves the report. Every change is
// recorded in the audit log.
import { z } from 'zod';
import { accountById, accountsByIds, type Account } from '../db/accounts';
import { reportById, reportQueuePage, type Report } from '../db/reports';
import { reopenReport, resolveReportAs } from '../moderation/reports';
import { statusesByIds } from '../db/statuses';
import { allWarningPresets } from '../db/warning_presets';
import type { Reply } from '../http/reply';
import { ACCOUNT_ACTIONS, takeAccountAction } from '../moderation/actions';
import { canonicalId, asPage, notFoundPage } from './common';
import { adminPage, adminPath, csrfField, esc, noticeOf, seeOther, when, type Viewer } from './layout';
import { accountLink, actionForm, chosenPreset, stateBadges, statusBlock } from './parts';

/** Reports shown per page of the queue, and how many are read at a time to fill it. */
export const QUEUE_PAGE = 20;


/**
 * A page of the queue, newest first: the open or resolved reports of the moderators' queue (lib/db/reports.ts
 * reportQueuePage, one Query and one batch read). `next` is where the next page starts, undefined when the page
 * came back short (the queue has ended).
 */
export async function queuePage(resolved: boolean, maxId?: string): Promise<{ reports: Report[]; next?: string }> {
  const reports = await reportQueuePage({ state: resolved ? 'resolved' : 'open' }, { limit: QUEUE_PAGE, ...(maxId ? { max_id: maxId } : {}) });
  return { reports, next: reports.length === QUEUE_PAGE ? reports.at(-1)!.id : undefined };
}

const excerpt = (text: string, max = 200) => ([...text].length > max ? `${[...text].slice(0, max).join('')}…` : text);

const reporterCell = (report: Report, reporter: Account | undefined) =>
  report.uri ? `from <strong>${esc(reporter?.domain ?? 'another server')}</strong>` : accountLink(reporter, report.accountId);

const QUEUE_NOTICES: Record<string, string> = {};

/** GET /admin/reports */
export async function reportQueue(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const resolved = input.resolved === '1' || input.resolved === 'true';
  const maxId = canonicalId(input.max_id);
  const { reports, next } = await queuePage(resolved, maxId);
  const accounts = await accountsByIds([...new Set(reports.flatMap((r) => [r.accountId, r.targetAccountId]))]);
  const rows = reports
    .map((r) => `<tr id="report-${esc(r.id)}">
<td><a href="${esc(adminPath(`/reports/${r.id}`))}">#${esc(r.id)}</a></td>
<td>${accountLink(accounts.get(r.targetAccountId), r.targetAccountId)}</td>
<td>${reporterCell(r, accounts.get(r.accountId))}</td>
<td>${esc(r.category)}</td>
<td class="comment">${esc(excerpt(r.comment))}</td>
<td>${r.statusIds.length}</td>
<td>${when(r.createdAt)}</td>
</tr>`)
    .join('\n');
  const tab = (on: boolean, label: string, href: string) => (on ? `<strong>${esc(label)}</strong>` : `<a href="${esc(href)}">${esc(label)}</a>`);
  const nextHref = next ? adminPath(`/reports?${new URLSearchParams({ ...(resolved ? { resolved: '1' } : {}), max_id: next }).toString()}`) : undefined;
  const body = `${noticeOf(QUEUE_NOTICES, input)}
<p>${tab(!resolved, 'Unresolved', adminPath('/reports'))} · ${tab(resolved, 'Resolved', adminPath('/reports?resolved=1'))}</p>
${reports.length === 0 ? `<p id="empty">${resolved ? 'No resolved reports.' : 'No unresolved reports.'}</p>` : `<table id="reports">
<thead><tr><th>Report</th><th>Reported account</th><th>Reported by</th><th>Category</th><th>Comment</th><th>Statuses</th><th>Filed</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}
${nextHref ? `<p class="pager"><a rel="next" href="${esc(nextHref)}">Older reports</a></p>` : ''}`;
  return adminPage(viewer, resolved ? 'Resolved reports' : 'Reports', body);
}

const REPORT_NOTICES: Record<string, string> = {
  resolved: 'The report is resolved.',
  reopened: 'The report is open again.',
  actioned: 'The action was taken and the report resolved.',
};

/** GET /admin/reports/:id */
export async function reportPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const id = canonicalId(input.id);
  const report = id ? await reportById(id, true) : undefined;
  if (!report) return notFoundPage(viewer, 'This report', adminPath('/reports'));
  const statuses = await statusesByIds(report.statusIds);
  const accounts = await accountsByIds([...new Set([report.accountId, report.targetAccountId, ...[...statuses.values()].map((s) => s.accountId)])]);
  const target = accounts.get(report.targetAccountId);
  const presets = target ? await allWarningPresets() : [];
  const action = adminPath(`/reports/${report.id}`);
  const reported = report.statusIds
    .map((sid) => {
      const status = statuses.get(sid);
      return status ? statusBlock(status, accounts.get(status.accountId)) : `<p class="status muted">Status ${esc(sid)} was deleted.</p>`;
    })
    .join('\n');
  const stateForm = `<form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
${report.actionTakenAt
    ? '<button type="submit" name="operation" value="reopen" class="secondary">Reopen</button>'
    : '<button type="submit" name="operation" value="resolve" class="primary">Resolve without action</button>'}
</form>`;
  const body = `${noticeOf(REPORT_NOTICES, input)}
<dl id="report">
<dt>State</dt><dd id="state">${report.actionTakenAt ? `Resolved ${when(report.actionTakenAt)}` : 'Unresolved'}</dd>
<dt>Reported account</dt><dd>${accountLink(target, report.targetAccountId)} ${target ? stateBadges(target) : ''}</dd>
<dt>Reported by</dt><dd>${reporterCell(report, accounts.get(report.accountId))}</dd>
<dt>Category</dt><dd>${esc(report.category)}${report.ruleIds.length > 0 ? ` (rules ${esc(report.ruleIds.join(', '))})` : ''}</dd>
<dt>Filed</dt><dd>${when(report.createdAt)}${report.forwarded ? ' · forwarded to the account\'s server' : ''}</dd>
</dl>
<h2>Comment</h2>
<p class="comment" id="comment">${report.comment ? esc(report.comment) : '<span class="muted">No comment.</span>'}</p>
<h2>Reported statuses (${report.statusIds.length})</h2>
${reported || '<p class="muted">No statuses were reported.</p>'}
<h2>Decision</h2>
${stateForm}
${target ? `<h3>Act on @${esc(target.domain ? `${target.username}@${target.domain}` : target.username)}</h3>
${actionForm(target, action, viewer.csrf, presets, {}, 'Taking an action resolves the report.')}` : ''}`;
  return adminPage(viewer, `Report #${report.id}`, body);
}

const submitted = z.object({
  operation: z.enum(['resolve', 'reopen', 'action']),
  type: z.enum(ACCOUNT_ACTIONS).optional(),
  warning_preset_id: z.string().max(30).optional(),
  text: z.string().max(5000).optional(),
});

/** POST /admin/reports/:id: resolve, reopen, or an action on the target that resolves the report. */
export async function submitReport(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const id = canonicalId(input.id);
  const back = adminPath(id ? `/reports/${id}` : '/reports');
  const report = id ? await reportById(id, true) : undefined;
  if (!report) return notFoundPage(viewer, 'This report', adminPath('/reports'));
  const form = submitted.safeParse(input);
  if (!form.success || (form.data.operation === 'action' && !form.data.type)) {
    return adminPage(viewer, 'Not done', `<p class="error" role="alert" id="error">Choose resolve, reopen or an action.</p><p><a href="${esc(back)}">Back</a></p>`, 422);
  }
  const moderator = viewer.account;
  const preset = chosenPreset(form.data.warning_preset_id);
  if (preset === false) return notFoundPage(viewer, 'This warning preset', back);
  return asPage(viewer, back, async () => {
    switch (form.data.operation) {
      case 'resolve':
        // Resolving (and reopening) writes its audit entry only when the state changes.
        await resolveReportAs(moderator, report.id);
        return seeOther(back, 'resolved');
      case 'reopen':
        await reopenReport(moderator, report.id);
        return seeOther(back, 'reopened');
      case 'action': {
        const target = await accountById(report.targetAccountId);
        if (!target) return notFoundPage(viewer, 'The reported account', back);
        await takeAccountAction(moderator, target, { type: form.data.type!, reportId: report.id, warningPresetId: preset, text: form.data.text?.trim() || undefined });
        await resolveReportAs(moderator, report.id);
        return seeOther(back, 'actioned');
      }
    }
  });
}
