// The ActivityPub URLs of this instance: every id we mint for an actor, an
// object or a collection is built here, and only here.
import { config } from '../config';

const base = () => config.baseUrl;

export const ACTIVITY_JSON = 'application/activity+json';
export const LD_JSON = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
export const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

export const apUrls = {
  actor: (username: string) => `${base()}/users/${username}`,
  keyId: (username: string) => `${base()}/users/${username}#main-key`,
  profile: (username: string) => `${base()}/@${username}`,
  inbox: (username: string) => `${base()}/users/${username}/inbox`,
  outbox: (username: string) => `${base()}/users/${username}/outbox`,
  followers: (username: string) => `${base()}/users/${username}/followers`,
  following: (username: string) => `${base()}/users/${username}/following`,
  featured: (username: string) => `${base()}/users/${username}/collections/featured`,
  /** The actor's collections of accounts (Mastodon 4.6's featuredCollections), and one of them and its items. */
  featuredCollections: (username: string) => `${base()}/users/${username}/featured_collections`,
  collection: (username: string, collectionId: string) => `${base()}/users/${username}/collections/${collectionId}`,
  collectionItem: (username: string, collectionId: string, itemId: string) => `${base()}/users/${username}/collections/${collectionId}/items/${itemId}`,
  status: (username: string, statusId: string) => `${base()}/users/${username}/statuses/${statusId}`,
  statusPage: (username: string, statusId: string) => `${base()}/@${username}/${statusId}`,
  /** A status's replies collection (./documents.ts repliesDocument). */
  replies: (username: string, statusId: string) => `${base()}/users/${username}/statuses/${statusId}/replies`,
  /** The Create of a status, or the Announce of a reblog. */
  activity: (username: string, statusId: string) => `${base()}/users/${username}/statuses/${statusId}/activity`,
  sharedInbox: () => `${base()}/inbox`,
  /** The instance actor: signs fetches made on no one's behalf. */
  instanceActor: () => `${base()}/actor`,
  instanceKeyId: () => `${base()}/actor#main-key`,
  /** The instance actor's outbox: always empty, there so the actor has one. */
  instanceOutbox: () => `${base()}/actor/outbox`,
  /** A local custom emoji, as the id of its `Emoji` tag (Mastodon's /emojis/:id). */
  emoji: (shortcode: string) => `${base()}/emojis/${encodeURIComponent(shortcode)}`,
  /**
   * Our Like of a status: derived from the account, the status and the favourite, so the Undo names the same
   * Like, and a favourite undone and made again is a new Like (receivers drop an activity id seen before).
   */
  like: (username: string, statusId: string, favouriteId: string) => `${base()}/users/${username}#likes/${statusId}/${favouriteId}`,
  /** Ids of activities that have no document of their own (Follow, Undo, Accept, Reject, Delete, Update). */
  activityId: (username: string, kind: string, id: string) => `${base()}/users/${username}#${kind}/${id}`,
  tag: (name: string) => `${base()}/tags/${encodeURIComponent(name)}`,
};

/** What one of our URLs names, read back: an actor, a status, or one of our activities (the account that sent it). */
export type LocalTarget = { kind: 'actor'; username: string } | { kind: 'status'; username: string; statusId: string } | { kind: 'activity'; username: string };

/**
 * Reads one of our URLs back into what it names: `/users/:u` and `/@:u` (an actor), `/users/:u/statuses/:id`
 * and `/@:u/:id` (a status, its `/activity` too), `/users/:u#<kind>/<id>` (an activity id of apUrls.activityId).
 * Undefined for another server's URL or a path we do not mint.
 */
export function parseLocalUrl(url: string): LocalTarget | undefined {
  if (!isLocalUrl(url)) return undefined;
  const { pathname, hash } = new URL(url);
  const segment = '([A-Za-z0-9_]+)';
  const actor = new RegExp(`^/(?:users/|@)${segment}/?$`).exec(pathname);
  if (actor) return hash ? { kind: 'activity', username: actor[1]! } : { kind: 'actor', username: actor[1]! };
  const status = new RegExp(`^/(?:users/${segment}/statuses|@${segment})/(\\d{1,20})(?:/activity)?/?$`).exec(pathname);
  if (status) return { kind: 'status', username: (status[1] ?? status[2])!, statusId: status[3]! };
  return undefined;
}

/** Is this URL one of ours (same origin as BASE_URL)? */
export function isLocalUrl(url: string): boolean {
  try {
    return new URL(url).origin === new URL(base()).origin;
  } catch {
    return false;
  }
}

/**
 * Is `host` (a request's Host header: host[:port]) this instance's? BASE_URL's host, or LOCAL_DOMAIN with or without
 * its port (handles may name another domain than the one serving). A signature covers Host: one made for another
 * server and replayed here is refused by this.
 */
export function isOurHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  const domain = config.domain.toLowerCase();
  return h === new URL(base()).host.toLowerCase() || h === domain || h === domain.split(':')[0];
}
