// GET /api/v1/admin/accounts (https://docs.joinmastodon.org/methods/admin/accounts/#v1)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { listAccounts, type AccountListFilter } from '../../lib/moderation/account_list';
import type { StateFacet } from '../../lib/db/admin_accounts';
import { pageQuery } from '../../lib/paging';
import { renderAdminAccount } from '../../lib/render/admin_account';
import { absent, booleanish, text } from '../../lib/schema';
import { isIP } from 'node:net';

const flag = absent(booleanish);
const word = absent(text(500).transform((s) => s.trim()));

/** Mastodon's Api::V1::Admin::AccountsController: LIMIT 100. */
export const schema = pageQuery(100, 200).extend({
  local: flag, remote: flag, active: flag, pending: flag, disabled: flag, silenced: flag, suspended: flag, sensitized: flag, staff: flag,
  username: word, display_name: word, by_domain: word, email: word,
  ip: absent(z.string().trim().refine((s) => isIP(s) !== 0, 'must be an IP address')),
});

const STATES: StateFacet[] = ['pending', 'disabled', 'silenced', 'suspended', 'sensitized', 'staff'];

export function filterOf(input: z.infer<typeof schema>): AccountListFilter {
  return {
    ...(input.local && !input.remote ? { origin: 'local' as const } : {}),
    ...(input.remote && !input.local ? { origin: 'remote' as const } : {}),
    // Asked for both local and remote: Mastodon applies both scopes, and no account is both.
    none: input.local === true && input.remote === true,
    states: STATES.filter((s) => input[s] === true),
    active: input.active,
    username: input.username,
    displayName: input.display_name,
    byDomain: input.by_domain,
    email: input.email,
    ip: input.ip,
  };
}

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await listAccounts(filterOf(input), input, input.limit);
  return pageReply(ctx, page.edges, page.accounts.map(renderAdminAccount));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:accounts'], permission: 'manage_users', schema });
