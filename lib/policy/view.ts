// Who may see a status, and what a viewer sees of a list of them (Mastodon's
// StatusPolicy#show?, FeedManager#filter?, StatusFilter). Every read path asks
// here: one status with mayView (or viewableStatus), a page with visibleTo (a
// page of notifications: lib/policy/receive.ts, visibleNotifications).
//
// Visibility alone: public and unlisted, anyone; private, the author, followers
// and mentioned accounts; direct, the author and mentioned accounts. Blocks,
// mutes, domain blocks and `hide` filters then apply per context (see
// RULES). A single status read by id is judged on visibility only, as today's
// endpoints do.
import type { Account } from '../db/accounts';
import type { FilterContext } from '../db/filters';
import { followEdges } from '../db/follows';
import { statusById, type Status } from '../db/statuses';
import { notFound } from '../errors';
import { isId } from '../ids';
import { dropIrreversiblyFiltered } from './filters';
import { hiddenFor, withoutHidden, type Hidden } from './hidden';
import { withoutSilencedDomains } from './instance_domains';
import { authorShown } from './sanctions';
import { openToAnyone, isDirect } from './visibility';

// A quote mentions the quoted author silently (Mastodon's Quote#ensure_quoted_access): they may see it, as a mention would.
const isMentioned = (status: Status, viewer: Account) => status.mentions.some((m) => m.id === viewer.id) || status.quote?.quotedAccountId === viewer.id;

/** Decided without a follow lookup; `undefined` when only the follow edge can tell (private, viewer not author or mentioned). */
function decideWithoutEdges(status: Status, viewer: Account | undefined): boolean | undefined {
  if (openToAnyone(status)) return true;
  if (!viewer) return false;
  if (status.accountId === viewer.id || isMentioned(status, viewer)) return true;
  if (isDirect(status)) return false;
  return undefined;
}

/** What a caller may already know of the viewer's relations, saving the reads. */
export type Relations = {
  /** Does the viewer follow the status's author? */
  followsAuthor?: boolean;
};

/** May `viewer` (undefined: signed out) see `status`? One read of the follow edge, only for a private status of someone else. */
export async function mayView(viewer: Account | undefined, status: Status, relations: Relations = {}): Promise<boolean> {
  const decided = decideWithoutEdges(status, viewer);
  if (decided !== undefined || !viewer) return decided ?? false;
  if (relations.followsAuthor !== undefined) return relations.followsAuthor;
  const edges = await followEdges(viewer.id, [status.accountId]);
  return edges.has(status.accountId);
}

/**
 * The status if the viewer may see it; 404 "Record not found" otherwise (also for ids that cannot exist, and for
 * a suspended author's, as Mastodon's StatusPolicy#show?: one GetItem of the author, which the render then reuses).
 */
export async function viewableStatus(id: string, viewer: Account | undefined): Promise<Status> {
  if (!isId(id)) throw notFound();
  const status = await statusById(id);
  if (!status || !(await mayView(viewer, status)) || !(await authorShown(status, viewer?.id))) throw notFound();
  return status;
}

/** The statuses the viewer may see by visibility alone, in input order; at most one batch read of follow edges. */
async function viewable(statuses: Status[], viewer: Account | undefined): Promise<Status[]> {
  const pending = statuses.filter((s) => decideWithoutEdges(s, viewer) === undefined);
  const edges = viewer && pending.length > 0 ? await followEdges(viewer.id, [...new Set(pending.map((s) => s.accountId))]) : new Map();
  return statuses.filter((s) => decideWithoutEdges(s, viewer) ?? edges.has(s.accountId));
}

/** Where statuses are shown; each place has its rules. */
export type ViewContext = 'home' | 'list' | 'public' | 'thread' | 'search' | 'account' | 'saved' | 'conversations' | 'notifications' | 'lookup';

type Rules = {
  /** Drop statuses of (or reblogging, or replying to) accounts the viewer blocks either way, mutes, or whose domain the viewer blocks. */
  hidden: boolean;
  /** The viewer's `hide` filters of this filter context drop matching statuses (the viewer's own stay). */
  filters?: FilterContext;
};

/**
 * What applies besides visibility, as Mastodon reads them:
 * - home and lists: blocks, mutes and `hide` filters of `home` (filter_from_list? includes filter_from_home?);
 * - public and hashtag timelines, threads, search: blocks, mutes and `hide` filters of `public` (search too) or `thread`
 *   (Mastodon 4 leaves those to the client, through status.filtered; dropping them here hides them in every client);
 * - an account's statuses: `hide` filters of `account` (a block hides the whole profile before, blockedBetween; a mute does not);
 * - the viewer's own favourites and bookmarks (`saved`): nothing more;
 * - conversations and the statuses of notifications: nothing more (notifications are hidden by visibleNotifications);
 * - statuses asked for by id (`lookup`, GET /api/v1/statuses?id[]=): blocks, mutes and domain blocks, as Mastodon's
 *   StatusFilter in permitted_statuses_from_ids; no filters (the answer marks them `filtered`).
 */
const RULES: Record<ViewContext, Rules> = {
  home: { hidden: true, filters: 'home' },
  list: { hidden: true, filters: 'home' },
  public: { hidden: true, filters: 'public' },
  thread: { hidden: true, filters: 'thread' },
  search: { hidden: true, filters: 'public' },
  account: { hidden: false, filters: 'account' },
  saved: { hidden: false },
  conversations: { hidden: false },
  notifications: { hidden: false },
  lookup: { hidden: true },
};

/** What a caller has already read for the viewer (a search reads its hidden sets once for several pages). */
export type Known = { hidden?: Hidden };

/**
 * The statuses `viewer` sees in `context`, in input order: visibility, then
 * blocks, mutes and domain blocks, then `hide` filters, as RULES say. Each
 * step reads only when the previous one left something: at most one batch read
 * of follow edges, the viewer's block and mute partitions (one Query each) unless
 * `known`, the reblogged originals and (with domain blocks) the page's accounts,
 * the viewer's hide-filter summary (one GetItem-sized BatchGet).
 */
export async function visibleTo(viewer: Account | undefined, statuses: Status[], context: ViewContext, known: Known = {}): Promise<Status[]> {
  const rules = RULES[context];
  let shown = await viewable(statuses, viewer);
  // The operator's silenced servers stay out of public places for everyone, signed in or not.
  if (context === 'public') shown = await withoutSilencedDomains(shown);
  if (!viewer || shown.length === 0) return shown;
  if (rules.hidden) shown = await withoutHidden(shown, known.hidden ?? (await hiddenFor(viewer.id)));
  if (rules.filters) shown = await dropIrreversiblyFiltered(shown, viewer.id, rules.filters);
  return shown;
}
