// Which statuses listed under a link its timeline shows (GET /api/v1/timelines/link), after
// Mastodon's LinkFeed: public statuses that still carry the link's card, by authors who opted
// into discovery. The list was written when each share was counted (lib/trends); an edit may
// have changed the card and the author may have left discovery since, so both are asked here,
// on read. Blocks, mutes and silenced servers are visibleTo's 'public' rules, applied after.
import { accountsByIds } from '../db/accounts';
import type { Status } from '../db/statuses';
import { isPublic } from './visibility';

/** Of `statuses` (in order), those the timeline of `url` may list; one batch read of their authors. */
export async function shownUnderLink(url: string, statuses: Status[]): Promise<Status[]> {
  const sharing = statuses.filter((s) => isPublic(s) && s.reblogOfId === null && s.cardUrl === url);
  if (sharing.length === 0) return [];
  const authors = await accountsByIds([...new Set(sharing.map((s) => s.accountId))]);
  return sharing.filter((s) => authors.get(s.accountId)?.discoverable === true);
}
