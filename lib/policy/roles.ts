// Who may moderate what: Mastodon's role model (UserRole). A role is a set of
// permission flags and a position; an account has at most one role, and without
// one it has the `everyone` role. A role acts only on accounts whose role it
// outranks (a strictly higher position), and never on its own account.
import type { Account } from '../db/accounts';

/** Mastodon's permission flags, by bit (https://docs.joinmastodon.org/entities/Role/#permission-flags). */
export const PERMISSIONS = {
  administrator: 1 << 0,
  view_devops: 1 << 1,
  view_audit_log: 1 << 2,
  view_dashboard: 1 << 3,
  manage_reports: 1 << 4,
  manage_federation: 1 << 5,
  manage_settings: 1 << 6,
  manage_blocks: 1 << 7,
  manage_taxonomies: 1 << 8,
  manage_appeals: 1 << 9,
  manage_users: 1 << 10,
  manage_invites: 1 << 11,
  manage_rules: 1 << 12,
  manage_announcements: 1 << 13,
  manage_custom_emojis: 1 << 14,
  manage_webhooks: 1 << 15,
  invite_users: 1 << 16,
  manage_roles: 1 << 17,
  manage_user_access: 1 << 18,
  delete_user_data: 1 << 19,
} as const;
export type Permission = keyof typeof PERMISSIONS;

export type Role = {
  id: string;
  name: string;
  color: string;
  /** Higher outranks lower; `everyone` is -1. */
  position: number;
  permissions: number;
  /** Shown on the account's profile (`roles` of Account). */
  highlighted: boolean;
};

const flags = (...names: Permission[]) => names.reduce((sum, name) => sum | PERMISSIONS[name], 0);

/** The role of every account without one (Mastodon's id -99). */
export const EVERYONE: Role = { id: '-99', name: '', color: '', position: -1, permissions: flags('invite_users'), highlighted: false };

const MODERATOR_FLAGS: Permission[] = ['view_dashboard', 'view_audit_log', 'manage_users', 'manage_reports', 'manage_taxonomies'];
const ADMIN_FLAGS: Permission[] = [
  ...MODERATOR_FLAGS,
  'manage_user_access', 'delete_user_data', 'manage_federation', 'manage_settings', 'manage_blocks', 'manage_appeals',
  'manage_invites', 'manage_rules', 'manage_announcements', 'manage_custom_emojis', 'manage_webhooks', 'manage_roles',
];

/** The default roles, as Mastodon seeds them. */
export const ROLES: readonly Role[] = [
  { id: '1', name: 'Moderator', color: '', position: 10, permissions: flags(...MODERATOR_FLAGS), highlighted: true },
  { id: '2', name: 'Admin', color: '', position: 100, permissions: flags(...ADMIN_FLAGS), highlighted: true },
  { id: '3', name: 'Owner', color: '', position: 1000, permissions: flags('administrator'), highlighted: true },
];

/** A role by its id or (case-insensitive) name. */
export const roleNamed = (idOrName: string): Role | undefined => {
  const wanted = idOrName.trim().toLowerCase();
  return ROLES.find((r) => r.id === wanted || r.name.toLowerCase() === wanted);
};

export const roleById = (id: string | null | undefined): Role | undefined => (id ? ROLES.find((r) => r.id === id) : undefined);

/** The account's role: its own, else Owner for an account made with `--admin` before roles existed, else everyone. */
export const roleOf = (account: Pick<Account, 'roleId' | 'admin' | 'domain'>): Role => {
  if (account.domain !== null) return EVERYONE;
  return roleById(account.roleId) ?? (account.admin ? ROLES[2]! : EVERYONE);
};

/** Does the role hold the permission (the administrator flag holds them all)? */
export const roleCan = (role: Role, permission: Permission): boolean =>
  (role.permissions & PERMISSIONS.administrator) !== 0 || (role.permissions & PERMISSIONS[permission]) !== 0;

export const can = (account: Pick<Account, 'roleId' | 'admin' | 'domain'>, permission: Permission): boolean => roleCan(roleOf(account), permission);

/** Any role but everyone: the account is staff. */
export const isStaff = (account: Pick<Account, 'roleId' | 'admin' | 'domain'>): boolean => roleOf(account).id !== EVERYONE.id;

/** May `actor` act on `target`: not itself, and its role strictly above the target's (Mastodon's UserRole#overrides?). */
export const outranks = (actor: Account, target: Account): boolean =>
  actor.id !== target.id && roleOf(actor).position > roleOf(target).position;

/** The names of the flags a role holds, for the pages and the CLI. */
export const permissionNames = (role: Role): Permission[] =>
  (Object.keys(PERMISSIONS) as Permission[]).filter((name) => (role.permissions & PERMISSIONS[name]) !== 0);
