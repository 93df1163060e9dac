// Which terms of service and which privacy policy this server serves (Mastodon's TermsOfService and
// PrivacyPolicy models). Terms are published by the operator with an effective date (`npm run admin -- terms
// publish`); the versions' dates are in the settings item (lib/db/instance.ts, `termsDates`), so deciding which
// one is current reads nothing more than every instance request reads.
import { config } from '../config';
import { recentInstanceSettings } from '../db/instance';
import { storedPrivacyPolicy, termsVersion, type PrivacyPolicy, type TermsVersion } from '../db/instance_documents';
import { notFound } from '../errors';
import { escapeHtml } from '../text/html';

/** A calendar date as the terms are dated: YYYY-MM-DD. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** YYYY-MM-DD that names a real day (2025-02-30 does not). */
export const isCalendarDate = (value: string): boolean =>
  DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;

/** Today, UTC, as the terms are dated. */
export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);

/**
 * Terms are in effect from the first moment (UTC) of their effective date. (Mastodon's `live` scope counts the day
 * itself, its `effective?` only the day after; one rule here, the one the date's meaning gives.)
 */
export const isInEffect = (effectiveDate: string, today: string): boolean => effectiveDate <= today;

/**
 * The terms that apply now: the latest in effect, or, while none is yet, the first to come (Mastodon's
 * TermsOfService.current). `dates` ascending.
 */
export function currentTermsDate(dates: readonly string[], today: string): string | undefined {
  const inEffect = dates.filter((d) => isInEffect(d, today));
  return inEffect.at(-1) ?? dates.find((d) => !isInEffect(d, today));
}

/** The version that replaces this one: the next effective date, or null when it is the last. */
export const successorOf = (date: string, dates: readonly string[]): string | null => dates.find((d) => d > date) ?? null;

export type ServedTerms = { version: TermsVersion; effective: boolean; succeededBy: string | null };

/**
 * A version of the terms: the current one without a date, else the one of that effective date. 404 when there are
 * none, or none of that date (anything that is not a YYYY-MM-DD date included), as Mastodon's `find_by!`.
 */
export async function servedTerms(date?: string): Promise<ServedTerms> {
  const { termsDates } = await recentInstanceSettings();
  const today = todayUtc();
  const wanted = date === undefined ? currentTermsDate(termsDates, today) : isCalendarDate(date) ? date : undefined;
  const version = wanted === undefined ? undefined : await termsVersion(wanted);
  if (!version) throw notFound();
  return { version, effective: isInEffect(version.effectiveDate, today), succeededBy: successorOf(version.effectiveDate, termsDates) };
}

/** Whether clients have terms to link to (Instance `configuration.urls.terms_of_service`). */
export const hasTerms = (termsDates: readonly string[]): boolean => termsDates.length > 0;

/**
 * `%{domain}` in an operator's document, as Mastodon's templates write it, is this server's domain. Markdown
 * links percent-encode it (`%25%7Bdomain%7D`), so that form is replaced too.
 */
export const withDomain = (html: string): string => html.replace(/%\{domain\}|%25%7Bdomain%7D/gi, escapeHtml(config.domain));

/** When the default policy below was last changed: its `updated_at`. */
export const DEFAULT_PRIVACY_POLICY_DATE = '2026-11-29T00:00:00.000Z';

/**
 * Served until the operator sets their own (`npm run admin -- privacy-policy set <file>`): what this software
 * stores and shares, said plainly, so that a new server's policy is at least true.
 */
export const DEFAULT_PRIVACY_POLICY_HTML = `<p>This is the default privacy policy of %{domain}, a server running tootless, Mastodon-compatible software. The people who run %{domain} have not written their own yet. It says what the software keeps about you and who can see it.</p>
<h2>What this server stores</h2>
<ul>
<li><strong>Your account</strong>: your username, e-mail address and password (stored only as a one-way hash), your profile (display name, bio, fields, avatar and header), your settings, and the reason you gave when signing up, if asked.</li>
<li><strong>What you post</strong>: your posts, their edits, polls and media, and what you do with other posts: favourites, boosts, bookmarks, votes, pins.</li>
<li><strong>Your connections</strong>: whom you follow and who follows you (both public), lists, blocks, mutes, filters, reports you file and notes you write on other accounts.</li>
<li><strong>Technical data</strong>: the IP address you signed up from, when you last signed in and how often, the applications you authorised (their tokens stored only as hashes), and web push subscriptions. Short-lived counters used against abuse are kept for minutes, and the hosting platform may log requests, with their IP addresses, for a limited time.</li>
</ul>
<h2>Who can see it</h2>
<ul>
<li>Public and unlisted posts, your profile and your follows can be seen by anyone, and are sent to other servers of the network, which keep their own copies under their own rules.</li>
<li>Followers-only and direct posts are shown only to the people they are addressed to, and sent to their servers. They are not end-to-end encrypted: the operators of this server and of the receiving servers can read them. Do not share anything sensitive in them.</li>
<li>Your e-mail address and IP address are shown to no one but this server's moderators.</li>
</ul>
<h2>Deleting your data</h2>
<p>Deleting a post deletes it here and asks the servers it was sent to to delete it too. To have your account deleted, contact the people who run %{domain}.</p>`;

export type ServedPrivacyPolicy = Pick<PrivacyPolicy, 'contentHtml' | 'updatedAt'>;

/** The operator's policy, or the default one. */
export async function servedPrivacyPolicy(): Promise<ServedPrivacyPolicy> {
  const stored = await storedPrivacyPolicy();
  return stored ?? { contentHtml: DEFAULT_PRIVACY_POLICY_HTML, updatedAt: DEFAULT_PRIVACY_POLICY_DATE };
}
