// Who may see a status (Mastodon's StatusPolicy#show?, without blocks yet):
// public and unlisted: anyone; private: the author, followers and mentioned
// accounts; direct: the author and mentioned accounts. Every endpoint that
// shows statuses asks here; nothing else decides.
import type { Account } from '../db/accounts';
import { followEdges } from '../db/follows';
import { statusById, type Status } from '../db/statuses';
import { notFound } from '../errors';
import { isId } from '../ids';

const isMentioned = (status: Status, viewer: Account) => status.mentions.some((m) => m.id === viewer.id);

/** Decided without a follow lookup; `undefined` when only the follow edge can tell (private, viewer not author or mentioned). */
function decideWithoutEdges(status: Status, viewer: Account | undefined): boolean | undefined {
  if (status.visibility === 'public' || status.visibility === 'unlisted') return true;
  if (!viewer) return false;
  if (status.accountId === viewer.id || isMentioned(status, viewer)) return true;
  if (status.visibility === 'direct') return false;
  return undefined;
}

export async function canView(status: Status, viewer: Account | undefined): Promise<boolean> {
  const decided = decideWithoutEdges(status, viewer);
  if (decided !== undefined || !viewer) return decided ?? false;
  const edges = await followEdges(viewer.id, [status.accountId]);
  return edges.has(status.accountId);
}

/** The status if the viewer may see it; 404 "Record not found" otherwise (also for ids that cannot exist). */
export async function viewableStatus(id: string, viewer: Account | undefined): Promise<Status> {
  if (!isId(id)) throw notFound();
  const status = await statusById(id);
  if (!status || !(await canView(status, viewer))) throw notFound();
  return status;
}

/** The statuses the viewer may see, in input order; at most one batch read of follow edges. */
export async function filterViewable(statuses: Status[], viewer: Account | undefined): Promise<Status[]> {
  const pending = statuses.filter((s) => decideWithoutEdges(s, viewer) === undefined);
  const edges = viewer && pending.length > 0 ? await followEdges(viewer.id, [...new Set(pending.map((s) => s.accountId))]) : new Map();
  return statuses.filter((s) => decideWithoutEdges(s, viewer) ?? edges.has(s.accountId));
}
