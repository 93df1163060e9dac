// Trending statuses and links (Mastodon 4's Trends::Statuses and Trends::Links): counters kept
// at write time, decaying over days, read without scans. CONTRACT: the trends area owns lib/trends/.
import type { Status } from '../db/statuses';

export type TrendInteraction = 'favourite' | 'reblog' | 'reply';

/** Counts an interaction with a status (local or received from another server) toward the status trends. */
export async function countInteraction(status: Status, kind: TrendInteraction, actorId: string): Promise<void> {
  void status;
  void kind;
  void actorId;
}

/** Counts a status sharing a link (called by the cards worker once the link's card is known) toward the link trends. */
export async function countLinkShare(url: string, status: Status): Promise<void> {
  void url;
  void status;
}
