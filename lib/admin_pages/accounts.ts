// An account as moderators see it (Mastodon's admin/accounts/:id): its profile and login state, its role and
// sanctions, its recent statuses, the action form and a button for each sanction it can be lifted of; and the
// search by username that leads there. Actions and reversals go through lib/moderation/actions.ts (the outrank
// rule, the side effects, the audit log).
import { z } from 'zod';
import { accountById, accountsByIds, type Account } from '../db/accounts';
import { accountStatusesPage } from '../db/account_statuses';
import { remoteAccountByAcct } from '../db/remote';
import { usernamesByPrefix } from '../db/usernames';
import { allWarningPresets } from '../db/warning_presets';
import type { Reply } from '../http/reply';
import { ACCOUNT_ACTIONS, REVERSALS, reverseAccountAction, takeAccountAction, type Reversal } from '../moderation/actions';
import { outranks, roleOf } from '../policy/roles';
import { asPage, canonicalId, notFoundPage } from './common';
import { adminPage, adminPath, csrfField, esc, noticeOf, seeOther, when, type Viewer } from './layout';
import { accountLink, acctOf, actionForm, chosenPreset, stateBadges, statusBlock } from './parts';

/** Recent statuses shown on an account's page. */
export const RECENT_STATUSES = 20;

const REVERSAL_LABELS: Record<Reversal, string> = {
  enable: 'Unfreeze login',
  unsilence: 'Undo limit',
  unsuspend: 'Undo suspension',
  unsensitive: 'Undo sensitive',
};

/** The sanctions the account holds, as the reversals that lift them. */
const reversalsFor = (account: Account): Reversal[] =>
  REVERSALS.filter((r) =>
    r === 'enable' ? account.disabled : r === 'unsilence' ? account.silencedAt !== null : r === 'unsuspend' ? account.suspendedAt !== null : account.sensitizedAt !== null,
  );

const NOTICES: Record<string, string> = {
  none: 'The warning was recorded.',
  sensitive: 'The account\'s media are marked sensitive.',
  disable: 'The account\'s login is frozen.',
  silence: 'The account is limited.',
  suspend: 'The account is suspended.',
  enable: 'The account\'s login works again.',
  unsilence: 'The account is no longer limited.',
  unsuspend: 'The account is no longer suspended.',
  unsensitive: 'The account\'s media are no longer forced sensitive.',
};

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** GET /admin/accounts/:id */
export async function accountPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const id = canonicalId(input.id);
  const account = id ? await accountById(id, true) : undefined;
  if (!account) return notFoundPage(viewer, 'This account', adminPath('/accounts'));
  const statuses = await accountStatusesPage(account.id, { limit: RECENT_STATUSES }, { excludeReblogs: true });
  const action = adminPath(`/accounts/${account.id}`);
  const reversals = reversalsFor(account);
  const mayAct = outranks(viewer.account, account);
  const presets = mayAct ? await allWarningPresets() : [];
  const local = account.domain === null;
  const body = `${noticeOf(NOTICES, input)}
<dl id="account">
<dt>Handle</dt><dd>@${esc(acctOf(account))} ${stateBadges(account)}</dd>
<dt>Display name</dt><dd id="display-name">${esc(account.displayName)}</dd>
<dt>Id</dt><dd>${esc(account.id)}</dd>
<dt>Role</dt><dd>${esc(roleOf(account).name || 'none')}</dd>
${local ? `<dt>E-mail</dt><dd>${esc(account.email)}</dd>
<dt>Confirmed</dt><dd>${account.confirmedAt ? when(account.confirmedAt) : 'no'}</dd>
<dt>Approved</dt><dd>${yesNo(account.approved)}</dd>
<dt>Last sign-in</dt><dd>${account.lastSignInAt ? when(account.lastSignInAt) : 'never'}</dd>` : `<dt>Profile</dt><dd>${esc(account.url ?? account.uri ?? '')}</dd>`}
<dt>Joined</dt><dd>${when(account.createdAt)}</dd>
<dt>Statuses</dt><dd>${account.statusesCount}</dd>
<dt>Followers</dt><dd>${account.followersCount}</dd>
<dt>Following</dt><dd>${account.followingCount}</dd>
<dt>Limited</dt><dd>${account.silencedAt ? when(account.silencedAt) : 'no'}</dd>
<dt>Suspended</dt><dd id="suspended">${account.suspendedAt ? when(account.suspendedAt) : 'no'}</dd>
<dt>Sensitive</dt><dd>${account.sensitizedAt ? when(account.sensitizedAt) : 'no'}</dd>
${local ? `<dt>Login frozen</dt><dd>${yesNo(account.disabled)}</dd>` : ''}
</dl>
${mayAct ? `<h2>Take action</h2>
${actionForm(account, action, viewer.csrf, presets)}
${reversals.length > 0 ? `<h2>Lift a sanction</h2>
<form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="reverse">
${reversals.map((r) => `<button type="submit" name="reversal" value="${esc(r)}" class="secondary">${esc(REVERSAL_LABELS[r])}</button>`).join('\n')}
</form>` : ''}` : '<p class="muted">Your role does not allow you to act on this account.</p>'}
<h2>Recent statuses</h2>
${statuses.length > 0 ? statuses.map((s) => statusBlock(s, account)).join('\n') : '<p class="muted">No statuses.</p>'}`;
  return adminPage(viewer, `@${acctOf(account)}`, body);
}

