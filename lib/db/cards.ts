// Preview cards (https://docs.joinmastodon.org/entities/PreviewCard/): one item per URL,
// fetched once by the cards worker (lib/cards/) and shared by every status that links to it.
// The item holds the card (absent while none could be made), when it was last fetched and
// last tried (a failure is remembered, so a dead link is not fetched again for every status
// that shares it), and the claim of the worker fetching it now (two workers do not fetch
// one URL at once). A status names its card in `cardUrl`; a page of statuses reads the
// cards in its own batch read (lib/db/status_page.ts).
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, getItem, putItem, updateItem, type Item } from './table';

export const cardTypes = ['link', 'photo', 'video', 'rich'] as const;

export const previewCard = z.object({
  /** The normalised URL the card was made for (the key); what statuses link to. */
  url: z.string(),
  title: z.string(),
  description: z.string(),
  type: z.enum(cardTypes),
  authorName: z.string(),
  authorUrl: z.string(),
  providerName: z.string(),
  providerUrl: z.string(),
  /** Sanitised embed HTML (iframes only), or ''. */
  html: z.string(),
  /** The embed's size (video, photo), else our copy of the image's size; 0 when unknown. */
  width: z.number().int(),
  height: z.number().int(),
  /** Our copy of the card's image (S3 key), when it has one. */
  imageKey: z.string().nullable(),
  imageDescription: z.string(),
  embedUrl: z.string(),
  blurhash: z.string().nullable(),
  language: z.string().nullable(),
  publishedAt: z.string().nullable(),
});
export type PreviewCard = z.infer<typeof previewCard>;

export const cardItem = z.object({
  url: z.string(),
  /** Absent when no card could be made (yet). */
  card: previewCard.optional(),
  /** The last fetch that made the card. */
  fetchedAt: z.string().nullable().default(null),
  /** The last attempt, whatever came of it. */
  triedAt: z.string().nullable().default(null),
  /** Why the last attempt made no card (logs, tests). */
  failure: z.string().optional(),
  /** A worker fetching the URL now (epoch ms), until it stores the result. */
  claimedAt: z.number().optional(),
});
export type CardItem = z.infer<typeof cardItem>;

/** What is stored for a URL (strongly consistent: the worker decides from it whether to fetch). */
export const cardItemByUrl = (url: string): Promise<CardItem | undefined> => getItem(keys.card(url), cardItem, true);

/** The cards of many URLs in one batch read (100 keys per call); URLs without a card are absent. Link trends read them. */
export async function cardsByUrls(urls: string[]): Promise<Map<string, PreviewCard>> {
  const found = await batchGet([...new Set(urls)].map(keys.card), cardItem);
  const out = new Map<string, PreviewCard>();
  for (const item of found.values()) if (item.card) out.set(item.url, item.card);
  return out;
}

/**
 * Claims the fetch of `url` for this worker: true unless another worker claimed it less than `staleMs` ago
 * (one that died holding it is taken over). Keeps whatever card the item already holds.
 */
export async function claimCardFetch(url: string, staleMs: number): Promise<boolean> {
  const now = Date.now();
  const claimed = await updateItem(
    {
      Key: keys.card(url),
      UpdateExpression: 'SET #url = :url, claimedAt = :now',
      ConditionExpression: 'attribute_not_exists(claimedAt) OR claimedAt < :stale',
      ExpressionAttributeNames: { '#url': 'url' },
      ExpressionAttributeValues: { ':url': url, ':now': now, ':stale': now - staleMs },
    },
    z.object({}).passthrough(),
  );
  return claimed !== undefined;
}

/** Stores a fetch's outcome, ending the claim: the new card, or (card undefined) the failure beside the card kept from before. */
export async function storeCardOutcome(outcome: { url: string; card?: PreviewCard; fetchedAt: string | null; failure?: string }): Promise<void> {
  const at = new Date().toISOString();
  const item: Item = cardItem.parse({ url: outcome.url, card: outcome.card, fetchedAt: outcome.fetchedAt, triedAt: at, failure: outcome.failure });
  await putItem({ ...keys.card(outcome.url), ...item });
}

/** Why attaching a card to a status wrote nothing: the status is gone, or was edited since it was read. */
export type CardAttachFailure = 'status-gone' | 'status-changed';

/**
 * Sets (or, with null, removes) the card URL of a status, only while the status is still at the version that was
 * read (`editedAt`): an edit meanwhile has queued a card fetch of its own, which decides for the new text.
 */
export async function setStatusCardUrl(
  status: { id: string; editedAt: string | null },
  cardUrl: string | null,
): Promise<{ ok: true } | { failed: CardAttachFailure }> {
  const unchanged = status.editedAt === null ? '(attribute_not_exists(#ed) OR attribute_type(#ed, :nullType))' : '#ed = :edited';
  const updated = await updateItem(
    {
      Key: keys.status(status.id),
      UpdateExpression: cardUrl === null ? 'REMOVE cardUrl' : 'SET cardUrl = :card',
      ConditionExpression: `attribute_exists(PK) AND ${unchanged}`,
      ExpressionAttributeNames: { '#ed': 'editedAt' },
      ExpressionAttributeValues: {
        ...(cardUrl === null ? {} : { ':card': cardUrl }),
        ...(status.editedAt === null ? { ':nullType': 'NULL' } : { ':edited': status.editedAt }),
      },
    },
    z.object({ id: z.string() }).passthrough(),
  );
  if (updated) return { ok: true };
  const still = await getItem(keys.status(status.id), z.object({ id: z.string() }).passthrough(), true);
  return { failed: still ? 'status-changed' : 'status-gone' };
}
