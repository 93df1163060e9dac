// Followed hashtags (Mastodon 4's TagsController and FollowedTagsController): the Tag entity of a name given
// in a URL, following and unfollowing it (both idempotent, both answering the Tag), and the viewer's
// followed tags. What following does to the home feed is the fan-out's (lib/timelines/fanout.ts).
import type { Account } from '../db/accounts';
import { deleteTagFollow, followedTagsPage, putTagFollow, tagFacts } from '../db/tag_follows';
import { nowIso } from '../db/table';
import { notFound } from '../errors';
import { newId } from '../ids';
import type { Page, PageEdges } from '../paging';
import { renderTag, type RenderedTag } from '../render/tag';
import { normalizeTag } from '../text/tags';
import { featureNamedTag, hashtagName, unfeatureNamedTag } from './featured';
import { featuredTagsOf } from '../db/featured_tags';
import { tagsWithHistory } from './trends';

/** Longest tag name a URL may name (the featured-tag limit): keys and answers stay small. */
export const MAX_TAG_NAME = 100;

type NamedTag = { tag: string; name: string };

/**
 * The tag a URL names, or 404 as Mastodon answers a name that is not a hashtag (`#`, spaces, digits only,
 * punctuation, over MAX_TAG_NAME characters). The name must be bare: no `#`, no surrounding space.
 */
export function tagOfPath(raw: string): NamedTag {
  const name = raw.length <= MAX_TAG_NAME && raw === raw.trim() && !raw.startsWith('#') ? hashtagName(raw) : undefined;
  if (!name) throw notFound();
  return { tag: normalizeTag(name), name };
}

type Facts = Awaited<ReturnType<typeof tagFacts>>;

/**
 * The Tag entity: displayed as first used (or followed) here, else as asked; `following` and `featuring` only
 * for a user. Two reads in parallel: the name, follow and featured tag (unless `known`), and the week's history.
 */
async function renderOne(t: NamedTag, viewer: Account | undefined, known?: Facts | Promise<Facts>): Promise<RenderedTag> {
  const [facts, [asked]] = await Promise.all([known ?? tagFacts(t.tag, viewer?.id), tagsWithHistory([t])]);
  return renderTag({ tag: t.tag, name: facts.name ?? t.name }, asked!.history, viewer ? facts : undefined);
}

/** GET /api/v1/tags/:name. A tag never used answers too, with a week of zero use (Mastodon renders an unsaved Tag). */
export const showTag = (raw: string, viewer: Account | undefined) => renderOne(tagOfPath(raw), viewer);

/** POST /api/v1/tags/:name/follow: following a tag already followed changes nothing. */
export async function followTag(viewer: Account, raw: string): Promise<RenderedTag> {
  const t = tagOfPath(raw);
  const facts = await tagFacts(t.tag, viewer.id);
  const name = facts.name ?? t.name;
  // The follow keeps the tag's display name (or gives it this one), so the list shows it as the Tag does.
  // A follow made meanwhile by another request answers `already-following`: followed either way.
  if (!facts.following) await putTagFollow({ id: newId(), accountId: viewer.id, tag: t.tag, name, createdAt: nowIso() });
  return renderOne(t, viewer, { ...facts, name, following: true });
}

/** POST /api/v1/tags/:name/unfollow: unfollowing a tag not followed changes nothing. */
export async function unfollowTag(viewer: Account, raw: string): Promise<RenderedTag> {
  const t = tagOfPath(raw);
  const removed = await deleteTagFollow(viewer.id, t.tag);
  // Followed again between the read and the delete: that newer follow is the one to remove.
  if ('failed' in removed && removed.failed === 'changed-meanwhile') await deleteTagFollow(viewer.id, t.tag);
  return renderOne(t, viewer, tagFacts(t.tag, viewer.id).then((facts) => ({ ...facts, following: false })));
}

/**
 * POST /api/v1/tags/:name/feature (Mastodon 4.4): the tag featured on the viewer's profile, under the display
 * name the Tag has (as Mastodon's FeaturedTag takes the Tag's); featuring it again changes nothing.
 */
export async function featureTagOfPath(viewer: Account, raw: string): Promise<RenderedTag> {
  const t = tagOfPath(raw);
  const facts = await tagFacts(t.tag, viewer.id);
  const name = facts.name ?? t.name;
  if (!facts.featuring) await featureNamedTag(viewer, { tag: t.tag, name });
  return renderOne(t, viewer, { ...facts, name, featuring: true });
}

/** POST /api/v1/tags/:name/unfeature (Mastodon 4.4): unfeaturing a tag not featured changes nothing. */
export async function unfeatureTagOfPath(viewer: Account, raw: string): Promise<RenderedTag> {
  const t = tagOfPath(raw);
  await unfeatureNamedTag(viewer, t.tag);
  return renderOne(t, viewer, tagFacts(t.tag, viewer.id).then((facts) => ({ ...facts, featuring: false })));
}

/** GET /api/v1/followed_tags: a page of the viewer's followed tags, newest follow first, paged by the follow's id. */
export async function followedTags(viewer: Account, page: Page): Promise<PageEdges & { tags: RenderedTag[] }> {
  // The viewer's featured tags (at most MAX_FEATURED_TAGS, one query) tell `featuring` for the whole page.
  const [follows, featured] = await Promise.all([followedTagsPage(viewer.id, page), featuredTagsOf(viewer.id)]);
  const featuredTags = new Set(featured.map((f) => f.tag));
  const rendered = await tagsWithHistory(follows.map((f) => ({ tag: f.tag, name: f.name })));
  return {
    tags: rendered.map((tag, i) => ({ ...tag, following: true, featuring: featuredTags.has(follows[i]!.tag) })),
    newest: follows[0]?.id,
    oldest: follows.at(-1)?.id,
  };
}
