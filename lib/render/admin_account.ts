// Admin::Account (https://docs.joinmastodon.org/entities/Admin_Account/): what moderators see of an account,
// its login state included. Only the admin API renders it.
import type { Account } from '../db/accounts';
import { roleOf } from '../policy/roles';
import { renderAccount, renderRole } from './account';

export function renderAdminAccount(account: Account) {
  const local = account.domain === null;
  return {
    id: account.id,
    username: account.username,
    domain: account.domain,
    created_at: account.createdAt,
    email: local ? account.email ?? null : null,
    // The sign-up address is the one this server keeps (Mastodon lists every address a user signed in from).
    ip: local ? account.signUpIp : null,
    ips: local && account.signUpIp ? [{ ip: account.signUpIp, used_at: account.createdAt }] : [],
    locale: account.locale,
    invite_request: account.reason,
    role: renderRole(roleOf(account)),
    confirmed: local ? account.confirmedAt !== null : true,
    approved: account.approved,
    disabled: account.disabled,
    silenced: account.silencedAt !== null,
    suspended: account.suspendedAt !== null,
    sensitized: account.sensitizedAt !== null,
    account: renderAccount(account),
    created_by_application_id: local ? account.createdByClientId : null,
    invited_by_account_id: null as string | null,
  };
}

export type RenderedAdminAccount = ReturnType<typeof renderAdminAccount>;
