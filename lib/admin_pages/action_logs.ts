// The audit log (Mastodon's admin/action_logs): who did what to which target and when, newest first, a page
// at a time with a link to the older ones.
import { accountsByIds } from '../db/accounts';
import { auditLogPage } from '../db/audit_log';
import type { Reply } from '../http/reply';
import { canonicalId } from './common';
import { adminPage, adminPath, esc, when, type Viewer } from './layout';
import { accountLink } from './parts';

/** Entries per page. */
export const LOG_PAGE = 40;

/** GET /admin/action_logs */
export async function actionLogPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const maxId = canonicalId(input.max_id);
  const entries = await auditLogPage({ limit: LOG_PAGE, ...(maxId ? { max_id: maxId } : {}) });
  const moderators = await accountsByIds([...new Set(entries.map((e) => e.accountId))]);
  const rows = entries
    .map((e) => `<tr>
<td>${when(e.createdAt)}</td>
<td>${accountLink(moderators.get(e.accountId), e.accountId)}</td>
<td>${esc(e.action)}</td>
<td>${esc(e.targetType)}</td>
<td>${e.targetType === 'Account' ? `<a href="${esc(adminPath(`/accounts/${e.targetId}`))}">${esc(e.humanIdentifier || e.targetId)}</a>`
      : e.targetType === 'Report' ? `<a href="${esc(adminPath(`/reports/${e.targetId}`))}">#${esc(e.targetId)}</a>`
      : esc(e.humanIdentifier || e.targetId)}</td>
</tr>`)
    .join('\n');
  const older = entries.length === LOG_PAGE ? adminPath(`/action_logs?max_id=${entries.at(-1)!.id}`) : undefined;
  const body = `${entries.length === 0 ? '<p id="empty">Nothing was done yet.</p>' : `<table id="action-logs">
<thead><tr><th>When</th><th>Moderator</th><th>Action</th><th>Target type</th><th>Target</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}
${older ? `<p class="pager"><a rel="next" href="${esc(older)}">Older entries</a></p>` : ''}`;
  return adminPage(viewer, 'Audit log', body);
}
