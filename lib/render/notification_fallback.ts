// Fallback text of a notification (Mastodon 4.6's NotificationFallback): a client lists the notification types it
// can show (`supported_types[]`), and a notification of a type outside that list and outside Mastodon's baseline
// carries `fallback` { text, summary, description } in HTML, so that an app written before the type existed still
// shows something true. Without `supported_types[]` nothing changes, as in Mastodon. Accounts appear as Mastodon
// renders a mention (an h-card linking to the account); the wording is ours, in English. The facts are read from the
// notification's entity as rendered (its account, report, moderation_warning, collection): no read of their own.
import type { NotificationType } from '../db/notifications';
import { escapeHtml } from '../text/html';

/** The types every client is expected to know (Mastodon's baseline): they never carry a fallback. */
export const BASELINE_TYPES: readonly string[] = [
  'mention', 'status', 'reblog', 'follow', 'follow_request', 'favourite', 'poll', 'update', 'quote', 'quoted_update', 'annual_report',
];

export type NotificationFallback = { text: string; summary: string | null; description: string | null };

/** What a fallback names, as the notification's entity renders it. */
type Named = { acct: string; url: string; username: string };
export type FallbackFacts = {
  account: Named;
  /** An admin.report: its target, category and comment. */
  report?: { target_account: Named; category: string; comment: string };
  /** A moderation_warning: the strike's action and text. */
  moderation_warning?: { action: string; text: string };
  /** A collection notification: the collection's name. */
  collection?: { name: string };
};

/** Does a notification of `type` carry a fallback for a client that named `supported` (undefined: it named none)? */
export const needsFallback = (type: NotificationType, supported: readonly string[] | undefined): boolean =>
  supported !== undefined && !BASELINE_TYPES.includes(type) && !supported.includes(type);

const hCard = (a: Named) =>
  `<span class="h-card" translate="no"><a href="${escapeHtml(a.url)}" class="u-url mention">@<span>${escapeHtml(a.username)}</span></a></span>`;

const quoted = (text: string, max = 500) => {
  const t = text.length > max ? `${text.slice(0, max)}…` : text;
  return `<p>${escapeHtml(t)}</p>`;
};

/** What Mastodon's moderation actions mean to their recipient. */
const WARNING_TEXT: Record<string, string> = {
  none: 'You have received a warning from the moderators.',
  disable: 'Your login has been disabled by the moderators.',
  mark_statuses_as_sensitive: 'Some of your posts have been marked as sensitive by the moderators.',
  delete_statuses: 'Some of your posts have been removed by the moderators.',
  sensitive: 'Your posts will be marked as sensitive from now on.',
  silence: 'Your account has been limited by the moderators.',
  suspend: 'Your account has been suspended by the moderators.',
};

/** The fallback of a notification of `type`, from what its entity carries; undefined for a type that needs none. */
export function fallbackFor(type: NotificationType, facts: FallbackFacts): NotificationFallback | undefined {
  switch (type) {
    case 'admin.sign_up':
      return { text: `<p>${hCard(facts.account)} signed up</p>`, summary: 'New sign-up', description: null };
    case 'admin.report': {
      const r = facts.report;
      const target = r ? ` reported ${hCard(r.target_account)}` : ' filed a report';
      return {
        text: `<p>${hCard(facts.account)}${target}</p>`,
        summary: 'New report',
        description: r ? `<p>Category: ${escapeHtml(r.category)}</p>${r.comment ? quoted(r.comment) : ''}` : null,
      };
    }
    case 'moderation_warning': {
      const w = facts.moderation_warning;
      return {
        text: `<p>${escapeHtml(WARNING_TEXT[w?.action ?? 'none'] ?? WARNING_TEXT.none!)}</p>`,
        summary: 'Moderation warning',
        description: w?.text ? quoted(w.text) : null,
      };
    }
    case 'added_to_collection':
      return {
        text: `<p>${hCard(facts.account)} added you to ${facts.collection ? `the collection “${escapeHtml(facts.collection.name)}”` : 'a collection'}</p>`,
        summary: 'Added to a collection',
        description: null,
      };
    case 'collection_update':
      return {
        text: `<p>${hCard(facts.account)} updated ${facts.collection ? `the collection “${escapeHtml(facts.collection.name)}”` : 'a collection'} you are in</p>`,
        summary: 'Collection updated',
        description: null,
      };
    default:
      return undefined;
  }
}
