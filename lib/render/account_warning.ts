// AccountWarning (https://docs.joinmastodon.org/entities/AccountWarning/) and Appeal
// (https://docs.joinmastodon.org/entities/Appeal/): a strike as its account and moderators see it.
import type { Account } from '../db/accounts';
import type { Strike } from '../db/strikes';
import { renderAccount } from './account';

export function renderAccountWarning(strike: Strike, target: Account) {
  return {
    id: strike.id,
    action: strike.action,
    text: strike.text,
    status_ids: strike.statusIds,
    target_account: renderAccount(target),
    appeal: strike.appeal ? { text: strike.appeal.text, state: strike.appeal.state } : null,
    created_at: strike.createdAt,
  };
}
