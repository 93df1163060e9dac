// GET /api/v1/statuses/:id/context: ancestors up the in_reply_to chain and
// descendants through the reply partitions, in thread (depth-first) order,
// each filtered by what the viewer may see. Limits as Mastodon 3.5
// (tighter without a signed-in viewer).
import type { Account } from '../db/accounts';
import { replyIdsOf, statusById, statusesByIds, type Status } from '../db/statuses';
import { visibleTo } from '../policy';

const LIMITS = {
  signedIn: { ancestors: 4096, descendants: 4096, depth: 4096 },
  anonymous: { ancestors: 40, descendants: 60, depth: 20 },
};

/** One read per step up: a reply names only its parent. */
async function ancestorsOf(status: Status, limit: number): Promise<Status[]> {
  const chain: Status[] = [];
  const seen = new Set([status.id]);
  let parentId = status.inReplyToId;
  while (parentId && chain.length < limit && !seen.has(parentId)) {
    seen.add(parentId);
    const parent = await statusById(parentId);
    if (!parent) break;
    chain.unshift(parent);
    parentId = parent.inReplyToId;
  }
  return chain;
}

/** Level by level (one Query per parent, one batch read per level), then laid out depth-first. */
async function descendantsOf(root: Status, limit: number, maxDepth: number): Promise<Status[]> {
  const children = new Map<string, string[]>();
  const byId = new Map<string, Status>();
  let level = [root.id];
  let total = 0;
  for (let depth = 0; depth < maxDepth && level.length > 0 && total < limit; depth++) {
    const lists = await Promise.all(level.map(async (id) => [id, await replyIdsOf(id)] as const));
    const next: string[] = [];
    for (const [parentId, ids] of lists) {
      const fresh = ids.filter((id) => !byId.has(id) && id !== root.id).slice(0, limit - total - next.length);
      children.set(parentId, fresh);
      next.push(...fresh);
    }
    const found = await statusesByIds(next);
    for (const [id, s] of found) byId.set(id, s);
    total += next.length;
    level = next.filter((id) => found.has(id));
  }
  const out: Status[] = [];
  const walk = (id: string) => {
    for (const childId of children.get(id) ?? []) {
      const child = byId.get(childId);
      if (!child) continue;
      out.push(child);
      walk(childId);
    }
  };
  walk(root.id);
  return out;
}

export async function statusContext(status: Status, viewer: Account | undefined): Promise<{ ancestors: Status[]; descendants: Status[] }> {
  const limits = viewer ? LIMITS.signedIn : LIMITS.anonymous;
  const [ancestors, descendants] = await Promise.all([ancestorsOf(status, limits.ancestors), descendantsOf(status, limits.descendants, limits.depth)]);
  const visible = await visibleTo(viewer, [...ancestors, ...descendants], 'thread');
  const shown = new Set(visible.map((s) => s.id));
  return { ancestors: ancestors.filter((s) => shown.has(s.id)), descendants: descendants.filter((s) => shown.has(s.id)) };
}
