// Staff fixtures for the admin API tests: a user whose role is Admin or Moderator (lib/policy/roles.ts), with a
// token holding the admin scopes, and a plain user holding them too (the role, not the scope, refuses it).
import { setRole } from '../../lib/db/accounts';
import { roleNamed } from '../../lib/policy/roles';
import { aUser, type UserFixture } from './factories';

export const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];

/** A user with `role` (admin, moderator, owner) or none, and a token with the admin scopes. */
export async function aStaffUser(role: 'admin' | 'moderator' | 'owner' | null, scopes = ADMIN_SCOPES): Promise<UserFixture> {
  const user = await aUser({ scopes });
  if (role === null) return user;
  const found = roleNamed(role)!;
  const account = await setRole(user.account.id, found.id, role === 'owner');
  return { ...user, account: account ?? user.account };
}
