// Who may quote a status, and what a viewer is shown of a quote (Mastodon 4.5's
// Status::InteractionPolicyConcern#quote_policy_for_account, StatusPolicy#quote?
// and StatusFilter as the quote serializers ask it).
import type { Account } from '../db/accounts';
import { blockAndMuteSets } from '../db/blocks';
import { blockableDomain } from '../db/domain_blocks';
import type { QuotePolicy, Status } from '../db/statuses';
import { blockedBetween } from './hidden';
import { authorShown } from './sanctions';
import { mayView } from './view';
import { openToAnyone } from './visibility';

/** How a status's quote policy applies to one account (QuoteApproval's `current_user`). */
export type QuoteApprovalForViewer = 'automatic' | 'manual' | 'denied' | 'unknown';

/**
 * The policy a status has: what it was given, `nobody` when it has none (statuses from before quotes, as Mastodon's 0),
 * and always `nobody` for a private or direct one (Mastodon downgrades a local one's at save: only its author quotes it).
 */
export const quotePolicyOf = (status: Pick<Status, 'quoteApprovalPolicy' | 'visibility'>): QuotePolicy =>
  openToAnyone(status) ? status.quoteApprovalPolicy ?? 'nobody' : 'nobody';

/** The policy as QuoteApproval lists it: who is approved automatically, and who by hand (never, for policies set through the API). */
export function quoteApprovalLists(status: Pick<Status, 'quoteApprovalPolicy' | 'visibility'>): { automatic: string[]; manual: string[] } {
  const policy = quotePolicyOf(status);
  return { automatic: policy === 'nobody' ? [] : [policy], manual: [] };
}

/** Does the policy need to know whether `viewerId` follows the author? Only `followers`, for someone else. */
export const quoteApprovalNeedsFollow = (status: Pick<Status, 'quoteApprovalPolicy' | 'visibility' | 'accountId' | 'reblogOfId'>, viewerId: string | undefined): boolean =>
  viewerId !== undefined && status.accountId !== viewerId && !status.reblogOfId && quotePolicyOf(status) === 'followers';

/**
 * How the policy applies to `viewerId` (undefined: signed out, denied): its author always quotes it, nobody quotes a
 * direct status or a reblog; `followsAuthor` is asked only for a `followers` policy (quoteApprovalNeedsFollow).
 */
export function quoteApprovalFor(
  status: Pick<Status, 'quoteApprovalPolicy' | 'visibility' | 'accountId' | 'reblogOfId'>,
  viewerId: string | undefined,
  followsAuthor: () => boolean,
): QuoteApprovalForViewer {
  if (viewerId === undefined || status.visibility === 'direct' || status.reblogOfId) return 'denied';
  if (status.accountId === viewerId) return 'automatic';
  const policy = quotePolicyOf(status);
  if (policy === 'public') return 'automatic';
  if (policy === 'followers' && followsAuthor()) return 'automatic';
  return 'denied';
}

/**
 * May `viewer` quote `status` (StatusPolicy#quote?): see it, no block between them, and a policy that does not
 * deny it. Mastodon answers the same 404 for every refusal, so the caller need not know which rule refused.
 */
export async function mayQuote(viewer: Account, status: Status, followsAuthor: () => Promise<boolean>): Promise<boolean> {
  if (status.reblogOfId) return false;
  if (!(await mayView(viewer, status)) || !(await authorShown(status, viewer.id))) return false;
  if (status.accountId !== viewer.id && (await blockedBetween(viewer.id, status.accountId))) return false;
  const needsFollow = quoteApprovalNeedsFollow(status, viewer.id);
  const follows = needsFollow ? await followsAuthor() : false;
  return quoteApprovalFor(status, viewer.id, () => follows) !== 'denied';
}

/** The viewer-dependent states a quote shows instead of `accepted` (the Quote entity's extra states). */
export type QuoteFilterState = 'unauthorized' | 'blocked_account' | 'blocked_domain' | 'muted_account';

/** How a viewer stands towards a quoted author: what decides the quote's filter state. */
export type QuoteStanding = { blocks: boolean; blockedBy: boolean; mutes: boolean; blocksDomain: boolean };

/**
 * The state a quoted status's author makes the viewer see (StatusFilter as the quote serializers ask it): an author
 * who blocks the viewer makes it `unauthorized` (the viewer may not see it), one on a domain the viewer blocks
 * `blocked_domain`, one it blocks `blocked_account`, one it mutes `muted_account`; undefined when nothing hides it.
 */
export function quoteFilterState(standing: QuoteStanding): QuoteFilterState | undefined {
  if (standing.blockedBy) return 'unauthorized';
  if (standing.blocksDomain) return 'blocked_domain';
  if (standing.blocks) return 'blocked_account';
  if (standing.mutes) return 'muted_account';
  return undefined;
}

/**
 * The state of an accepted quote whose quoted status exists, for one viewer: its own status is always shown; one
 * it may not see (visibility, a suspended or missing author) is `unauthorized`; else what its author's standing says.
 */
export function acceptedQuoteState(quotedAuthorId: string, viewerId: string | undefined, shown: boolean, standing: () => QuoteStanding | undefined): 'accepted' | QuoteFilterState {
  if (quotedAuthorId === viewerId) return 'accepted';
  if (!shown) return 'unauthorized';
  const held = standing();
  return (held && quoteFilterState(held)) ?? 'accepted';
}

/** What a viewer's blocks and mutes say of quoted authors, read once for a page (none of it for a viewer without any). */
export type QuoteHides = {
  /** The state a quoted status by this author shows the viewer, or undefined when nothing hides it. */
  stateFor: (author: Pick<Account, 'id' | 'domain'>) => QuoteFilterState | undefined;
  /** Does the viewer block any domain (only then does an author's domain, which may cost a read, matter)? */
  blocksDomains: boolean;
};

const NOTHING: QuoteHides = { stateFor: () => undefined, blocksDomains: false };

/**
 * The viewer's block, blocked-by and mute partitions (each read once per invocation, and not at all when its
 * account says it is empty), judged by quoteFilterState.
 */
export async function quoteHidesFor(viewerId: string | undefined): Promise<QuoteHides> {
  if (!viewerId) return NOTHING;
  const sets = await blockAndMuteSets(viewerId);
  const blockedBy = new Set(sets.blockedBy.map((b) => b.accountId));
  const blocking = new Set(sets.blocking.map((b) => b.targetAccountId));
  const muting = new Set(sets.muting.map((m) => m.targetAccountId));
  const domains = new Set(sets.blockedDomains);
  if (blockedBy.size + blocking.size + muting.size + domains.size === 0) return NOTHING;
  return {
    stateFor: (author) => {
      if (author.id === viewerId) return undefined;
      const domain = blockableDomain(author);
      return quoteFilterState({
        blockedBy: blockedBy.has(author.id),
        blocksDomain: domain !== undefined && domains.has(domain),
        blocks: blocking.has(author.id),
        mutes: muting.has(author.id),
      });
    },
    blocksDomains: domains.size > 0,
  };
}
