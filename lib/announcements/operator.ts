// The operator's side of announcements (Mastodon's admin announcements: create, update, publish, delete),
// called by the CLI (lib/admin/announcement_commands.ts); the users' side is ./index.ts. The text is rendered
// here, once, when written, as a status is (lib/text/status.ts, mentions resolved as posting resolves them).
import { config } from '../config';
import {
  allAnnouncements,
  announcementById,
  deleteAnnouncement,
  putAnnouncement,
  updateAnnouncement,
  type Announcement,
  type AnnouncementFields,
} from '../db/announcements';
import { accountsByIds, type Account } from '../db/accounts';
import { statusesByIds, type Status } from '../db/statuses';
import { notFound, unprocessable } from '../errors';
import { parseLocalUrl } from '../federation/urls';
import { isId, newId } from '../ids';
import { openToAnyone } from '../policy/visibility';
import { resolveMentions } from '../statuses/create';
import { mentionedAccounts, parseStatusText, statusToHtml, tagDisplayNames } from '../text/status';

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

