// A card's fields from what a page says about itself (./page.ts) and, when it names one, its
// oEmbed answer, as Mastodon 4.3's LinkDetailsExtractor and FetchLinkCardService decide them:
// OpenGraph first, then Twitter's tags, then <title> and <meta name="description">; a
// `twitter:player` makes a video card with an iframe; oEmbed's photo, video and rich types
// win over the page's tags (a rich or video embed only if an iframe survives sanitising).
// A page with neither a title nor an embed gets no card. Pure: no I/O.
import type { PreviewCard } from '../db/cards';
import { isLanguageCode } from '../text/languages';
import { normaliseCardUrl } from './link';
import { sanitizeEmbedHtml, type PageMeta } from './page';

/** A card before its image is copied: the page's image URL, still to be fetched. */
export type CardDraft = Omit<PreviewCard, 'imageKey' | 'blurhash'> & { imageUrl: string | undefined };

/** Caps that keep one card item far below DynamoDB's item size, whatever a page puts in its tags. */
const MAX_TEXT = 1000;
const MAX_HTML = 4000;
const cap = (text: string | undefined, max = MAX_TEXT) => (text ?? '').replace(/\s+/g, ' ').trim().slice(0, max);

const dimension = (value: unknown): number => {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isInteger(n) && n > 0 && n < 100_000 ? n : 0;
};

const first = (meta: Map<string, string>, ...names: string[]): string | undefined => {
  for (const name of names) {
    const value = meta.get(name);
    if (value !== undefined && value.trim() !== '') return value;
  }
  return undefined;
};

/** `og:locale` (en_US) or <html lang> (en-GB) as an ISO 639-1 code, when it is one. */
function languageOf(raw: string | undefined): string | null {
  const code = raw?.trim().split(/[-_]/)[0]?.toLowerCase();
  return code && isLanguageCode(code) ? code : null;
}

function publishedAtOf(raw: string | undefined): string | null {
  if (!raw) return null;
  const time = Date.parse(raw);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

const playerIframe = (src: string, width: number, height: number) =>
  sanitizeEmbedHtml(`<iframe src="${src.replace(/"/g, '&quot;')}" width="${width}" height="${height}" allowfullscreen="true" scrolling="no" frameborder="0"></iframe>`);

/** The card a page's own tags describe; `pageUrl` (where it was finally served) resolves relative URLs. */
export function draftFromPage(url: string, pageUrl: string, page: PageMeta): CardDraft {
  const { meta } = page;
  const resolve = (raw: string | undefined) => (raw ? normaliseCardUrl(raw, pageUrl) : undefined);
  const player = resolve(first(meta, 'twitter:player'));
  const width = player ? dimension(first(meta, 'twitter:player:width')) : 0;
  const height = player ? dimension(first(meta, 'twitter:player:height')) : 0;
  return {
    url,
    type: player ? 'video' : 'link',
    title: cap(first(meta, 'og:title', 'twitter:title') ?? page.title),
    description: cap(first(meta, 'og:description', 'twitter:description', 'description')),
    imageUrl: resolve(first(meta, 'og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src')),
    imageDescription: cap(first(meta, 'og:image:alt', 'twitter:image:alt')),
    html: player ? playerIframe(player, width, height) : '',
    width,
    height,
    providerName: cap(first(meta, 'og:site_name')),
    providerUrl: resolve(first(meta, 'og:site')) ?? '',
    authorName: cap(first(meta, 'og:author', 'og:author:username', 'author')),
    authorUrl: '',
    embedUrl: resolve(first(meta, 'twitter:player:stream')) ?? '',
    language: languageOf(first(meta, 'og:locale') ?? page.lang),
    publishedAt: publishedAtOf(first(meta, 'article:published_time')),
  };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/**
 * The page's card with its oEmbed answer laid over it (`endpoint` resolves the answer's relative URLs); the page's
 * card unchanged when the answer is not one we take (unknown type, a photo without a URL, an embed without an iframe).
 */
export function withOEmbed(draft: CardDraft, embed: Record<string, unknown>, endpoint: string): CardDraft {
  const resolve = (raw: unknown) => (typeof raw === 'string' && raw !== '' ? normaliseCardUrl(raw, endpoint) : undefined);
  const common = {
    ...draft,
    title: cap(text(embed.title) ?? draft.title),
    authorName: cap(text(embed.author_name) ?? draft.authorName),
    authorUrl: resolve(embed.author_url) ?? draft.authorUrl,
    providerName: cap(text(embed.provider_name) ?? draft.providerName),
    providerUrl: resolve(embed.provider_url) ?? draft.providerUrl,
  };
  switch (embed.type) {
    case 'link':
      return { ...common, type: 'link', imageUrl: resolve(embed.thumbnail_url) ?? draft.imageUrl };
    case 'photo': {
      const photo = resolve(embed.url);
      if (!photo) return draft;
      return { ...common, type: 'photo', html: '', embedUrl: photo, imageUrl: photo, width: dimension(embed.width), height: dimension(embed.height) };
    }
    case 'video':
    case 'rich': {
      const html = typeof embed.html === 'string' ? sanitizeEmbedHtml(embed.html) : '';
      if (html === '' || html.length > MAX_HTML) return draft;
      return { ...common, type: embed.type, html, imageUrl: resolve(embed.thumbnail_url) ?? draft.imageUrl, width: dimension(embed.width), height: dimension(embed.height) };
    }
    default:
      return draft;
  }
}

/** A draft worth a card: a title or an embed (Mastodon drops the rest). */
export const isUsableDraft = (draft: CardDraft) => draft.title !== '' || draft.html !== '';
