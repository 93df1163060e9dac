// The cards worker's work (Mastodon's LinkCrawlWorker and FetchLinkCardService): give a status
// the preview card of its link. One card per URL serves every status that links to it: a card
// fetched less than two weeks ago is attached without fetching, and a URL that failed is not
// tried again for a day (the failure is stored, keeping any older card). Two workers never fetch
// one URL at once: the second finds the first's claim and comes back later through the queue's
// retry. Once attached, the status's streams hear `status.update` (no edit history, nobody is
// notified) and a public status counts toward the link's trend.
import {
  cardItemByUrl,
  claimCardFetch,
  setStatusCardUrl,
  storeCardOutcome,
  type CardItem,
  type PreviewCard,
} from '../db/cards';
import { statusById, type Status } from '../db/statuses';
import { log } from '../log';
import { deleteMediaQuietly } from '../media/storage';
import { isPublic } from '../policy';
import type { CardsMessage } from '../queue/messages';
import { publishStatusUpdate } from '../streaming/publish';
import { countLinkShare } from '../trends';
import { isUsableDraft, type CardDraft } from './details';
import { fetchCardDraft } from './fetch';
import { copyCardImage } from './image';
import { cardLinkOf } from './link';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Mastodon fetches a card again once it is two weeks old. */
export const CARD_FRESH_MS = 14 * DAY_MS;
/** A URL whose fetch failed (or made no card) is not tried again before this. */
export const CARD_RETRY_MS = DAY_MS;
/** Longer than the worker lives (60 s, functions/workers/functions.yml), shorter than the queue's visibility timeout (360 s). */
export const CARD_CLAIM_STALE_MS = 120_000;

/** Another worker is fetching the URL: the message fails, and the queue brings it back once that fetch is stored. */
export class CardFetchInProgress extends Error {
  constructor(readonly url: string) {
    super(`${url}: being fetched by another worker`);
    this.name = 'CardFetchInProgress';
  }
}

/** What one message did (logs, tests). */
export type CardOutcome = 'status-gone' | 'no-link' | 'no-card' | 'unchanged' | 'attached' | 'detached' | 'status-changed';

const ageOf = (iso: string | null) => (iso === null ? Infinity : Date.now() - Date.parse(iso));

/** Whether what is stored answers for the URL now, without fetching. */
const isCurrent = (item: CardItem) => (item.card !== undefined && ageOf(item.fetchedAt) < CARD_FRESH_MS) || ageOf(item.triedAt) < CARD_RETRY_MS;

/** The card a draft makes once its image is copied; a link card takes its size from the image. */
async function cardFromDraft(draft: CardDraft): Promise<PreviewCard> {
  const { imageUrl, ...fields } = draft;
  const image = imageUrl ? await copyCardImage(draft.url, imageUrl) : undefined;
  const sized = fields.type === 'link' && image ? { width: image.width, height: image.height } : {};
  return { ...fields, ...sized, imageKey: image?.imageKey ?? null, blurhash: image?.blurhash ?? null };
}

/** Fetches the card of `url` (claimed), stores what came of it, and answers the card to show (the older one if this fetch made none). */
async function fetchAndStore(url: string, before: CardItem | undefined): Promise<PreviewCard | undefined> {
  let draft: CardDraft;
  try {
    draft = await fetchCardDraft(url);
  } catch (err) {
    // Whatever the page did (refused address, not HTML, too slow, an error status, markup nothing could read).
    const failure = err instanceof Error ? err.message : String(err);
    log.info('cards: page not fetched', { url, failure });
    await storeCardOutcome({ url, card: before?.card, fetchedAt: before?.fetchedAt ?? null, failure });
    return before?.card;
  }
  if (!isUsableDraft(draft)) {
    await storeCardOutcome({ url, card: before?.card, fetchedAt: before?.fetchedAt ?? null, failure: 'the page has no title' });
    return before?.card;
  }
  const card = await cardFromDraft(draft);
  await storeCardOutcome({ url, card, fetchedAt: new Date().toISOString() });
  if (before?.card?.imageKey && before.card.imageKey !== card.imageKey) await deleteMediaQuietly([before.card.imageKey]);
  return card;
}

/** The card of `url`: the stored one while current, else fetched now. Throws CardFetchInProgress. */
export async function cardFor(url: string): Promise<PreviewCard | undefined> {
  const stored = await cardItemByUrl(url);
  if (stored && isCurrent(stored)) return stored.card;
  if (!(await claimCardFetch(url, CARD_CLAIM_STALE_MS))) throw new CardFetchInProgress(url);
  return fetchAndStore(url, stored);
}

/** Sets (or removes) the status's card and tells its streams; answers what happened. */
async function switchCard(status: Status, cardUrl: string | null): Promise<CardOutcome> {
  const written = await setStatusCardUrl(status, cardUrl);
  if ('failed' in written) return written.failed;
  const { cardUrl: _previous, ...rest } = status;
  const current: Status = cardUrl === null ? rest : { ...rest, cardUrl };
  await publishStatusUpdate(current);
  if (cardUrl !== null && isPublic(current)) await countLinkShare(cardUrl, current);
  return cardUrl === null ? 'detached' : 'attached';
}

/** One message: the status's card follows its current text. */
export async function processCardRequest(message: CardsMessage): Promise<CardOutcome> {
  const status = await statusById(message.statusId, true);
  if (!status) return 'status-gone';
  const url = cardLinkOf(status);
  if (!url) return status.cardUrl ? switchCard(status, null) : 'no-link';
  const card = await cardFor(url);
  if (!card) return status.cardUrl ? switchCard(status, null) : 'no-card';
  if (status.cardUrl === url) return 'unchanged';
  return switchCard(status, url);
}
