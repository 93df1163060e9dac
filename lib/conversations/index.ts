// Conversations of direct statuses (Mastodon's AccountConversation): every
// direct status updates one conversation per participant (author and mentioned
// local accounts), keyed by the thread's conversationId: its last status, the
// other participants (accumulated over the thread), and `unread` (set for every
// participant but the author). Called right after posting (lib/statuses/create.ts).
import { accountsByIds, type Account } from '../db/accounts';
import { conversationOf, conversationsPage, putConversation, removeConversation, type Conversation } from '../db/conversations';
import { statusesByIds, type Status } from '../db/statuses';
import { notFound } from '../errors';
import type { Page } from '../paging';
import { isId } from '../ids';
import { renderAccount } from '../render/account';
import { renderStatuses } from '../render/status';
import { isDirect, visibleTo } from '../policy';

/** Conditional writes retried this often when a concurrent update moved the conversation first. */
const ATTEMPTS = 4;
const newer = (a: string, b: string) => BigInt(a) > BigInt(b);

async function recordFor(ownerId: string, status: Status, participants: string[]): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const previous = await conversationOf(ownerId, status.conversationId);
    if (previous && !newer(status.id, previous.lastStatusId)) return;
    const others = new Set([...(previous?.participantIds ?? []), ...participants.filter((id) => id !== ownerId)]);
    const next: Conversation = {
      accountId: ownerId,
      conversationId: status.conversationId,
      lastStatusId: status.id,
      participantIds: [...others],
      unread: ownerId !== status.accountId,
    };
    if (await putConversation(next, previous)) return;
  }
  throw new Error(`conversation ${status.conversationId} of ${ownerId}: too many concurrent updates`);
}

/** Updates the conversation of every participant of a direct status; other visibilities are ignored. */
export async function recordDirectStatus(status: Status): Promise<void> {
  if (!isDirect(status) || status.reblogOfId) return;
  const participants = [...new Set([status.accountId, ...status.mentions.map((m) => m.id)])];
  await Promise.all(participants.map((owner) => recordFor(owner, status, participants)));
}

/** `pagingIds`: each rendered conversation's paging id (its last status's), by the conversation's id. */
export type ConversationPage = { conversations: Record<string, unknown>[]; pagingIds: Map<string, string>; newest?: string; oldest?: string };

/** Renders conversations whose last status the viewer may still see: one batch read each of statuses and accounts. */
async function renderConversations(list: Conversation[], viewer: Account): Promise<{ conversation: Conversation; rendered: Record<string, unknown> }[]> {
  const statuses = await statusesByIds(list.map((c) => c.lastStatusId));
  const visible = new Set((await visibleTo(viewer, [...statuses.values()], 'conversations')).map((s) => s.id));
  const shown = list.filter((c) => visible.has(c.lastStatusId));
  const accounts = await accountsByIds([...new Set(shown.flatMap((c) => c.participantIds))]);
  const rendered = await renderStatuses(shown.flatMap((c) => {
      const s = statuses.get(c.lastStatusId);
      return s ? [s] : [];
    }), viewer);
  return shown.map((conversation, i) => ({
    conversation,
    rendered: {
      id: conversation.conversationId,
      unread: conversation.unread,
      accounts: conversation.participantIds.flatMap((id) => {
        const a = accounts.get(id);
        return a ? [renderAccount(a)] : [];
      }),
      last_status: rendered[i] ?? null,
    },
  }));
}

/**
 * The viewer's conversation of a thread, rendered as GET /api/v1/conversations lists it (what the `direct`
 * stream's `conversation` event carries); undefined when the viewer has none or may not see its last status.
 */
export async function renderedConversation(viewer: Account, conversationId: string): Promise<Record<string, unknown> | undefined> {
  const found = await conversationOf(viewer.id, conversationId);
  if (!found) return undefined;
  const [shown] = await renderConversations([found], viewer);
  return shown?.rendered;
}

/** One page of the viewer's conversations, most recently active first; ids for Link are last status ids. */
export async function listConversations(viewer: Account, page: Page): Promise<ConversationPage> {
  const entries = await conversationsPage(viewer.id, page);
  const shown = await renderConversations(entries, viewer);
  return {
    conversations: shown.map((s) => s.rendered),
    pagingIds: new Map(shown.map((s) => [s.conversation.conversationId, s.conversation.lastStatusId])),
    newest: entries[0]?.lastStatusId,
    oldest: entries[entries.length - 1]?.lastStatusId,
  };
}

async function ownConversation(viewer: Account, id: string): Promise<Conversation> {
  if (!isId(id)) throw notFound();
  const found = await conversationOf(viewer.id, id);
  if (!found) throw notFound();
  return found;
}

/** POST /api/v1/conversations/:id/read: the conversation, no longer unread. */
export const markConversationRead = (viewer: Account, id: string) => markConversation(viewer, id, false);

/** POST /api/v1/conversations/:id/unread (Mastodon 4.4): the conversation, unread again. */
export const markConversationUnread = (viewer: Account, id: string) => markConversation(viewer, id, true);

async function markConversation(viewer: Account, id: string, unread: boolean): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await ownConversation(viewer, id);
    const next = { ...current, unread };
    if (current.unread === unread || (await putConversation(next, current))) {
      const [shown] = await renderConversations([next], viewer);
      if (!shown) throw notFound();
      return shown.rendered;
    }
  }
  throw new Error(`conversation ${id} of ${viewer.id}: too many concurrent updates`);
}

/** DELETE /api/v1/conversations/:id: removed from the viewer's list (a later direct status brings it back). */
export async function deleteConversation(viewer: Account, id: string): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await ownConversation(viewer, id);
    if (await removeConversation(current)) return;
  }
  throw new Error(`conversation ${id} of ${viewer.id}: too many concurrent updates`);
}
