// Scheduled statuses (Mastodon's ScheduledStatus, 2.7.0): POST /api/v1/statuses
// with `scheduled_at` stores the validated params instead of posting, reserving
// the attachments; the sweeper publishes every due one through postStatus, the
// claim inside the posting transaction making it happen exactly once. This file is
// the time rule and what the owner does with one (show, reschedule, cancel);
// scheduling and publishing, which run the rules of posting, are ./scheduled_posting.ts.
import type { Account } from '../db/accounts';
import { removeScheduled, rescheduleItem, scheduledById, type Scheduled } from '../db/scheduled';
import { notFound, unprocessable } from '../errors';
import { isId } from '../ids';

/** Mastodon's ScheduledStatus::MINIMUM_OFFSET. */
export const MINIMUM_OFFSET_MS = 5 * 60_000;

const tooSoon = () => unprocessable('Validation failed: Scheduled at The scheduled date must be in the future');

/** The last instant with a four-digit year: later ones print as `+YYYYYY-…` and would sort first in the due index. */
const LATEST_SCHEDULE = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Does a leading `YYYY-MM-DD` name a real day? (Date.parse rolls 2030-02-30 over into March.) */
function realCalendarDay(value: string): boolean {
  const ymd = /^\s*(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!ymd) return true;
  const [year, month, day] = [Number(ymd[1]), Number(ymd[2]), Number(ymd[3])];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Normalised ISO time of `scheduled_at`, at least five minutes ahead of `now`. */
export function checkScheduledAt(value: string, now: number = Date.now()): string {
  const at = Date.parse(value);
  if (Number.isNaN(at) || at > LATEST_SCHEDULE || !realCalendarDay(value)) throw unprocessable('Validation failed: Scheduled at is invalid');
  if (at - now < MINIMUM_OFFSET_MS) throw tooSoon();
  return new Date(at).toISOString();
}

/** The caller's own scheduled status, or 404 (malformed ids included). */
export async function ownScheduled(account: Account, id: string): Promise<Scheduled> {
  const found = isId(id) ? await scheduledById(account.id, id, true) : undefined;
  if (!found) throw notFound();
  return found;
}

export async function rescheduleStatus(account: Account, id: string, scheduledAtInput: string): Promise<Scheduled> {
  const scheduled = await ownScheduled(account, id);
  const scheduledAt = checkScheduledAt(scheduledAtInput);
  if (scheduledAt === scheduled.scheduledAt) return scheduled;
  // Published or cancelled meanwhile: gone.
  if (!(await rescheduleItem(scheduled, scheduledAt))) throw notFound();
  return { ...scheduled, scheduledAt };
}

export async function cancelScheduled(account: Account, id: string): Promise<void> {
  const scheduled = await ownScheduled(account, id);
  if (!(await removeScheduled(scheduled))) throw notFound();
}
