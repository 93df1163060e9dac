// Statuses (and reblogs, which are statuses with `reblogOfId`). The item schema
// is the contract between the status, timeline, interaction and notification code.
import { z } from 'zod';
import { gsi1, keys } from './keys';
import { batchGet, getItem } from './table';

export const visibilities = ['public', 'unlisted', 'private', 'direct'] as const;
export type Visibility = (typeof visibilities)[number];

export const statusMention = z.object({
  id: z.string(),
  username: z.string(),
  acct: z.string(),
  url: z.string(),
});

export const statusItem = z.object({
  id: z.string(),
  accountId: z.string(),
  createdAt: z.string(),
  /** For a reblog: the reblogged status; the reblog itself has no text of its own. */
  reblogOfId: z.string().nullable().default(null),
  /** Source text as typed, and the HTML the server rendered from it. */
  text: z.string().default(''),
  contentHtml: z.string().default(''),
  spoilerText: z.string().default(''),
  sensitive: z.boolean().default(false),
  visibility: z.enum(visibilities),
  language: z.string().nullable().default(null),
  inReplyToId: z.string().nullable().default(null),
  inReplyToAccountId: z.string().nullable().default(null),
  /** Root of the thread (its own id for a thread starter); conversation mutes key on it. */
  conversationId: z.string(),
  mentions: z.array(statusMention).default([]),
  /** Hashtags, lower-cased and NFKC-normalised, without `#`. */
  tags: z.array(z.string()).default([]),
  mediaIds: z.array(z.string()).default([]),
  pollId: z.string().nullable().default(null),
  applicationName: z.string().nullable().default(null),
  applicationWebsite: z.string().nullable().default(null),
  repliesCount: z.number().int().default(0),
  reblogsCount: z.number().int().default(0),
  favouritesCount: z.number().int().default(0),
  editedAt: z.string().nullable().default(null),
});
export type Status = z.infer<typeof statusItem>;

/** The status item as written: its key, the author's-statuses index, and the parsed attributes. */
export const statusRecord = (status: Status) => ({
  ...keys.status(status.id),
  ...gsi1.accountStatus(status.accountId, status.id),
  ...statusItem.parse(status),
});

export const statusById = (id: string) => getItem(keys.status(id), statusItem);

/** Many statuses in one batch read; missing (deleted) ones are absent from the map. */
export async function statusesByIds(ids: string[]): Promise<Map<string, Status>> {
  const found = await batchGet(ids.map(keys.status), statusItem);
  const byId = new Map<string, Status>();
  for (const status of found.values()) byId.set(status.id, status);
  return byId;
}
