// Which scopes an OAuth request may ask for, and how the approval page names them.
import type { App } from '../db/apps';
import { isKnownScope, parseScopes, withinScopes } from '../http/scopes';

/**
 * The scopes a token or code request asks for (`read` when none), or undefined
 * when one is unknown or beyond what the application registered. A narrower
 * scope than a registered one is allowed (`read:statuses` under `read`).
 */
export function requestedScopes(value: string | string[] | undefined, app: App): string[] | undefined {
  const scopes = parseScopes(value);
  if (scopes.length === 0 || !scopes.every(isKnownScope)) return undefined;
  return withinScopes(scopes, app.scopes) ? scopes : undefined;
}

const WORDS: Record<string, string> = {
  read: 'Read all of your account’s data',
  write: 'Change all of your account’s data',
  follow: 'Change your follows, blocks and mutes',
  push: 'Receive your push notifications',
  profile: 'Read only your account’s profile information',
  'admin:read': 'Read all data on the server (administrator)',
  'admin:write': 'Moderate all data on the server (administrator)',
  'read:accounts': 'See account information',
  'read:blocks': 'See your blocks',
  'read:bookmarks': 'See your bookmarks',
  'read:favourites': 'See your favourites',
  'read:filters': 'See your filters',
  'read:follows': 'See your follows',
  'read:lists': 'See your lists',
  'read:mutes': 'See your mutes',
  'read:notifications': 'See your notifications',
  'read:search': 'Search on your behalf',
  'read:statuses': 'See all posts',
  'write:accounts': 'Change your profile',
  'write:blocks': 'Block accounts and domains',
  'write:bookmarks': 'Bookmark posts',
  'write:conversations': 'Mute and delete conversations',
  'write:favourites': 'Favourite posts',
  'write:filters': 'Create filters',
  'write:follows': 'Follow people',
  'write:lists': 'Create and change lists',
  'write:media': 'Upload media files',
  'write:mutes': 'Mute people and conversations',
  'write:notifications': 'Clear your notifications',
  'write:reports': 'Report other people',
  'write:statuses': 'Publish posts',
  'admin:read:accounts': 'Read sensitive information of all accounts (administrator)',
  'admin:read:reports': 'Read sensitive information of all reports and reported accounts (administrator)',
  'admin:write:accounts': 'Moderate accounts (administrator)',
  'admin:write:reports': 'Moderate reports (administrator)',
  'admin:read:domain_allows': 'Read sensitive information of all domain allows (administrator)',
  'admin:read:domain_blocks': 'Read sensitive information of all domain blocks (administrator)',
  'admin:read:ip_blocks': 'Read sensitive information of all IP blocks (administrator)',
  'admin:read:email_domain_blocks': 'Read sensitive information of all email domain blocks (administrator)',
  'admin:read:canonical_email_blocks': 'Read sensitive information of all canonical email blocks (administrator)',
  'admin:write:domain_allows': 'Perform moderation actions on domain allows (administrator)',
  'admin:write:domain_blocks': 'Perform moderation actions on domain blocks (administrator)',
  'admin:write:ip_blocks': 'Perform moderation actions on IP blocks (administrator)',
  'admin:write:email_domain_blocks': 'Perform moderation actions on email domain blocks (administrator)',
  'admin:write:canonical_email_blocks': 'Perform moderation actions on canonical email blocks (administrator)',
};

/** A human description of a scope for the approval page. */
export const describeScope = (scope: string): string => WORDS[scope] ?? scope;
