// Machine translations of statuses (lib/translation/), kept a day as Mastodon keeps them in its cache: a client
// that shows a translated status again (a reload, another device, another viewer asking for the same language)
// costs no second call to the paid service. One item per (texts sent, source, target, service), keyed by their
// digest, so an edited status is translated anew; DynamoDB's TTL removes it, lazily, so reads check the time too.
import { z } from 'zod';
import * as keys from './keys';
import { expiresIn, getItem, putItem } from './table';

/** How long a translation is served from here: a day, Mastodon's TranslateStatusService::CACHE_TTL. */
export const TRANSLATION_CACHE_SECONDS = 86_400;

export const translationItem = z.object({
  /** Sanitised HTML. */
  content: z.string(),
  spoilerText: z.string(),
  /** The poll's option titles, in the poll's order; empty without a poll. */
  pollOptions: z.array(z.string()),
  /** The attachments' descriptions, in the status's order. */
  media: z.array(z.object({ id: z.string(), description: z.string() })),
  detectedSourceLanguage: z.string(),
  /** The language translated into. */
  language: z.string(),
  /** The service's name as Mastodon reports it (`DeepL.com`, `LibreTranslate`). */
  provider: z.string(),
});
export type StoredTranslation = z.infer<typeof translationItem>;

const keptItem = translationItem.extend({ expiresAt: z.number().int() });

/** The translation kept under `digest`, unless it has expired. */
export async function keptTranslation(digest: string): Promise<StoredTranslation | undefined> {
  const found = await getItem(keys.translation(digest), keptItem);
  if (!found || found.expiresAt <= Math.floor(Date.now() / 1000)) return undefined;
  // The item's own attributes (key, expiry) stay behind: zod keeps only the translation's.
  return translationItem.parse(found);
}

/** Keeps a translation for TRANSLATION_CACHE_SECONDS under `digest` (ItemTooLarge when it would not fit an item). */
export async function keepTranslation(digest: string, translation: StoredTranslation): Promise<void> {
  await putItem({ ...keys.translation(digest), ...translationItem.parse(translation), expiresAt: expiresIn(TRANSLATION_CACHE_SECONDS) });
}
