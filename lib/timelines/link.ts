// Reading a link's timeline (GET /api/v1/timelines/link, Mastodon 4.3): the public statuses
// sharing a trending link, newest first. Only a link that trends now and has its card answers
// (Mastodon finds the card through its allowed trend, else 404). A page costs the trend check
// and the card (two batch reads, in parallel with the page's Query), one batch read of the
// statuses, one of their authors (discoverability), then the visibility rules.
import { z } from 'zod';
import type { Account } from '../db/accounts';
import { cardsByUrls } from '../db/cards';
import { statusesByIds } from '../db/statuses';
import type { TimelinePage } from '../db/timelines';
import { linkStatusIds } from '../db/trends';
import { normaliseCardUrl } from '../cards/link';
import { notFound } from '../errors';
import { MAX_URL_LENGTH } from '../federation/guard';
import { visibleTo } from '../policy';
import { shownUnderLink } from '../policy/link_timeline';
import { isTrendingLink } from '../trends';
import { timelineQuery } from './read';

/** The link as a card is stored under (lib/cards/link.ts), so that a card's own `url` finds it. */
const linkUrl = z
  .string({ invalid_type_error: 'must be a string' })
  .max(MAX_URL_LENGTH, `is too long (maximum is ${MAX_URL_LENGTH} characters)`)
  .transform((raw, ctx) => {
    const url = normaliseCardUrl(raw);
    if (url === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is not a valid http(s) URL' });
      return z.NEVER;
    }
    return url;
  });

export const linkQuery = timelineQuery.extend({ url: linkUrl });
export type LinkQuery = z.infer<typeof linkQuery>;

export async function linkTimeline(input: LinkQuery, viewer?: Account): Promise<TimelinePage> {
  const [trending, cards, ids] = await Promise.all([isTrendingLink(input.url), cardsByUrls([input.url]), linkStatusIds(input.url, input)]);
  if (!trending || !cards.has(input.url)) throw notFound();
  const found = await statusesByIds(ids);
  // Listed statuses since deleted are simply not found.
  const listed = ids.flatMap((id) => found.get(id) ?? []);
  const statuses = await visibleTo(viewer, await shownUnderLink(input.url, listed), 'public');
  // Paging follows the entries read, so entries that drop out never stall it.
  return { statuses, newest: ids[0], oldest: ids.at(-1) };
}
