// Pieces several moderation pages show: an account's handle and state, a status as the moderator reads it,
// and the account action form (Mastodon's Admin::AccountAction types).
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import type { WarningPreset } from '../db/warning_presets';
import { sanitizeRemoteHtml } from '../federation/sanitize';
import { ACCOUNT_ACTIONS, type AccountActionType } from '../moderation/actions';
import { presetLabel } from '../moderation/warning_presets';
import { roleOf } from '../policy/roles';
import { canonicalId } from './common';
import { adminPath, csrfField, esc, when } from './layout';

/** The Approve and Reject buttons of one row (a sign-up, an appeal): a POST of `field`=`id` with the CSRF token. */
export const approveRejectForm = (viewer: { csrf: string }, action: string, field: string, id: string, rejectClass: 'secondary' | 'danger') =>
  `<form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="${esc(field)}" value="${esc(id)}">
<button type="submit" name="operation" value="approve" class="primary">Approve</button>
<button type="submit" name="operation" value="reject" class="${rejectClass}">Reject</button>
</form>`;

export const acctOf = (account: Pick<Account, 'username' | 'domain'>) => (account.domain ? `${account.username}@${account.domain}` : account.username);

/** A link to the account's moderation page, by its handle (or its id when the account is gone). */
export const accountLink = (account: Account | undefined, id: string) =>
  account ? `<a href="${esc(adminPath(`/accounts/${account.id}`))}">@${esc(acctOf(account))}</a>` : `<span class="muted">(deleted account ${esc(id)})</span>`;

/** The sanctions and role of an account, as badges. */
export function stateBadges(account: Account): string {
  const badges: string[] = [];
  const role = roleOf(account);
  if (role.name) badges.push(`<span class="badge">${esc(role.name)}</span>`);
  if (account.suspendedAt) badges.push('<span class="badge bad">Suspended</span>');
  if (account.silencedAt) badges.push('<span class="badge bad">Limited</span>');
  if (account.sensitizedAt) badges.push('<span class="badge bad">Sensitive</span>');
  if (account.disabled) badges.push('<span class="badge bad">Disabled</span>');
  if (account.domain === null && !account.approved) badges.push('<span class="badge">Pending</span>');
  return badges.join('');
}

/**
 * A status as a moderator reads it: author, time, visibility, content warning, the text and its attachments
 * counted. The stored HTML was sanitised when it was stored; it passes the sanitiser once more here, and the
 * page's CSP would refuse any script or remote load whatever it held.
 */
export function statusBlock(status: Status, author: Account | undefined): string {
  return `<article class="status" id="status-${esc(status.id)}">
<p class="muted">${accountLink(author, status.accountId)} · ${when(status.createdAt)} · ${esc(status.visibility)}${status.editedAt ? ' · edited' : ''}${status.reblogOfId ? ' · boost' : ''}${status.sensitive ? ' · sensitive' : ''}</p>
${status.spoilerText ? `<p><strong>CW:</strong> ${esc(status.spoilerText)}</p>` : ''}
<div class="content">${sanitizeRemoteHtml(status.contentHtml)}</div>
${status.mediaIds.length > 0 ? `<p class="muted">${status.mediaIds.length} attachment${status.mediaIds.length === 1 ? '' : 's'}</p>` : ''}
</article>`;
}

const ACTION_LABELS: Record<AccountActionType, string> = {
  none: 'Warn',
  sensitive: 'Mark as sensitive',
  disable: 'Freeze login',
  silence: 'Limit',
  suspend: 'Suspend',
};

/** The warning preset choice of the action form (Mastodon's account action form), when presets exist. */
const presetChoice = (presets: WarningPreset[]) =>
  presets.length === 0
    ? ''
    : `<label for="warning-preset">Warning preset</label>
<select id="warning-preset" name="warning_preset_id">
<option value="">(none)</option>
${presets.map((p) => `<option value="${esc(p.id)}">${esc(presetLabel(p))}</option>`).join('\n')}
</select>`;

/**
 * The action form: one button per action (one click), with a warning preset and an optional text for the warning
 * (the strike's text is the preset's, then this one). `disable` is a local login's: it is not offered for a remote
 * account. `extra` carries the report the action resolves.
 */
export function actionForm(target: Account, action: string, csrf: string, presets: WarningPreset[], extra: Record<string, string> = {}, submitNote = ''): string {
  const types = ACCOUNT_ACTIONS.filter((type) => type !== 'disable' || target.domain === null);
  return `<form method="post" action="${esc(action)}">
${csrfField(csrf)}
<input type="hidden" name="operation" value="action">
${Object.entries(extra).map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`).join('\n')}
${presetChoice(presets)}
<label for="action-text">Text of the warning (optional)</label>
<textarea id="action-text" name="text" rows="3" maxlength="5000"></textarea>
${submitNote ? `<p class="muted">${esc(submitNote)}</p>` : ''}
<div class="actions">
${types.map((type) => `<button type="submit" name="type" value="${esc(type)}" class="${type === 'suspend' ? 'danger' : 'secondary'}">${esc(ACTION_LABELS[type])}</button>`).join('\n')}
</div>
</form>`;
}

/**
 * The preset the action form chose: undefined for none; `false` for a value that is no preset id (the page answers
 * 404, as for an id no preset has).
 */
export const chosenPreset = (value: unknown): string | undefined | false => {
  if (value === undefined || value === '') return undefined;
  return canonicalId(value) ?? false;
};
