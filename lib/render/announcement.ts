// Announcement and Reaction entities (https://docs.joinmastodon.org/entities/Announcement/,
// /entities/Reaction/): an operator's announcement as one user sees it (`read`, each reaction's `me`), or as
// the streaming API sends it to everyone (no viewer: neither field, as Mastodon's serializer leaves them out).
import type { Announcement, AnnouncementMarks } from '../db/announcements';
import type { Emoji } from '../db/emojis';
import { mediaUrl } from '../media/storage';
import { emojisFor } from './emoji';
import { tagUrl } from './status';

export type AnnouncementViewer = { marks: AnnouncementMarks } | undefined;

/** One reaction: its count, whether the viewer made it, and the custom emoji's images when it is one of ours. */
export function renderReaction(name: string, count: number, opts: { me?: boolean; emojis: Map<string, Emoji> }) {
  const custom = opts.emojis.get(name);
  return {
    name,
    count,
    ...(opts.me !== undefined ? { me: opts.me } : {}),
    ...(custom ? { url: mediaUrl(custom.key), static_url: mediaUrl(custom.staticKey) } : {}),
  };
}

/** The reactions in the order their names were first used, without names nobody uses any more. */
export const reactionNames = (a: Announcement) =>
  Object.keys(a.reactionCounts)
    .filter((name) => (a.reactionCounts[name] ?? 0) > 0)
    .sort((x, y) => (a.reactionSince[x] ?? '').localeCompare(a.reactionSince[y] ?? '') || x.localeCompare(y));

export function renderAnnouncement(a: Announcement, viewer: AnnouncementViewer, emojis: Map<string, Emoji>) {
  const reacted = viewer?.marks.reacted.get(a.id);
  return {
    id: a.id,
    content: a.contentHtml,
    starts_at: a.startsAt,
    ends_at: a.endsAt,
    all_day: a.allDay,
    // Only published announcements are rendered; the creation time stands in for one published before it was recorded.
    published_at: a.publishedAt ?? a.createdAt,
    updated_at: a.updatedAt,
    ...(viewer ? { read: viewer.marks.read.has(a.id) } : {}),
    mentions: a.mentions.map((m) => ({ id: m.id, username: m.username, url: m.url, acct: m.acct })),
    statuses: a.statuses.map((s) => ({ id: s.id, url: s.url })),
    tags: a.tags.map((name) => ({ name, url: tagUrl(name) })),
    emojis: emojisFor([a.text], emojis),
    reactions: reactionNames(a).map((name) =>
      renderReaction(name, a.reactionCounts[name] ?? 0, { me: viewer ? (reacted?.has(name) ?? false) : undefined, emojis }),
    ),
  };
}
