// GET /api/v1/domain_blocks/preview (Mastodon 4.4's DomainBlocks::PreviewsController): what blocking a domain
// would sever for the caller, as REST::DomainBlockPreviewSerializer shows it: how many accounts on the domain
// the caller follows (Mastodon 4.4 removes those follows on a domain block) and how many follow the caller.
import type { Account } from '../db/accounts';
import { accountsOnDomain, followedAmong, followedIdsPage, followersBehindHost } from '../db/domain_block_preview';
import { domainAccountIdsPage } from '../db/instance_domain_blocks';
import type { Item } from '../db/table';

export type DomainBlockPreview = { following_count: number; followers_count: number };

/**
 * What it costs:
 * - followers: two Queries of the caller's follower inbox counts under the domain's host (one item per inbox
 *   there, usually one): never a read per follower. A follower is counted under the host of the inbox it was
 *   counted under when it followed, which is its server's (a server whose shared inbox lives on another host is
 *   counted under that host);
 * - following: the smaller side, known before reading it. The caller's following count is on its account item;
 *   one Query of the domain's known accounts, asking one more than that count, tells whether the domain is
 *   smaller. Then either BatchGets of the caller's edges to the domain's F accounts (F <= following count), or
 *   the caller's edges page by page with BatchGets of their accounts: ceil(min(following, accounts known from
 *   the domain) / 100) BatchGets in all, never a walk of both.
 */
export async function previewDomainBlock(viewer: Account, domain: string): Promise<DomainBlockPreview> {
  const [following, followers] = await Promise.all([followingOnDomain(viewer, domain), followersBehindHost(viewer.id, domain)]);
  return { following_count: following, followers_count: followers };
}

async function followingOnDomain(viewer: Account, domain: string): Promise<number> {
  if (viewer.followingCount <= 0) return 0;
  const known = await domainAccountIdsPage(domain, viewer.followingCount + 1);
  if (known.ids.length <= viewer.followingCount && !known.lastKey) return followedAmong(viewer.id, known.ids);
  let count = 0;
  let start: Item | undefined;
  do {
    const page = await followedIdsPage(viewer.id, start);
    count += await accountsOnDomain(page.ids, domain);
    start = page.lastKey;
  } while (start);
  return count;
}
