// What every interaction starts from: the status the viewer named, if they may
// see it, and the status the interaction really applies to (a reblog's original,
// as Mastodon's Favourite and Bookmark models do).
import type { Account } from '../db/accounts';
import { statusById, type Status } from '../db/statuses';
import { notFound } from '../errors';
import { mayView, viewableStatus } from '../policy';

export type Target = { shown: Status; target: Status };

/** The status named by `id` and the one the interaction applies to; 404 when either cannot be seen. */
export async function interactionTarget(id: string, viewer: Account): Promise<Target> {
  const shown = await viewableStatus(id, viewer);
  if (!shown.reblogOfId) return { shown, target: shown };
  const original = await statusById(shown.reblogOfId);
  if (!original || !(await mayView(viewer, original))) throw notFound();
  return { shown, target: original };
}

/** The status as it is now (a strongly consistent read), so counters in the answer include this request's change. */
export async function currentStatus(id: string): Promise<Status> {
  const status = await statusById(id, true);
  if (!status) throw notFound();
  return status;
}
