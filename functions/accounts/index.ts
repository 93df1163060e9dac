// GET /api/v1/accounts?id[]= (https://docs.joinmastodon.org/methods/accounts/#index): several accounts at once
// (Mastodon 4.3), in the order asked. An id of no account, or of one not shown (not yet approved), is passed over,
// as Mastodon's; a suspended account is answered as GET /api/v1/accounts/:id answers it. More than 40 ids is 422,
// as Mastodon's limit.
import { z } from 'zod';
import { accountsByIds } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { isId } from '../../lib/ids';
import { isVisible } from '../../lib/policy/accounts';
import { renderAccount } from '../../lib/render/account';
import { oneOrMany } from '../../lib/schema';

/** Mastodon's DEFAULT_ACCOUNTS_LIMIT, the most ids one request may name. */
export const MAX_ACCOUNT_IDS = 40;

const idValue = z.string({ invalid_type_error: 'must be a string' }).max(40, 'is too long');

export const schema = z.object({
  id: oneOrMany(z.array(idValue, { invalid_type_error: 'must be a list of ids' }).max(MAX_ACCOUNT_IDS, `has too many ids (maximum is ${MAX_ACCOUNT_IDS})`)).optional(),
});

export async function run(input: z.infer<typeof schema>) {
  const ids = [...new Set(input.id ?? [])].filter(isId);
  if (ids.length === 0) return [];
  const found = await accountsByIds(ids);
  return ids.flatMap((id) => {
    const account = found.get(id);
    return account && isVisible(account) ? [renderAccount(account)] : [];
  });
}

// A token is optional; when one is sent it must be valid and hold read:accounts (Mastodon's authorize_if_got_token!).
export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema });
