// Mastodon's OAuth scopes and their hierarchy: `read` covers every `read:*`,
// `write` every `write:*`, and the legacy `follow` covers the follow, block and mute scopes.
export const SCOPES = [
  'read', 'write', 'follow', 'push', 'admin:read', 'admin:write',
  // Mastodon 4.3's OpenID Connect-style scope: the own profile only (GET /oauth/userinfo asks it alone).
  'profile',
  'read:accounts', 'read:blocks', 'read:bookmarks', 'read:favourites', 'read:filters', 'read:follows',
  'read:lists', 'read:mutes', 'read:notifications', 'read:search', 'read:statuses',
  'write:accounts', 'write:blocks', 'write:bookmarks', 'write:conversations', 'write:favourites',
  'write:filters', 'write:follows', 'write:lists', 'write:media', 'write:mutes',
  'write:notifications', 'write:reports', 'write:statuses',
  // Mastodon 4.6's collections
  'read:collections', 'write:collections',
  'admin:read:accounts', 'admin:read:reports', 'admin:write:accounts', 'admin:write:reports',
  // blocks and allows (issue 26)
  'admin:read:domain_allows', 'admin:read:domain_blocks', 'admin:read:ip_blocks', 'admin:read:email_domain_blocks', 'admin:read:canonical_email_blocks',
  'admin:write:domain_allows', 'admin:write:domain_blocks', 'admin:write:ip_blocks', 'admin:write:email_domain_blocks', 'admin:write:canonical_email_blocks',
] as const;

const FOLLOW_COVERS = new Set([
  'read:blocks', 'write:blocks', 'read:follows', 'write:follows', 'read:mutes', 'write:mutes',
]);

export const isKnownScope = (scope: string) => (SCOPES as readonly string[]).includes(scope);

/** Splits a scope string on spaces or plus signs (query strings use `+`). */
export const parseScopes = (value: unknown, fallback = 'read'): string[] => {
  const raw = typeof value === 'string' && value.trim() !== '' ? value : Array.isArray(value) ? value.join(' ') : fallback;
  return [...new Set(raw.split(/[\s+]+/).filter(Boolean))];
};

/** Does a granted scope cover the required one? */
export const covers = (granted: string, required: string): boolean => {
  if (granted === required) return true;
  if (granted === 'follow' && FOLLOW_COVERS.has(required)) return true;
  const [top] = required.split(':');
  if (required.startsWith('admin:')) {
    const parts = required.split(':'); // admin:read:accounts is covered by admin:read
    return parts.length === 3 && granted === `${parts[0]}:${parts[1]}`;
  }
  return required.includes(':') && granted === top;
};

/** Does a token holding `granted` satisfy any of `acceptable`? */
export const satisfies = (granted: string[], acceptable: string[]): boolean =>
  acceptable.length === 0 || acceptable.some((need) => granted.some((have) => covers(have, need)));

/** Is every requested scope within what the application registered (hierarchy included)? */
export const withinScopes = (requested: string[], registered: string[]): boolean =>
  requested.every((r) => registered.some((g) => covers(g, r)));
