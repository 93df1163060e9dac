// What a status's visibility allows, as named predicates: the only place that
// compares `visibility` with a value. Mastodon's four levels:
// public (anyone, listed everywhere), unlisted (anyone, never listed in public
// places), private (followers and mentioned accounts), direct (mentioned accounts).
// Callers ask these questions; lib/db is told the answers.
import type { Account } from '../db/accounts';
import type { TagUseReach } from '../db/tags';
import type { Status, Visibility } from '../db/statuses';

type Visible = Pick<Status, 'visibility'>;

/** Listed in public places: public and hashtag timelines, the shared search index, trends, public streams. */
export const isPublic = (s: Visible): boolean => s.visibility === 'public';

/** Anyone may read it, signed in or not (public and unlisted). */
export const openToAnyone = (s: Visible): boolean => s.visibility === 'public' || s.visibility === 'unlisted';

/** Followers-only ("private"): the author's followers and the accounts it mentions. */
export const visibleToFollowers = (s: Visible): boolean => s.visibility === 'private';

/** A direct message: only the author and the accounts it mentions; never on lists, public places or followers' homes. */
export const isDirect = (s: Visible): boolean => s.visibility === 'direct';

/**
 * Does the status enter the public and hashtag timelines (and so their streams)?
 * Public visibility only, no reblogs, and no replies to other accounts (Mastodon's
 * public timelines leave those out).
 */
export const entersPublicTimelines = (s: Pick<Status, 'visibility' | 'reblogOfId' | 'inReplyToAccountId' | 'accountId'>): boolean =>
  isPublic(s) && !s.reblogOfId && !(s.inReplyToAccountId && s.inReplyToAccountId !== s.accountId);

/** Is the status indexed for everyone's search (else only in its author's own index)? */
export const searchableByAnyone = isPublic;

/**
 * How far a status's hashtags count: a direct message not at all, a private one
 * only in its author's recent use, an unlisted one also in the author's featured
 * tags, a public one in trends too.
 */
export function tagUseReach(s: Visible): TagUseReach {
  switch (s.visibility) {
    case 'direct':
      return 'none';
    case 'private':
      return 'author';
    case 'unlisted':
      return 'featured';
    case 'public':
      return 'trending';
  }
}

/** StatusPolicy#reblog?: never a direct message, a private status only by its author. */
export const mayReblog = (viewer: Pick<Account, 'id'>, original: Pick<Status, 'visibility' | 'accountId'>): boolean =>
  !isDirect(original) && !(visibleToFollowers(original) && original.accountId !== viewer.id);

/** A reblog of a private (or direct) status keeps the original's visibility; others may choose. */
export const reblogKeepsVisibility = (original: Visible): boolean => visibleToFollowers(original) || isDirect(original);

/**
 * What a deleted status's `delete` event is described as: public and hashtag
 * streams only heard of it when it entered the public timelines, so a public
 * status that did not is described as unlisted.
 */
export const deletedVisibility = (s: Parameters<typeof entersPublicTimelines>[0]): Visibility =>
  isPublic(s) && !entersPublicTimelines(s) ? 'unlisted' : s.visibility;
