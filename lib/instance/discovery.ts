// Discovery documents: NodeInfo 2.0 and 2.1 (and their /.well-known pointer), the reading
// of a WebFinger (RFC 7033) resource as a local username (the JRD itself is an ActivityPub
// document: lib/federation/documents.ts), and host-meta (RFC 6415) pointing at WebFinger.
import escapeHtml from 'escape-html';
import { MASTODON_COMPATIBILITY, SOFTWARE, config } from '../config';
import { accountByUsername, type Account } from '../db/accounts';
import { recentInstanceSettings } from '../db/instance';
import { badRequest, notFound } from '../errors';
import { HALF_YEAR_DAYS, MONTH_DAYS, activeUsers } from '../db/activity';
import { instanceStats } from '../db/stats';

export const NODEINFO_20 = 'http://nodeinfo.diaspora.software/ns/schema/2.0';
export const NODEINFO_21 = 'http://nodeinfo.diaspora.software/ns/schema/2.1';
export type NodeinfoVersion = '2.0' | '2.1';
const NODEINFO_SCHEMAS: Record<NodeinfoVersion, string> = { '2.0': NODEINFO_20, '2.1': NODEINFO_21 };
export const nodeinfoContentType = (version: NodeinfoVersion) => `application/json; profile="${NODEINFO_SCHEMAS[version]}#"`;
export const NODEINFO_CONTENT_TYPE = nodeinfoContentType('2.0');

/** Both documents; 2.0 first, since readers that take the first link they know (megalodon) often know only 2.0. */
export const nodeinfoLinks = () => ({
  links: (['2.0', '2.1'] as const).map((version) => ({ rel: NODEINFO_SCHEMAS[version], href: `${config.baseUrl}/nodeinfo/${version}` })),
});

/** The Mastodon version whose client API this server implements ("4.3.0"). */
export const mastodonApiLevel = () => MASTODON_COMPATIBILITY.version;

/**
 * NodeInfo 2.0 or 2.1 (the same document: 2.1 only adds optional fields). The
 * software is named for what it is; `metadata.upstream` says whose API it speaks, which is how client libraries (megalodon's detector)
 * recognise Mastodon-compatible servers that are not Mastodon.
 */
export async function nodeinfo(version: NodeinfoVersion = '2.0') {
  const [settings, stats, activeMonth, activeHalfyear] = await Promise.all([
    recentInstanceSettings(),
    instanceStats(),
    activeUsers(MONTH_DAYS),
    activeUsers(HALF_YEAR_DAYS),
  ]);
  return {
    version,
    // 2.1's optional software.repository and software.homepage are left out: the project publishes neither.
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

/** The local account a WebFinger resource's username names; 404 for an unknown or remote one. */
export async function webfingerAccount(username: string): Promise<Account> {
  if (!USERNAME.test(username)) throw notFound();
  const account = await accountByUsername(username);
  if (!account || account.domain !== null) throw notFound();
  return account;
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
