// Profile entity (https://docs.joinmastodon.org/entities/Profile/), Mastodon 4.6's REST::ProfileSerializer: the
// owner's own profile with the values as written (the note and fields unrendered), for GET and PATCH
// /api/v1/profile. Unlike the Account entity, an image that was never set is null, not the default picture.
import type { Account } from '../db/accounts';
import { mediaUrl } from '../media/storage';
import { sourceFields } from './account';

/** Our copy, else (a remote account's image not copied yet) the URL its server gave; null when there is none. */
const imageUrl = (key: string | null, remoteUrl: string | null): string | null => (key ? mediaUrl(key) : remoteUrl);

/** `featuredTags`: the account's FeaturedTag entities, rendered by lib/tags/featured.ts (which reads their counters). */
export function renderProfile<T>(account: Account, featuredTags: T[]) {
  const avatar = imageUrl(account.avatarKey, account.avatarRemoteUrl);
  const header = imageUrl(account.headerKey, account.headerRemoteUrl);
  return {
    id: account.id,
    display_name: account.displayName,
    note: account.note,
    fields: sourceFields(account),
    avatar,
    avatar_static: avatar,
    avatar_description: account.avatarDescription,
    header,
    header_static: header,
    header_description: account.headerDescription,
    locked: account.locked,
    bot: account.bot,
    hide_collections: account.hideCollections,
    discoverable: account.discoverable,
    indexable: account.indexable,
    show_media: account.showMedia,
    show_media_replies: account.showMediaReplies,
    show_featured: account.showFeatured,
    attribution_domains: account.attributionDomains,
    featured_tags: featuredTags,
  };
}
