// GET /api/v2/admin/accounts (https://docs.joinmastodon.org/methods/admin/accounts/#v2)
import { z } from 'zod';
import { isIP } from 'node:net';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { listAccounts, type AccountListFilter } from '../../lib/moderation/account_list';
import { pageQuery } from '../../lib/paging';
import { ROLES } from '../../lib/policy/roles';
import { renderAdminAccount } from '../../lib/render/admin_account';
import { absent, oneOrMany, text } from '../../lib/schema';

const word = absent(text(500).transform((s) => s.trim()));

export const schema = pageQuery(100, 200).extend({
  origin: absent(z.enum(['local', 'remote'], { errorMap: () => ({ message: 'must be local or remote' }) })),
  status: absent(z.enum(['active', 'pending', 'disabled', 'silenced', 'suspended', 'sensitized'], { errorMap: () => ({ message: 'must be active, pending, disabled, silenced, suspended or sensitized' }) })),
  permissions: absent(z.enum(['staff'], { errorMap: () => ({ message: 'must be staff' }) })),
  role_ids: absent(oneOrMany(z.array(z.string().regex(/^-?\d{1,20}$/, 'must be role ids')).max(20))),
  invited_by: absent(z.string().regex(/^\d{1,20}$/, 'must be an id')),
  username: word, display_name: word, by_domain: word, email: word,
  ip: absent(z.string().trim().refine((s) => isIP(s) !== 0, 'must be an IP address')),
});

export function filterOf(input: z.infer<typeof schema>): AccountListFilter {
  const states: AccountListFilter['states'] = [];
  if (input.status && input.status !== 'active') states.push(input.status);
  if (input.permissions === 'staff' || input.role_ids) states.push('staff');
  return {
    origin: input.origin,
    states,
    active: input.status === 'active',
    roleIds: input.role_ids,
    // No role of those ids exists, or the filter names invitations, which this server does not make: nothing matches.
    none: (input.role_ids !== undefined && !input.role_ids.some((id) => ROLES.some((r) => r.id === id))) || input.invited_by !== undefined,
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
