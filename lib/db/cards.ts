// Preview cards (https://docs.joinmastodon.org/entities/PreviewCard/): one item per URL,
// fetched once by the cards worker and shared by every status that links to it.
// CONTRACT: the cards area owns this file and defines the item's schema and its access patterns.
export type PreviewCard = {
  url: string;
  title: string;
  description: string;
  type: 'link' | 'photo' | 'video' | 'rich';
  authorName: string;
  authorUrl: string;
  providerName: string;
  providerUrl: string;
  html: string;
  width: number;
  height: number;
  /** Our copy of the card's image (S3 key), when it has one. */
  imageKey: string | null;
  imageDescription: string;
  embedUrl: string;
  blurhash: string | null;
  language: string | null;
  publishedAt: string | null;
};
