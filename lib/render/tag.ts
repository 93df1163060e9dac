// Mastodon's Tag entity (https://docs.joinmastodon.org/entities/Tag/): name as displayed, its page here,
// a week of usage history, and `following` only when a user asks (REST::TagSerializer leaves it out for
// anonymous requests). Shared by trends, search, featured tag suggestions and the followed-tag endpoints.
import { config } from '../config';
import { tagIdOf } from '../db/tags';

/** One day of a tag's usage, numbers as strings (Mastodon's TagHistory). */
export type History = { day: string; uses: string; accounts: string }[];

/** A tag's id (derived from its normalised name: lib/db/tags.ts). */
export const tagId = tagIdOf;

export type RenderedTag = { id: string; name: string; url: string; history: History; following?: boolean };

/** `tag`: the normalised name; `name`: how it is displayed (as first used here). */
export const renderTag = (t: { tag: string; name: string }, history: History, following?: boolean): RenderedTag => ({
  id: tagId(t.tag),
  name: t.name,
  url: `${config.baseUrl}/tags/${encodeURIComponent(t.name)}`,
  history,
  ...(following === undefined ? {} : { following }),
});
