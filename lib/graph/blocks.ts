// Blocking and muting (Mastodon's BlockService / UnblockService / MuteService):
// a block severs the follows and pending requests both ways in one transaction
// and takes each account's statuses out of the other's home (a remote account's
// server hears of it: lib/federation/send_moderation.ts); a mute only hides.
// What they hide on read is decided in lib/policy/hidden.ts.
import { isVisible, visibleAccountsByIds } from '../policy/accounts';
import type { Account } from '../db/accounts';
import { blocksPage, createBlock, deleteBlock, deleteMute, mutesPage, putMute, severedBy } from '../db/blocks';
import { graphStates, type GraphState } from '../db/follows';
import { unmergeFromHome } from '../db/home_merge';
import { nowIso } from '../db/table';
import { notFound } from '../errors';
import { followActivityId } from '../federation/activities';
import { sendRejectFollow, sendUndoFollow } from '../federation/outbox';
import { sendBlock, sendUndoBlock } from '../federation/send_moderation';
import { isId, newId } from '../ids';
import type { Page } from '../paging';
import type { AccountPage } from './followers_following';
import { renderRelationship, type Relationship } from './relationships';

/** The target and the state between it and the viewer in one batch read; 404 for unknown, hidden or self. */
async function targetState(viewer: Account, targetId: string): Promise<GraphState & { account: Account }> {
  if (!isId(targetId)) throw notFound();
  const id = BigInt(targetId).toString();
  const state = (await graphStates(viewer.id, [id])).get(id);
  const account = state?.account;
  if (!state || !account || !isVisible(account) || account.id === viewer.id) throw notFound();
  return { ...state, account };
}

/** Attempts before giving up when the follows between the two keep changing under the block. */
const BLOCK_ATTEMPTS = 3;

export async function block(viewer: Account, targetId: string): Promise<Relationship> {
  let state = await targetState(viewer, targetId);
  const target = state.account;
  if (!state.blocking) {
    const record = { id: newId(), accountId: viewer.id, targetAccountId: target.id, createdAt: nowIso() };
    for (let attempt = 1; ; attempt++) {
      if (await createBlock(record, severedBy(state))) break;
      if (attempt >= BLOCK_ATTEMPTS) throw new Error('block: follow state kept changing');
      state = await targetState(viewer, targetId);
      if (state.blocking) break;
    }
    // Each side's statuses leave the other's home (also filtered on read meanwhile).
    await Promise.all([unmergeFromHome(viewer.id, target.id), unmergeFromHome(target.id, viewer.id)]);
    await tellRemoteOfSevered(viewer, state);
    await sendBlock(viewer, target, record.id);
  }
  return renderRelationship(target.id, {
    ...state,
    following: undefined,
    followedBy: undefined,
    requested: undefined,
    requestedBy: undefined,
    blocking: true,
  });
}

/**
 * A remote account's server hears that the follows a block severed no longer
 * stand, as Mastodon's UnfollowService tells it: an Undo of our Follow (or of
 * our pending request), a Reject of theirs. Nothing for a local account.
 */
async function tellRemoteOfSevered(viewer: Account, state: GraphState & { account: Account }): Promise<void> {
  const target = state.account;
  const ours = state.following ?? state.requested;
  if (ours) await sendUndoFollow(viewer, target, ours.activityId ?? followActivityId(viewer, ours.id));
  const theirs = state.followedBy ?? state.requestedBy;
  if (theirs) await sendRejectFollow(viewer, target, theirs.activityId);
}

export async function unblock(viewer: Account, targetId: string): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  const lifted = state.blocking ? await deleteBlock(viewer.id, state.account.id) : undefined;
  if (lifted) await sendUndoBlock(viewer, state.account, lifted.id);
  return renderRelationship(state.account.id, { ...state, blocking: false });
}

export async function mute(viewer: Account, targetId: string, options: { notifications: boolean; duration: number }): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  const record = {
    id: state.muting?.id ?? newId(),
    accountId: viewer.id,
    targetAccountId: state.account.id,
    notifications: options.notifications,
    expiresAt: options.duration > 0 ? Math.floor(Date.now() / 1000) + options.duration : null,
    createdAt: state.muting?.createdAt ?? nowIso(),
  };
  await putMute(record);
  return renderRelationship(state.account.id, { ...state, muting: record });
}

export async function unmute(viewer: Account, targetId: string): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  if (state.muting) await deleteMute(viewer.id, state.account.id);
  return renderRelationship(state.account.id, { ...state, muting: undefined });
}

async function accountPage(ids: string[]): Promise<AccountPage> {
  return {
    accounts: await visibleAccountsByIds(ids),
    newest: ids[0],
    oldest: ids.at(-1),
  };
}

export const blockedAccounts = async (viewer: Account, page: Page) =>
  accountPage((await blocksPage(viewer.id, page)).map((b) => b.targetAccountId));

export const mutedAccounts = async (viewer: Account, page: Page) =>
  accountPage((await mutesPage(viewer.id, page)).map((m) => m.targetAccountId));
