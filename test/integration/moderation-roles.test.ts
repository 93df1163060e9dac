// Roles and the rules every moderation path shares: Mastodon's permission flags and default roles
// (lib/policy/roles.ts), `role`/`roles` on accounts, the `permission` option of http() (403 with Mastodon's
// text), the outrank rule of lib/moderation/actions.ts and the audit log, a suspended login refused, and the
// CLI's `accounts role`.
import { handler as showAccount } from '../../functions/accounts/show';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { main } from '../../lib/admin/cli';
import { accountById, setRole, staffMembers, type Account } from '../../lib/db/accounts';
import { auditLogPage } from '../../lib/db/audit_log';
import { http } from '../../lib/http';
import { reverseAccountAction, takeAccountAction } from '../../lib/moderation/actions';
import { can, EVERYONE, outranks, PERMISSIONS, roleOf, ROLES } from '../../lib/policy/roles';
import { aUser, aRemoteAccount, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const role = (name: string) => ROLES.find((r) => r.name === name)!;

async function aStaff(name: 'Moderator' | 'Admin' | 'Owner', scopes = ['read', 'write', 'admin:read', 'admin:write']): Promise<UserFixture> {
  const user = await aUser({ scopes });
  const r = role(name);
  const account = await setRole(user.account.id, r.id, name === 'Owner');
  return { ...user, account: account! };
}

const cli = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.filter((line) => !line.startsWith('Stage ')).join('\n') };
};

describe('the role model', () => {
  it("has Mastodon's flags and default roles, ordered Moderator < Admin < Owner", () => {
    expect(PERMISSIONS).toMatchObject({ administrator: 1, manage_reports: 16, manage_users: 1024, delete_user_data: 1 << 19 });
    const [moderator, admin, owner] = ['Moderator', 'Admin', 'Owner'].map(role);
    expect(moderator!.position).toBeLessThan(admin!.position);
    expect(admin!.position).toBeLessThan(owner!.position);
    const as = (roleId: string | null) => ({ roleId, admin: false, domain: null });
    expect(can(as('1'), 'manage_reports')).toBe(true);
    expect(can(as('1'), 'manage_federation')).toBe(false);
    expect(can(as('2'), 'manage_federation')).toBe(true);
    expect(can(as('2'), 'administrator')).toBe(false);
    // The administrator flag holds every permission.
    expect(can(as('3'), 'view_devops')).toBe(true);
    expect(can(as(null), 'manage_reports')).toBe(false);
    // An account made with --admin before roles existed is the Owner; a remote account never has a role.
    expect(roleOf({ roleId: null, admin: true, domain: null }).name).toBe('Owner');
    expect(roleOf({ roleId: '3', admin: true, domain: 'elsewhere.example' })).toBe(EVERYONE);
  });
});

describe('role and roles on accounts', () => {
  it('shows the full role on the credential account and the highlighted role on the profile', async () => {
    const moderator = await aStaff('Moderator');
    const plain = await aUser();
    const own = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: moderator.token });
    expect(own.status).toBe(200);
    expect(own.body.role).toEqual({ id: '1', name: 'Moderator', permissions: String(role('Moderator').permissions), color: '', highlighted: true });
    const seen = await call(showAccount, { path: `/api/v1/accounts/${moderator.account.id}`, pathParameters: { id: moderator.account.id }, token: plain.token });
    expect(seen.body.roles).toEqual([{ id: '1', name: 'Moderator', color: '' }]);
    expect(seen.body.role).toBeUndefined();
    const mine = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: plain.token });
    expect(mine.body.role).toMatchObject({ id: '-99', name: '', permissions: String(PERMISSIONS.invite_users), highlighted: false });
    expect(mine.body.roles).toEqual([]);
  });
});

