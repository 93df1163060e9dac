// The push message's plaintext, as Mastodon's Web::NotificationSerializer
// writes it: access_token, preferred_locale, notification_id, notification_type,
// icon, title, body. Title and body are composed the way Mastodon 3.5 composes
// them (its English notification_mailer subjects; the body is the status's
// content warning or text, or the actor's bio for a follow, cut at 140 characters).
import type { Account } from '../db/accounts';
import type { Notification, NotificationType } from '../db/notifications';
import type { Status } from '../db/statuses';
import { renderAccount } from '../render/account';

const TITLES: Record<NotificationType, (name: string) => string> = {
  mention: (name) => `You were mentioned by ${name}`,
  status: (name) => `${name} just posted`,
  reblog: (name) => `${name} boosted your post`,
  favourite: (name) => `${name} favourited your post`,
  follow: (name) => `${name} is now following you`,
  follow_request: (name) => `Pending follower: ${name}`,
  poll: (name) => `A poll by ${name} has ended`,
  update: (name) => `${name} edited a post`,
  'admin.sign_up': (name) => `${name} signed up`,
  'admin.report': (name) => `${name} submitted a report`,
  moderation_warning: () => 'Your account has received a moderation warning',
  quote: (name) => `${name} quoted your post`,
  quoted_update: (name) => `${name} edited a post you have quoted`,
  added_to_collection: (name) => `${name} added you to a collection`,
  collection_update: (name) => `${name} edited a collection you are in`,
};

export const BODY_LENGTH = 140;

/** Rails' `truncate(text, length: 140)`: at most 140 characters, the cut ones replaced by "...". */
export function truncate(text: string, length = BODY_LENGTH): string {
  const chars = Array.from(text);
  return chars.length <= length ? text : `${chars.slice(0, length - 3).join('')}...`;
}

export const pushTitle = (type: NotificationType, from: Account) => TITLES[type](from.displayName.trim() || from.username);

/** The status's content warning, else its text (empty for a media-only post), else, without a status, the actor's bio. */
export function pushBody(status: Status | undefined, from: Account): string {
  return truncate(status ? status.spoilerText || status.text : from.note);
}

export type PayloadInput = {
  notification: Notification;
  recipient: Account;
  from: Account;
  status: Status | undefined;
  /** The subscription's own access token ('' when it cannot be recovered). */
  accessToken: string;
};

/**
 * The JSON text pushed. `notification_id` is a JSON number as Mastodon sends
 * it (typed clients decode an integer), written digit for digit: our ids are
 * snowflakes beyond 2^53, which a double would round.
 */
export function pushPayload({ notification, recipient, from, status, accessToken }: PayloadInput): string {
  if (!/^\d{1,20}$/.test(notification.id)) throw new Error(`not a notification id: ${notification.id}`);
  const fields: [string, string][] = [
    ['access_token', JSON.stringify(accessToken)],
    ['preferred_locale', JSON.stringify(recipient.locale || 'en')],
    ['notification_id', notification.id.replace(/^0+(?=\d)/, '')],
    ['notification_type', JSON.stringify(notification.type)],
    ['icon', JSON.stringify(renderAccount(from).avatar_static)],
    ['title', JSON.stringify(pushTitle(notification.type, from))],
    ['body', JSON.stringify(pushBody(status, from))],
  ];
  return `{${fields.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
}
