// Sign-ups awaiting approval (Mastodon's admin/accounts?status=pending): each with its e-mail address and reason,
// approved or rejected with one click. Rejecting deletes the pending account and frees its username and e-mail
// address, as Mastodon's reject does. Both are recorded in the audit log.
import { z } from 'zod';
import { accountById, pendingAccounts } from '../db/accounts';
import type { Reply } from '../http/reply';
import { approveSignUp, rejectSignUp } from '../moderation/admin_accounts';
import { canonicalId } from './common';
import { approveRejectForm } from './parts';
import { adminPage, adminPath, esc, noticeOf, seeOther, when, type Viewer } from './layout';

/** Pending sign-ups listed, oldest first (the order they wait in). */
export const PENDING_LISTED = 100;

const NOTICES: Record<string, string> = {
  approved: 'The account is approved.',
  rejected: 'The sign-up is rejected and the account deleted.',
  gone: 'That account is no longer pending.',
};

/** GET /admin/pending_accounts */
export async function pendingPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const pending = await pendingAccounts(PENDING_LISTED);
  const action = adminPath('/pending_accounts');
  const rows = pending
    .map((a) => `<tr id="pending-${esc(a.id)}">
<td>@${esc(a.username)}</td>
<td>${esc(a.email)}</td>
<td class="comment">${esc(a.reason)}</td>
<td>${a.confirmedAt ? 'yes' : 'no'}</td>
<td>${when(a.createdAt)}</td>
<td>${approveRejectForm(viewer, action, 'account_id', a.id, 'danger')}</td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
${pending.length === 0 ? '<p id="empty">No sign-up awaits approval.</p>' : `<table id="pending">
<thead><tr><th>Username</th><th>E-mail</th><th>Reason</th><th>Confirmed</th><th>Signed up</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}`;
  return adminPage(viewer, 'Pending sign-ups', body);
}

const submitted = z.object({ operation: z.enum(['approve', 'reject']), account_id: z.string() });

/** POST /admin/pending_accounts: approve or reject one pending account. */
export async function submitPending(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath('/pending_accounts');
  const form = submitted.safeParse(input);
  const id = form.success ? canonicalId(form.data.account_id) : undefined;
  if (!form.success || !id) {
    return adminPage(viewer, 'Not done', `<p class="error" role="alert" id="error">Choose an account and approve or reject it.</p><p><a href="${esc(back)}">Back</a></p>`, 422);
  }
  const account = await accountById(id);
  if (!account || account.domain !== null || account.approved) return seeOther(back, 'gone');
  if (form.data.operation === 'approve') {
    await approveSignUp(viewer.account, account);
    return seeOther(back, 'approved');
  }
  await rejectSignUp(viewer.account, account);
  return seeOther(back, 'rejected');
}