describe('the permission of an admin endpoint', () => {
  const endpoint = http(async () => ({ ok: true }), { auth: 'user', scopes: ['admin:read:reports'], permission: 'manage_reports' });
  const ask = (token: string) => call(endpoint, { path: '/api/v1/admin/reports', token });

  it('admits a role holding it, with the scope', async () => {
    expect((await ask((await aStaff('Moderator')).token)).status).toBe(200);
    expect((await ask((await aStaff('Owner')).token)).status).toBe(200);
  });

  it("answers 403 with Mastodon's text to a token with the scope whose account has no such permission", async () => {
    const user = await aUser({ scopes: ['read', 'admin:read'] });
    const res = await ask(user.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is not allowed' });
  });

  it('answers 403 outside the scopes to a moderator whose token lacks them', async () => {
    const moderator = await aStaff('Moderator', ['read', 'write']);
    const res = await ask(moderator.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
  });
});

describe('acting on an account', () => {
  const entriesFor = async (target: Account) => (await auditLogPage({ limit: 200 })).filter((e) => e.targetId === target.id);

  it('silences once, records each action in the audit log, and lifts it', async () => {
    const moderator = await aStaff('Moderator');
    const target = (await aUser()).account;
    const silenced = await takeAccountAction(moderator.account, target, { type: 'silence' });
    expect(silenced.silencedAt).not.toBeNull();
    const again = await takeAccountAction(moderator.account, silenced, { type: 'silence' });
    expect(again.silencedAt).toBe(silenced.silencedAt);
    const lifted = await reverseAccountAction(moderator.account, again, 'unsilence');
    expect(lifted.silencedAt).toBeNull();
    const entries = await entriesFor(target);
    expect(entries.map((e) => e.action).sort()).toEqual(['silence', 'silence', 'unsilence']);
    expect(entries[0]).toMatchObject({ accountId: moderator.account.id, targetType: 'Account', humanIdentifier: target.username });
  });

  it('refuses to act on oneself, on an equal or higher role, or without manage_users; nothing is written', async () => {
    const moderator = await aStaff('Moderator');
    const otherModerator = await aStaff('Moderator');
    const admin = await aStaff('Admin');
    const plain = await aUser();
    for (const [actor, target] of [
      [moderator.account, moderator.account],
      [moderator.account, otherModerator.account],
      [moderator.account, admin.account],
      [plain.account, (await aUser()).account],
    ] as const) {
      await expect(takeAccountAction(actor, target, { type: 'suspend' })).rejects.toMatchObject({ status: 403 });
      expect((await accountById(target.id))?.suspendedAt).toBeNull();
      expect(await entriesFor(target)).toEqual([]);
    }
    expect(outranks(admin.account, moderator.account)).toBe(true);
  });

  it('disables only a local login', async () => {
    const admin = await aStaff('Admin');
    const remote = (await aRemoteAccount({ domain: 'roles.example', keyless: true })).account;
    await expect(takeAccountAction(admin.account, remote, { type: 'disable' })).rejects.toMatchObject({ status: 403 });
    const silenced = await takeAccountAction(admin.account, remote, { type: 'silence' });
    expect(silenced.silencedAt).not.toBeNull();
  });

  it("refuses a suspended account's token as a disabled login's, and admits it again once unsuspended", async () => {
    const admin = await aStaff('Admin');
    const target = await aUser();
    const suspended = await takeAccountAction(admin.account, target.account, { type: 'suspend' });
    const refused = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: target.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Your login is currently disabled' });
    await reverseAccountAction(admin.account, suspended, 'unsuspend');
    expect((await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: target.token })).status).toBe(200);
  });
});

describe('npm run admin -- accounts role', () => {
  it('grants a role by name, lists staff, and takes it away', async () => {
    const user = await aUser();
    const granted = await cli('accounts', 'role', user.account.username, 'moderator');
    expect(granted).toMatchObject({ code: 0, err: '' });
    expect(granted.out).toContain(`${user.account.username} is now Moderator`);
    expect((await accountById(user.account.id))?.roleId).toBe('1');
    expect(await staffMembers()).toContainEqual({ accountId: user.account.id, roleId: '1' });
    const own = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: user.token });
    expect(own.body.role.name).toBe('Moderator');
    const removed = await cli('accounts', 'role', user.account.username, 'none');
    expect(removed.out).toContain('has no role now');
    expect((await accountById(user.account.id))?.roleId).toBeNull();
    expect((await staffMembers()).map((m) => m.accountId)).not.toContain(user.account.id);
  });

  it('refuses an unknown role or account, changing nothing', async () => {
    const user = await aUser();
    const unknown = await cli('accounts', 'role', user.account.username, 'janitor');
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toContain('No role named janitor');
    expect((await accountById(user.account.id))?.roleId).toBeNull();
    const nobody = await cli('accounts', 'role', 'nobody_at_all_here', 'moderator');
    expect(nobody.code).not.toBe(0);
    expect(nobody.err).toContain('No local account named nobody_at_all_here');
  });
});
