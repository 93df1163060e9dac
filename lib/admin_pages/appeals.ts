// The appeals waiting for a decision (Mastodon's admin/disputes/appeals): each strike's account, its action and
// text, the appeal's text and when it was filed, with Approve and Reject. Deciding goes through
// lib/moderation/appeals.ts (manage_appeals; approving lifts the sanction under the outrank rule and marks the
// strike overruled; each decision in the audit log).
import { z } from 'zod';
import { accountsByIds } from '../db/accounts';
import type { StrikeAction } from '../db/strikes';
import type { Reply } from '../http/reply';
import { approveAppeal, pendingAppealsAfter, rejectAppeal } from '../moderation/appeals';
import { asPage, canonicalId } from './common';
import { adminPage, adminPath, esc, messagePage, noticeOf, seeOther, when, type Viewer } from './layout';
import { accountLink, approveRejectForm } from './parts';

/** Appeals per page, oldest first. */
export const APPEALS_LISTED = 50;

const PATH = '/disputes/appeals';

const NOTICES: Record<string, string> = {
  approved: 'The appeal is approved: the sanction is lifted and the strike overruled.',
  rejected: 'The appeal is rejected: the strike stands.',
};

/** What the strike did, as the moderator reads it. */
const ACTION_LABELS: Record<StrikeAction, string> = {
  none: 'Warning',
  disable: 'Login frozen',
  mark_statuses_as_sensitive: 'Posts marked as sensitive',
  delete_statuses: 'Posts removed',
  sensitive: 'Media marked as sensitive',
  silence: 'Limited',
  suspend: 'Suspended',
};

/** GET /admin/disputes/appeals */
export async function appealsPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const after = canonicalId(input.after);
  const { strikes, last } = await pendingAppealsAfter(viewer.account, APPEALS_LISTED, after);
  const accounts = await accountsByIds([...new Set(strikes.map((s) => s.accountId))]);
  const action = adminPath(PATH);
  const rows = strikes
    .map((s) => `<tr id="appeal-${esc(s.id)}">
<td>${accountLink(accounts.get(s.accountId), s.accountId)}</td>
<td>${esc(ACTION_LABELS[s.action])} <span class="muted">${when(s.createdAt)}</span>${s.text ? `<p class="comment strike-text">${esc(s.text)}</p>` : ''}</td>
<td class="comment appeal-text">${esc(s.appeal!.text)}</td>
<td>${when(s.appeal!.createdAt)}</td>
<td>${approveRejectForm(viewer, action, 'strike_id', s.id, 'secondary')}</td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
<p class="muted">Approving an appeal lifts the strike's sanction and marks the strike overruled; rejecting it keeps both.</p>
${strikes.length === 0 ? '<p id="empty">No appeal is waiting.</p>' : `<table id="appeals">
<thead><tr><th>Account</th><th>Strike</th><th>Appeal</th><th>Filed</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}
${last ? `<p class="pager"><a rel="next" href="${esc(adminPath(`${PATH}?after=${last}`))}">Later appeals</a></p>` : ''}`;
  return adminPage(viewer, 'Appeals', body);
}

const submitted = z.object({ operation: z.enum(['approve', 'reject']), strike_id: z.string().max(30) });

/** POST /admin/disputes/appeals: approve or reject one appeal. */
export async function submitAppeal(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath(PATH);
  const form = submitted.safeParse(input);
  const strikeId = form.success ? canonicalId(form.data.strike_id) : undefined;
  if (!form.success || !strikeId) return messagePage(viewer, 422, 'Not done', 'Choose an appeal to approve or reject.', back);
  return asPage(viewer, back, async () => {
    if (form.data.operation === 'approve') await approveAppeal(viewer.account, strikeId);
    else await rejectAppeal(viewer.account, strikeId);
    return seeOther(back, form.data.operation === 'approve' ? 'approved' : 'rejected');
  });
}