const submitted = z.object({
  operation: z.enum(['action', 'reverse']),
  type: z.enum(ACCOUNT_ACTIONS).optional(),
  reversal: z.enum(REVERSALS).optional(),
  warning_preset_id: z.string().max(30).optional(),
  text: z.string().max(5000).optional(),
});

/** POST /admin/accounts/:id: an action on the account, or lifting one of its sanctions. */
export async function submitAccount(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const id = canonicalId(input.id);
  const account = id ? await accountById(id) : undefined;
  if (!account) return notFoundPage(viewer, 'This account', adminPath('/accounts'));
  const back = adminPath(`/accounts/${account.id}`);
  const form = submitted.safeParse(input);
  const type = form.success && form.data.operation === 'action' ? form.data.type : undefined;
  const reversal = form.success && form.data.operation === 'reverse' ? form.data.reversal : undefined;
  if (!form.success || (!type && !reversal)) {
    return adminPage(viewer, 'Not done', `<p class="error" role="alert" id="error">Choose an action.</p><p><a href="${esc(back)}">Back</a></p>`, 422);
  }
  const preset = chosenPreset(form.data.warning_preset_id);
  if (preset === false) return notFoundPage(viewer, 'This warning preset', back);
  return asPage(viewer, back, async () => {
    if (type) await takeAccountAction(viewer.account, account, { type, warningPresetId: preset, text: form.data.text?.trim() || undefined });
    else await reverseAccountAction(viewer.account, account, reversal!);
    return seeOther(back, type ?? reversal);
  });
}

/** Accounts listed by a search. */
export const SEARCH_RESULTS = 20;

/** GET /admin/accounts: search by username (a prefix of a local one) or by user@domain (a remote one). */
export async function accountSearch(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const q = typeof input.username === 'string' ? input.username.trim().replace(/^@/, '').slice(0, 300) : '';
  let found: Account[] = [];
  if (q !== '') {
    const at = q.indexOf('@');
    if (at > 0) {
      const remote = await remoteAccountByAcct(q.slice(0, at), q.slice(at + 1).toLowerCase());
      found = remote ? [remote] : [];
    } else {
      const { items } = await usernamesByPrefix(q, SEARCH_RESULTS);
      const byId = await accountsByIds(items.map((i) => i.accountId));
      found = items.flatMap((i) => byId.get(i.accountId) ?? []);
    }
  }
  const rows = found
    .map((a) => `<tr><td>${accountLink(a, a.id)}</td><td>${esc(a.displayName)}</td><td>${stateBadges(a)}</td><td>${when(a.createdAt)}</td></tr>`)
    .join('\n');
  const body = `<form method="get" action="${esc(adminPath('/accounts'))}">
<label for="username">Username (or user@domain)</label>
<input type="search" id="username" name="username" value="${esc(q)}">
<div class="actions"><button type="submit" class="primary">Search</button></div>
</form>
${q === '' ? '' : found.length === 0 ? '<p id="empty">No account found.</p>' : `<table id="accounts">
<thead><tr><th>Account</th><th>Display name</th><th>State</th><th>Joined</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}`;
  return adminPage(viewer, 'Accounts', body);
}
