// The PreviewCard entity (https://docs.joinmastodon.org/entities/PreviewCard/), Mastodon 4.3:
// the card of the first link of a status, as the cards worker stored it (lib/db/cards.ts).
// `authors` (4.3) carries the page's author when it names one; no fediverse account is linked
// (Mastodon links one from `fediverse:creator`, which we do not read), so `account` is null.
// The image is our copy in the media bucket, never the page's own URL.
import type { PreviewCard } from '../db/cards';
import { mediaUrl } from '../media/storage';

export function renderCard(card: PreviewCard | undefined): Record<string, unknown> | null {
  if (!card) return null;
  return {
    url: card.url,
    title: card.title,
    description: card.description,
    language: card.language,
    type: card.type,
    author_name: card.authorName,
    author_url: card.authorUrl,
    provider_name: card.providerName,
    provider_url: card.providerUrl,
    html: card.html,
    width: card.width,
    height: card.height,
    image: card.imageKey ? mediaUrl(card.imageKey) : null,
    image_description: card.imageDescription,
    embed_url: card.embedUrl,
    blurhash: card.blurhash,
    published_at: card.publishedAt,
    authors: card.authorName || card.authorUrl ? [{ name: card.authorName, url: card.authorUrl, account: null }] : [],
  };
}
