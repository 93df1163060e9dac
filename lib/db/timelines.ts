// Timeline entries: home feeds (written by the fan-out worker, and the author's
// own entry at posting time), the public timelines and hashtag timelines
// (written with the status). An entry carries what a timeline query filters on,
// so a page is one Query plus one batch read of the statuses.
import { z } from 'zod';
import { keys } from './keys';
import type { Status } from './statuses';

export const timelineEntry = z.object({
  statusId: z.string(),
  /** Author of the entry (the reblogger for a reblog). */
  accountId: z.string(),
  reblogOfId: z.string().nullable().default(null),
  hasMedia: z.boolean().default(false),
  local: z.boolean().default(true),
});
export type TimelineEntry = z.infer<typeof timelineEntry>;

const entryOf = (status: Status, hasMedia: boolean): TimelineEntry => ({
  statusId: status.id,
  accountId: status.accountId,
  reblogOfId: status.reblogOfId,
  hasMedia,
  local: true,
});

export const homeEntryRecord = (ownerId: string, status: Status, hasMedia: boolean) => ({
  ...keys.homeEntry(ownerId, status.id),
  ...entryOf(status, hasMedia),
});

/**
 * Public and hashtag entries of a status: public visibility only, no reblogs,
 * and no replies to other accounts (Mastodon's public timelines leave those out).
 */
export function publicEntryRecords(status: Status, hasMedia: boolean) {
  if (status.visibility !== 'public' || status.reblogOfId) return [];
  if (status.inReplyToAccountId && status.inReplyToAccountId !== status.accountId) return [];
  const entry = entryOf(status, hasMedia);
  return [
    { ...keys.publicEntry('all', status.id), ...entry },
    { ...keys.publicEntry('local', status.id), ...entry },
    ...status.tags.map((tag) => ({ ...keys.tagEntry(tag, status.id), ...entry })),
  ];
}
