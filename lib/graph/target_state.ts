// The account an /api/v1/accounts/:id/<action> acts on, with the state between it and
// the viewer, in one batch read (lib/db/follows.ts graphStates): what the actions of
// issue 14 (note, remove_from_followers) start from and answer a Relationship with.
import { isVisible } from '../policy/accounts';
import type { Account } from '../db/accounts';
import { graphStates, type GraphState } from '../db/follows';
import { notFound } from '../errors';
import { isId } from '../ids';

export type TargetState = GraphState & { account: Account };

/** 404 for a malformed id, an unknown account or one others may not see yet (as Mastodon's Account.find). */
export async function targetState(viewer: Account, targetId: string): Promise<TargetState> {
  if (!isId(targetId)) throw notFound();
  const id = BigInt(targetId).toString();
  const state = (await graphStates(viewer.id, [id])).get(id);
  const account = state?.account;
  if (!state || !account || !isVisible(account)) throw notFound();
  return { ...state, account };
}
