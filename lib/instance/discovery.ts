// Discovery documents: NodeInfo 2.0 (and its /.well-known pointer), WebFinger
// (RFC 7033) for local accounts, and host-meta (RFC 6415) pointing at WebFinger.
import escapeHtml from 'escape-html';
import { API_VERSION, SOFTWARE, config } from '../config';
import { accountByUsername, type Account } from '../db/accounts';
import { instanceSettings } from '../db/instance';
import { badRequest, notFound } from '../errors';
import { HALF_YEAR_DAYS, MONTH_DAYS, activeUsers } from '../db/activity';
import { instanceStats } from '../db/stats';

export const NODEINFO_20 = 'http://nodeinfo.diaspora.software/ns/schema/2.0';
export const NODEINFO_CONTENT_TYPE = `application/json; profile="${NODEINFO_20}#"`;

export const nodeinfoLinks = () => ({ links: [{ rel: NODEINFO_20, href: `${config.baseUrl}/nodeinfo/2.0` }] });

/** The Mastodon version whose client API this server implements ("3.5.3"). */
export const mastodonApiLevel = () => API_VERSION.split(' ')[0] ?? API_VERSION;

/**
 * NodeInfo 2.0. The software is named for what it is; `metadata.upstream` says
 * whose API it speaks, which is how client libraries (megalodon's detector)
 * recognise Mastodon-compatible servers that are not Mastodon.
 */
export async function nodeinfo() {
  const [settings, stats, activeMonth, activeHalfyear] = await Promise.all([
    instanceSettings(),
    instanceStats(),
    activeUsers(MONTH_DAYS),
    activeUsers(HALF_YEAR_DAYS),
  ]);
  return {
    version: '2.0',
    software: { name: SOFTWARE.name, version: SOFTWARE.version },
    protocols: ['activitypub'],
    services: { outbound: [], inbound: [] },
    usage: {
      users: { total: stats.userCount, activeMonth, activeHalfyear },
      localPosts: stats.statusCount,
    },
    openRegistrations: settings.registrationsMode !== 'none',
    metadata: {
      nodeName: settings.title,
      nodeDescription: settings.shortDescription,
      upstream: { name: 'mastodon', version: mastodonApiLevel() },
      features: ['mastodon_api', 'mastodon_api_streaming'],
    },
  };
}

const USERNAME = /^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$/i;

const baseHost = () => new URL(config.baseUrl).host.toLowerCase();
const isLocalDomain = (domain: string) => {
  const d = domain.toLowerCase();
  return d === config.domain.toLowerCase() || d === baseHost();
};

/**
 * The local username a WebFinger resource names, as Mastodon reads it:
 * `acct:user@domain`, `user@domain`, `acct:user`, or a profile URL
 * (`<base>/@user`, `<base>/users/user`). Remote or unknown → 404; unreadable → 400.
 */
export function usernameFromResource(resource: string): string {
  const value = resource.trim();
  if (/^https?:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw badRequest('The resource parameter is invalid');
    }
    if (url.host.toLowerCase() !== baseHost()) throw notFound();
    const match = /^\/(?:@|users\/)([^/]+)\/?$/.exec(url.pathname);
    if (!match?.[1]) throw notFound();
    return decodeURIComponent(match[1]);
  }
  const acct = value.replace(/^acct:/i, '');
  if (value.includes('@')) {
    const parts = acct.split('@');
    const domain = parts.length > 1 ? parts[parts.length - 1] ?? '' : '';
    if (!isLocalDomain(domain)) throw notFound();
    return parts[0] ?? '';
  }
  if (/^acct:/i.test(value)) return acct;
  throw badRequest('The resource parameter is invalid');
}

export async function webfingerAccount(resource: string): Promise<Account> {
  const username = usernameFromResource(resource);
  if (!USERNAME.test(username)) throw notFound();
  const account = await accountByUsername(username);
  if (!account || account.domain !== null) throw notFound();
  return account;
}

export function renderWebfinger(account: Account) {
  const profile = `${config.baseUrl}/@${account.username}`;
  const actor = `${config.baseUrl}/users/${account.username}`;
  return {
    subject: `acct:${account.username}@${config.domain}`,
    aliases: [profile, actor],
    links: [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: profile },
      { rel: 'self', type: 'application/activity+json', href: actor },
    ],
  };
}

export const hostMeta = () =>
  `<?xml version="1.0" encoding="UTF-8"?>
<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">
  <Link rel="lrdd" type="application/xrd+xml" template="${escapeHtml(`${config.baseUrl}/.well-known/webfinger`)}?resource={uri}"/>
</XRD>
`;

/** Mastodon lets caches keep discovery documents for 3 days (NodeInfo: 30 minutes). */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=259200';
export const NODEINFO_CACHE_CONTROL = 'public, max-age=1800';
