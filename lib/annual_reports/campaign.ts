// When reports may be generated: Mastodon's AnnualReport.current_campaign, the year itself from its December 10th
// to its end (UTC). Mastodon also puts the campaign behind an operator setting (`Setting.wrapstodon`); this server
// has no such setting, so the campaign runs every year.

/** The year whose reports may be generated at `now`, or null outside the campaign. */
export function currentCampaign(now: Date = new Date()): number | null {
  return now.getUTCMonth() === 11 && now.getUTCDate() >= 10 ? now.getUTCFullYear() : null;
}
