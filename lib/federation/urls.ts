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
  status: (username: string, statusId: string) => `${base()}/users/${username}/statuses/${statusId}`,
  statusPage: (username: string, statusId: string) => `${base()}/@${username}/${statusId}`,
  /** The Create of a status, or the Announce of a reblog. */
  activity: (username: string, statusId: string) => `${base()}/users/${username}/statuses/${statusId}/activity`,
  sharedInbox: () => `${base()}/inbox`,
  /** The instance actor: signs fetches made on no one's behalf. */
  instanceActor: () => `${base()}/actor`,
  instanceKeyId: () => `${base()}/actor#main-key`,
  /** Ids of activities that have no document of their own (Follow, Undo, Accept, Reject, Delete, Update). */
  activityId: (username: string, kind: string, id: string) => `${base()}/users/${username}#${kind}/${id}`,
  tag: (name: string) => `${base()}/tags/${encodeURIComponent(name)}`,
};

/** Is this URL one of ours (same origin as BASE_URL)? */
export function isLocalUrl(url: string): boolean {
  try {
    return new URL(url).origin === new URL(base()).origin;
  } catch {
    return false;
  }
}
