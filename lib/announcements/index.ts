// Announcements: what the operator publishes to every user (Mastodon's admin announcements), and what each
// user does with them (dismiss, react with an emoji). This is the users' side, called by functions/announcements/;
// the operator's (create, update, publish, delete; ./operator.ts) is called by the CLI
// (lib/admin/announcement_commands.ts).
//
// The text is rendered once, when written, as a status is: escaped, links, hashtags and mentions of known
// accounts linked (lib/text), so reading announcements resolves nothing, and carries none of that rendering.
import {
  MAX_REACTION_NAMES,
  addAnnouncementReaction,
  allAnnouncements,
  announcementById,
  announcementMarksOf,
  dismissAnnouncement,
  removeAnnouncementReaction,
  type Announcement,
  type AnnouncementMarks,
} from '../db/announcements';
import type { Account } from '../db/accounts';
import { emojisByShortcodes, type Emoji } from '../db/emojis';
import { notFound, unprocessable } from '../errors';
import { isId } from '../ids';
import { shortcodesIn } from '../render/emoji';

/** Shown to users: published, and not ended. */
export const isShown = (a: Announcement, now: Date = new Date()) => a.published && (a.endsAt === null || Date.parse(a.endsAt) > now.getTime());

/** Mastodon's order: by start, else publication, else creation, oldest first. */
const shownAt = (a: Announcement) => a.startsAt ?? a.publishedAt ?? a.createdAt;

/** What an announcement renders with: one account's marks, and the custom emoji its text and reactions use. */
export type AnnouncementView = { announcements: Announcement[]; marks: AnnouncementMarks; emojis: Map<string, Emoji> };

/**
 * The announcements a user sees, with their marks and the emoji they use: one Query of the announcements,
 * one BatchGet of the user's marks, one BatchGet of the custom emoji (when any is used). `withDismissed:
 * false` leaves out those the user dismissed (Mastodon before 3.1.3); by default all are listed with `read`.
 */
export async function announcementsFor(viewer: Account, opts: { withDismissed?: boolean } = {}, now: Date = new Date()): Promise<AnnouncementView> {
  const shown = (await allAnnouncements()).filter((a) => isShown(a, now)).sort((a, b) => shownAt(a).localeCompare(shownAt(b)) || a.id.localeCompare(b.id));
  const [marks, emojis] = await Promise.all([announcementMarksOf(viewer.id, shown), emojisOf(shown)]);
  const announcements = opts.withDismissed === false ? shown.filter((a) => !marks.read.has(a.id)) : shown;
  return { announcements, marks, emojis };
}

/** The custom emoji of some announcements: those their texts name, and the shortcodes they were reacted with. */
export async function emojisOf(announcements: Announcement[]): Promise<Map<string, Emoji>> {
  const shortcodes = [...new Set(announcements.flatMap((a) => [...shortcodesIn([a.text]), ...Object.keys(a.reactionCounts).filter(isShortcode)]))];
  return shortcodes.length > 0 ? emojisByShortcodes(shortcodes) : new Map();
}

const SHORTCODE = /^[a-zA-Z0-9_]{2,100}$/;
const isShortcode = (name: string) => SHORTCODE.test(name);
// A regular expression with the v flag is built at run time: the compiler's target predates it (Node 20 has it).
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
/** A unicode emoji as the Unicode Consortium recommends it, also written without its emoji presentation selector. */
const isUnicodeEmoji = (name: string) => name.length <= 32 && (RGI_EMOJI.test(name) || RGI_EMOJI.test(`${name}\uFE0F`));

const visibleAnnouncement = async (id: string): Promise<Announcement> => {
  const found = isId(id) ? await announcementById(id) : undefined;
  if (!found?.published) throw notFound();
  return found;
};

/** Marks an announcement read for the user (POST /api/v1/announcements/:id/dismiss); again is the same. */
export async function dismiss(viewer: Account, id: string): Promise<void> {
  if (!isId(id)) throw notFound();
  const result = await dismissAnnouncement(id, viewer.id);
  if ('failed' in result) throw notFound();
}

/**
 * Adds the user's reaction (PUT /api/v1/announcements/:id/reactions/:name): a unicode emoji, or the shortcode
 * of one of our custom emoji. The same reaction twice counts once. Answers the reaction's new count.
 */
export async function react(viewer: Account, id: string, name: string): Promise<{ announcement: Announcement; added: boolean }> {
  const announcement = await visibleAnnouncement(id);
  if (!isUnicodeEmoji(name)) {
    const custom = isShortcode(name) ? (await emojisByShortcodes([name])).get(name) : undefined;
    if (!custom) throw unprocessable('Validation failed: Name is not a recognized emoji');
  }
  const result = await addAnnouncementReaction(announcement.id, viewer.id, name);
  if ('failed' in result) {
    if (result.failed === 'reaction-limit') throw unprocessable(`Validation failed: Maximum number of different reactions reached (${MAX_REACTION_NAMES})`);
    throw notFound();
  }
  return { announcement, added: result.added };
}

/** Removes the user's reaction (DELETE /api/v1/announcements/:id/reactions/:name); 404 when they had none. */
export async function unreact(viewer: Account, id: string, name: string): Promise<void> {
  if (!isId(id)) throw notFound();
  const result = await removeAnnouncementReaction(id, viewer.id, name);
  if ('failed' in result) throw notFound();
}
