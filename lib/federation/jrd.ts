// WebFinger, the server side (https://docs.joinmastodon.org/spec/webfinger/): the JRD
// a peer reads to go from `user@domain` (or a profile URL) to the actor it fetches.
// Reading the resource as a username is lib/instance/discovery.ts's.
import { config } from '../config';
import { usernameFromResource, webfingerAccount } from '../instance/discovery';
import { instanceActorUsername } from './render';
import { ACTIVITY_JSON, apUrls } from './urls';

export type Jrd = { subject: string; aliases: string[]; links: { rel: string; type: string; href: string }[] };

/**
 * The JRD of what a WebFinger resource names here (https://docs.joinmastodon.org/spec/webfinger/):
 * a local account (subject its handle, aliases its page and actor, links `self` to the actor and
 * `profile-page`), or the instance actor, found as Mastodon's is (`acct:<host>@<domain>`, or its
 * URL). 400 for a resource that cannot be read, 404 for anything else.
 */
export async function webfingerDocument(resource: string): Promise<Jrd> {
  const value = resource.trim();
  const instanceActor = apUrls.instanceActor();
  const username = value === instanceActor ? instanceActorUsername() : usernameFromResource(value);
  if (username.toLowerCase() === instanceActorUsername().toLowerCase()) {
    return { subject: `acct:${instanceActorUsername()}@${config.domain}`, aliases: [instanceActor], links: [{ rel: 'self', type: ACTIVITY_JSON, href: instanceActor }] };
  }
  const account = await webfingerAccount(username);
  const profile = apUrls.profile(account.username);
  const actor = apUrls.actor(account.username);
  return {
    subject: `acct:${account.username}@${config.domain}`,
    aliases: [profile, actor],
    links: [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: profile },
      { rel: 'self', type: ACTIVITY_JSON, href: actor },
    ],
  };
}
