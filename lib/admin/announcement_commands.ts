// The operator's announcement commands (`npm run admin -- announcements ...`), as Mastodon's admin
// announcements page: write one (published at once, or kept as a draft), change its text or dates, publish
// or unpublish it, delete it, list them all. Users see published ones that have not ended (GET
// /api/v1/announcements); their `user` streams hear of each change (lib/announcements/streaming.ts).
import { isShown } from '../announcements';
import { createAnnouncement, editAnnouncement, everyAnnouncement, isoDate, removeAnnouncement, setPublished } from '../announcements/operator';
import { publishAnnouncement, publishAnnouncementDelete } from '../announcements/streaming';
import type { Announcement } from '../db/announcements';
import { HttpError } from '../errors';
import { reactionNames } from '../render/announcement';
import { AdminError } from './commands';

export const ANNOUNCEMENTS_USAGE = `Announcements
  announcements create --text <text> [--starts-at <ISO date>] [--ends-at <ISO date>] [--all-day] [--draft]
                                     write an announcement (published at once unless --draft); dates go together
  announcements update <id> [--text <text>] [--starts-at <ISO date|none>] [--ends-at <ISO date|none>] [--all-day|--timed]
                                     change an announcement's text or dates
  announcements publish <id>         publish a draft (published_at is now)
  announcements unpublish <id>       take an announcement back from users, keeping it
  announcements delete <id>          delete an announcement, its reactions and dismissals
  announcements list                 list every announcement, oldest first`;

export type AnnouncementFlags = { text?: string; 'starts-at'?: string; 'ends-at'?: string; 'all-day'?: boolean; timed?: boolean; draft?: boolean };

/** The domain's refusals (422, 404) read as the CLI's own errors. */
async function asAdmin<T>(run: () => Promise<T>, id?: string): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof HttpError) throw new AdminError(err.status === 404 ? `No announcement with id ${id ?? ''}` : err.message);
    throw err;
  }
}

/** A date flag: undefined when not given, null for `none` (update only), else an ISO date. */
function dateFlag(value: string | undefined, flag: string, allowNone: boolean): string | null | undefined {
  if (value === undefined) return undefined;
  if (allowNone && value === 'none') return null;
  const iso = isoDate(value);
  if (!iso) throw new AdminError(`--${flag} must be an ISO 8601 date, such as 2025-05-01 or 2025-05-01T18:00:00Z${allowNone ? ", or 'none'" : ''}`);
  return iso;
}

const stateOf = (a: Announcement) => (!a.published ? 'draft' : isShown(a) ? 'published' : 'ended');

const whenOf = (a: Announcement) => (a.startsAt && a.endsAt ? `${a.startsAt} – ${a.endsAt}${a.allDay ? ' (all day)' : ''}` : 'no dates');

const summary = (a: Announcement) => {
  const reactions = reactionNames(a).map((n) => `${n} ${a.reactionCounts[n]}`).join(' ');
  const firstLine = a.text.trim().split('\n')[0] ?? '';
  const text = firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine;
  return [a.id, stateOf(a), whenOf(a), reactions || 'no reactions', text].join('  ');
};

export async function createAnnouncementCommand(flags: AnnouncementFlags): Promise<string> {
  if (flags.text === undefined) throw new AdminError('Missing --text <text>');
  if (flags.timed) throw new AdminError('--timed belongs to `announcements update`');
  const startsAt = dateFlag(flags['starts-at'], 'starts-at', false) ?? null;
  const endsAt = dateFlag(flags['ends-at'], 'ends-at', false) ?? null;
  const created = await asAdmin(() =>
    createAnnouncement({ text: flags.text!, startsAt, endsAt, allDay: flags['all-day'] ?? false, publish: !flags.draft }),
  );
  if (created.published) await publishAnnouncement(created);
  return `${created.published ? 'Published' : 'Saved draft'} announcement ${created.id}.`;
}

export async function updateAnnouncementCommand(id: string, flags: AnnouncementFlags): Promise<string> {
  if (flags.draft) throw new AdminError('--draft belongs to `announcements create`; use `announcements unpublish <id>`');
  if (flags['all-day'] && flags.timed) throw new AdminError('Give --all-day or --timed, not both');
  const allDay = flags['all-day'] ? true : flags.timed ? false : undefined;
  const changes = { text: flags.text, startsAt: dateFlag(flags['starts-at'], 'starts-at', true), endsAt: dateFlag(flags['ends-at'], 'ends-at', true), allDay };
  if (Object.values(changes).every((v) => v === undefined)) throw new AdminError('Nothing to change: give --text, --starts-at, --ends-at, --all-day or --timed');
  const updated = await asAdmin(() => editAnnouncement(id, changes), id);
  if (updated.published) await publishAnnouncement(updated);
  return `Updated announcement ${updated.id}.`;
}

export async function publishAnnouncementCommand(id: string, published: boolean): Promise<string> {
  const changed = await asAdmin(() => setPublished(id, published), id);
  if (published) await publishAnnouncement(changed);
  else await publishAnnouncementDelete(changed.id);
  return `${published ? 'Published' : 'Unpublished'} announcement ${changed.id}.`;
}

export async function deleteAnnouncementCommand(id: string): Promise<string> {
  const removed = await asAdmin(() => removeAnnouncement(id), id);
  if (removed.published) await publishAnnouncementDelete(removed.id);
  return `Deleted announcement ${removed.id}.`;
}

export async function listAnnouncementsCommand(): Promise<string> {
  const all = await everyAnnouncement();
  return all.length === 0 ? 'No announcements.' : all.map(summary).join('\n');
}

/** `announcements <command> ...`; undefined for a command it does not know (the CLI then prints its usage). */
export async function announcementsCommand(command: string | undefined, rest: string[], flags: AnnouncementFlags): Promise<string | undefined> {
  const [id, ...extra] = rest;
  const noMore = (args: string[]) => {
    if (args.length > 0) throw new AdminError(`Unexpected argument ${JSON.stringify(args[0])}\n\n${ANNOUNCEMENTS_USAGE}`);
  };
  const needId = () => {
    if (!id) throw new AdminError(`Missing the announcement id\n\n${ANNOUNCEMENTS_USAGE}`);
    noMore(extra);
    return id;
  };
  switch (command) {
    case 'create':
      noMore(rest);
      return createAnnouncementCommand(flags);
    case 'list':
      noMore(rest);
      return listAnnouncementsCommand();
    case 'update':
      return updateAnnouncementCommand(needId(), flags);
    case 'publish':
      return publishAnnouncementCommand(needId(), true);
    case 'unpublish':
      return publishAnnouncementCommand(needId(), false);
    case 'delete':
      return deleteAnnouncementCommand(needId());
    default:
      return undefined;
  }
}
