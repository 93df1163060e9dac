// Direct conversations (Mastodon's AccountConversation): per participant, a
// pointer item keyed by the thread's conversationId, and a list entry keyed by
// the conversation's last status id (the order and paging of the list). Both
// carry the same attributes and change together in one transaction.
import { z } from 'zod';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import { getItem, transact, type TransactItem } from './table';

export const conversationItem = z.object({
  accountId: z.string(),
  conversationId: z.string(),
  lastStatusId: z.string(),
  /** The other participants (never the owner). */
  participantIds: z.array(z.string()),
  unread: z.boolean(),
});
export type Conversation = z.infer<typeof conversationItem>;

export const conversationOf = (accountId: string, conversationId: string) => getItem(keys.conversation(accountId, conversationId), conversationItem, true);

/** One page of an account's conversations, most recently active first (list entries keyed by last status id). */
export const conversationsPage = (accountId: string, page: Page) =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.conversationsPartition(accountId) }, page, conversationItem);

/** Replaces the pointer and moves the list entry, if the pointer still holds `previous` (none: absent). */
export async function putConversation(next: Conversation, previous: Conversation | undefined): Promise<boolean> {
  const record = conversationItem.parse(next);
  const items: TransactItem[] = [
    {
      Put: {
        Item: { ...keys.conversation(next.accountId, next.conversationId), ...record },
        ...(previous
          ? { ConditionExpression: 'lastStatusId = :last AND unread = :unread', ExpressionAttributeValues: { ':last': previous.lastStatusId, ':unread': previous.unread } }
          : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    },
  ];
  if (previous && previous.lastStatusId !== next.lastStatusId) items.push({ Delete: { Key: keys.conversationEntry(previous.accountId, previous.lastStatusId) } });
  items.push({ Put: { Item: { ...keys.conversationEntry(next.accountId, next.lastStatusId), ...record } } });
  const result = await transact(items);
  return result.ok;
}

/** Removes the pointer and the list entry, if the pointer still holds `current`. */
export async function removeConversation(current: Conversation): Promise<boolean> {
  const result = await transact([
    {
      Delete: {
        Key: keys.conversation(current.accountId, current.conversationId),
        ConditionExpression: 'lastStatusId = :last',
        ExpressionAttributeValues: { ':last': current.lastStatusId },
      },
    },
    { Delete: { Key: keys.conversationEntry(current.accountId, current.lastStatusId) } },
  ]);
  return result.ok;
}
