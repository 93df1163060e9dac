// OpenID Connect userinfo (Mastodon 4.4's OAuth::UserinfoController and OAuthUserinfoSerializer): the standard
// claims of the token's user. `sub` is the actor URI, unique across servers where an account id is not.
import type { Account } from '../db/accounts';
import { apUrls } from '../federation/urls';
import { renderAccount } from '../render/account';

export type Userinfo = { iss: string; sub: string; name: string; preferred_username: string; profile: string; picture: string };

export function userinfo(account: Account, issuer: string): Userinfo {
  // The profile page and the picture as the Account entity gives them (the default avatar when there is none).
  const shown = renderAccount(account);
  return {
    iss: issuer,
    sub: apUrls.actor(account.username),
    name: shown.display_name,
    preferred_username: account.username,
    profile: shown.url,
    picture: shown.avatar,
  };
}
