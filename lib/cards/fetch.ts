// Fetching what a card is made of: the linked page and its oEmbed answer. Both go out through
// the federation's address guard (lib/federation/fetch.ts guardedGet: public addresses only,
// loopback and private ones only on the local stage with FEDERATION_ALLOW_PRIVATE, each
// redirect checked again, suspended servers never asked), unsigned (a web page is not an
// ActivityPub object), bounded in time and size. The page must be text/html; only its first
// megabyte is read, where its metadata is; a larger page is cut, not refused.
import { FetchFailed, guardedGet, jsonObject } from '../federation/fetch';
import { draftFromPage, withOEmbed, type CardDraft } from './details';
import { normaliseCardUrl } from './link';
import { readPageMeta } from './page';

export const MAX_PAGE_BYTES = 1024 * 1024;
export const MAX_OEMBED_BYTES = 64 * 1024;
/** The whole fetch of a page and its oEmbed answer. */
export const CARD_FETCH_TIMEOUT_MS = 5_000;
let fetchTimeoutMs = CARD_FETCH_TIMEOUT_MS;

/** Tests: a shorter time limit for a page that never answers (undefined restores it). */
export function useCardFetchTimeout(ms: number | undefined): void {
  fetchTimeoutMs = ms ?? CARD_FETCH_TIMEOUT_MS;
}

const isHtml = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase() === 'text/html';
const isJson = (contentType: string) => /^application\/(json|json\+oembed)$/i.test(contentType.split(';')[0]!.trim()) || contentType === '';

/** The charset a Content-Type names, if Node can decode it; UTF-8 otherwise. */
function decode(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)"?/i.exec(contentType)?.[1]?.toLowerCase();
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** The oEmbed answer a page points at, or undefined when it has none or it cannot be had (the page's tags then serve). */
async function fetchOEmbed(href: string, pageUrl: string, deadline: number): Promise<{ embed: Record<string, unknown>; endpoint: string } | undefined> {
  const endpoint = normaliseCardUrl(href, pageUrl);
  const timeoutMs = deadline - Date.now();
  if (!endpoint || timeoutMs <= 0) return undefined;
  try {
    const answer = await guardedGet(endpoint, { accept: 'application/json', maxBytes: MAX_OEMBED_BYTES, timeoutMs, acceptType: isJson, plainHttp: true });
    const embed = jsonObject(answer.body);
    return embed ? { embed, endpoint: answer.url } : undefined;
  } catch (err) {
    if (err instanceof FetchFailed) return undefined;
    throw err;
  }
}

/**
 * The card `url` describes, before its image is copied; FetchFailed when the page cannot be had (refused address,
 * not HTML, no answer in time, an error status).
 */
export async function fetchCardDraft(url: string): Promise<CardDraft> {
  const deadline = Date.now() + fetchTimeoutMs;
  const page = await guardedGet(url, {
    accept: 'text/html',
    maxBytes: MAX_PAGE_BYTES,
    timeoutMs: fetchTimeoutMs,
    truncate: true,
    acceptType: isHtml,
    // Mastodon makes cards of http pages too; the address guard holds all the same.
    plainHttp: true,
  });
  const meta = readPageMeta(decode(page.body, page.contentType));
  const draft = draftFromPage(url, page.url, meta);
  const oembed = meta.oembedHref ? await fetchOEmbed(meta.oembedHref, page.url, deadline) : undefined;
  return oembed ? withOEmbed(draft, oembed.embed, oembed.endpoint) : draft;
}
