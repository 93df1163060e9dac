// Announcements: what the operator publishes to every user (Mastodon's admin announcements), and what each
// user does with them (dismiss, react with an emoji). The operator's side (create, update, publish, delete)
// is called by the CLI (lib/admin/announcement_commands.ts); the users' side by functions/announcements/.
//
// The text is rendered once, when written, as a status is: escaped, links, hashtags and mentions of known
// accounts linked (lib/text), so reading announcements resolves nothing.
import { config } from '../config';
import {
  MAX_REACTION_NAMES,
  addAnnouncementReaction,
  allAnnouncements,
  announcementById,
  announcementMarksOf,
  deleteAnnouncement,
  dismissAnnouncement,
  putAnnouncement,
  removeAnnouncementReaction,
  updateAnnouncement,
  type Announcement,
  type AnnouncementFields,
  type AnnouncementMarks,
} from '../db/announcements';
import { accountsByIds, type Account } from '../db/accounts';
import { emojisByShortcodes, type Emoji } from '../db/emojis';
import { statusesByIds, type Status } from '../db/statuses';
import { notFound, unprocessable } from '../errors';
import { parseLocalUrl } from '../federation/urls';
import { isId, newId } from '../ids';
import { openToAnyone } from '../policy/visibility';
import { resolveMentions } from '../statuses/create';
import { mentionedAccounts, parseStatusText, statusToHtml, tagDisplayNames } from '../text/status';
import { shortcodesIn } from '../render/emoji';

/** The longest announcement text: Mastodon sets none; this is a status's raw cap twice over, plenty for a notice. */
export const MAX_ANNOUNCEMENT_TEXT = 5_000;

export type Schedule = { startsAt: string | null; endsAt: string | null; allDay: boolean };

/**
 * Checks a schedule as Mastodon's model does: a start needs an end and an end a start. An end before its
 * start is refused too, which Mastodon lets through and then never shows. `all_day` is false without dates.
 */
export function checkedSchedule(s: Schedule): Schedule {
  if ((s.startsAt === null) !== (s.endsAt === null)) throw unprocessable('Validation failed: starts_at and ends_at must be given together');
  if (s.startsAt !== null && s.endsAt !== null && Date.parse(s.endsAt) < Date.parse(s.startsAt)) {
    throw unprocessable('Validation failed: ends_at must not be before starts_at');
  }
  return { ...s, allDay: s.startsAt !== null && s.allDay };
}

/** A date as the operator wrote it (ISO 8601), stored as ISO in UTC; undefined when it is no date. */
export function isoDate(value: string): string | undefined {
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}

/** The text rendered and what it names: mentions of known accounts, hashtags, our own public statuses it links to. */
async function composed(text: string): Promise<Pick<AnnouncementFields, 'text' | 'contentHtml' | 'mentions' | 'tags' | 'statuses'>> {
  const trimmed = text.trim();
  if (trimmed === '') throw unprocessable("Validation failed: Text can't be blank");
  if (text.length > MAX_ANNOUNCEMENT_TEXT) throw unprocessable(`Validation failed: Text is too long (maximum is ${MAX_ANNOUNCEMENT_TEXT} characters)`);
  const parsed = parseStatusText(text);
  const resolved = await resolveMentions(parsed);
  const linked = [...new Set(parsed.entities.flatMap((e) => (e.kind === 'url' ? [parseLocalUrl(e.href)] : [])).flatMap((t) => (t?.kind === 'status' ? [t.statusId] : [])))];
  const statuses = linked.length > 0 ? await statusesByIds(linked) : new Map<string, Status>();
  const authors = statuses.size > 0 ? await accountsByIds([...new Set([...statuses.values()].map((s) => s.accountId))]) : new Map<string, Account>();
  return {
    text,
    contentHtml: statusToHtml(parsed, resolved),
    mentions: mentionedAccounts(parsed, resolved).map(({ id, username, acct, url }) => ({ id, username, acct, url })),
    tags: [...tagDisplayNames(text).keys()],
    // Only statuses anyone may see are named, as Mastodon keeps only public and unlisted ones.
    statuses: linked.flatMap((id) => {
      const status = statuses.get(id);
      const author = status ? authors.get(status.accountId) : undefined;
      return status && author && openToAnyone(status) && !status.reblogOfId ? [{ id, url: statusPageUrl(author.username, id) }] : [];
    }),
  };
}

const statusPageUrl = (username: string, id: string) => `${config.baseUrl}/@${username}/${id}`;

export type NewAnnouncement = Schedule & { text: string; publish: boolean };

export async function createAnnouncement(input: NewAnnouncement, now: Date = new Date()): Promise<Announcement> {
  const schedule = checkedSchedule(input);
  const at = now.toISOString();
  const announcement: Announcement = {
    id: newId(now),
    ...(await composed(input.text)),
    ...schedule,
    published: input.publish,
    publishedAt: input.publish ? at : null,
    createdAt: at,
    updatedAt: at,
    reactionCounts: {},
    reactionSince: {},
  };
  await putAnnouncement(announcement);
  return announcement;
}

const existing = async (id: string): Promise<Announcement> => {
  const found = isId(id) ? await announcementById(id, true) : undefined;
  if (!found) throw notFound();
  return found;
};

/** Changes the text or the schedule; what is not given stays. */
export async function editAnnouncement(id: string, changes: Partial<Schedule> & { text?: string }): Promise<Announcement> {
  const current = await existing(id);
  const schedule = checkedSchedule({
    startsAt: changes.startsAt !== undefined ? changes.startsAt : current.startsAt,
    endsAt: changes.endsAt !== undefined ? changes.endsAt : current.endsAt,
    allDay: changes.allDay ?? current.allDay,
  });
  const text = changes.text !== undefined ? await composed(changes.text) : {};
  const updated = await updateAnnouncement(current.id, { ...text, ...schedule });
  if (!updated) throw notFound();
  return updated;
}

/** Publishing sets published_at (each time, as Mastodon's publish!); unpublishing hides it from users again. */
export async function setPublished(id: string, published: boolean, now: Date = new Date()): Promise<Announcement> {
  const current = await existing(id);
  if (current.published === published) return current;
  const updated = await updateAnnouncement(current.id, published ? { published, publishedAt: now.toISOString() } : { published });
  if (!updated) throw notFound();
  return updated;
}

export async function removeAnnouncement(id: string): Promise<Announcement> {
  const removed = isId(id) ? await deleteAnnouncement(id) : undefined;
  if (!removed) throw notFound();
  return removed;
}

/** Every announcement, published or not, as the operator lists them. */
export const everyAnnouncement = () => allAnnouncements();

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
