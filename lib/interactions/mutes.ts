// Mute and unmute a conversation (Mastodon's MutesController): keyed on the
// thread's root, so every status of the thread renders `muted`, and the
// notification worker can skip the thread's notifications.
import type { Account } from '../db/accounts';
import { muteConversation, unmuteConversation } from '../db/interactions';
import type { Status } from '../db/statuses';
import { viewableStatus } from '../policy';
import { currentStatus } from './target';

export async function mute(viewer: Account, id: string): Promise<Status> {
  const status = await viewableStatus(id, viewer);
  await muteConversation(viewer.id, status.conversationId);
  return currentStatus(status.id);
}

export async function unmute(viewer: Account, id: string): Promise<Status> {
  const status = await viewableStatus(id, viewer);
  await unmuteConversation(viewer.id, status.conversationId);
  return currentStatus(status.id);
}
