// Mastodon's Tag entity (https://docs.joinmastodon.org/entities/Tag/): name as displayed, its page here,
// a week of usage history, and `following` and `featuring` only when a user asks (REST::TagSerializer leaves
// them out for anonymous requests). Shared by trends, search, featured tag suggestions and the followed-tag endpoints.
import { config } from '../config';
import { tagIdOf } from '../db/tags';

/** One day of a tag's usage, numbers as strings (Mastodon's TagHistory). */
export type History = { day: string; uses: string; accounts: string }[];

/** A tag's id (derived from its normalised name: lib/db/tags.ts). */
export const tagId = tagIdOf;

export type RenderedTag = { id: string; name: string; url: string; history: History; following?: boolean; featuring?: boolean };

/** What a signed-in viewer is told of a tag (Mastodon 4.4's REST::TagSerializer: both or neither). */
export type TagViewerFacts = { following: boolean; featuring: boolean };

/** `tag`: the normalised name; `name`: how it is displayed (as first used here). */
export const renderTag = (t: { tag: string; name: string }, history: History, viewer?: TagViewerFacts): RenderedTag => ({
  id: tagId(t.tag),
  name: t.name,
  url: `${config.baseUrl}/tags/${encodeURIComponent(t.name)}`,
  history,
  ...(viewer === undefined ? {} : { following: viewer.following, featuring: viewer.featuring }),
});
