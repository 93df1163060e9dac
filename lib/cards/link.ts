// Which link of a status gets a preview card, as Mastodon's FetchLinkCardService picks it: the
// first http(s) link of its HTML that is not a hashtag (rel="tag"), not a mention (class u-url,
// mention or h-card, or the URL of an account it mentions) and not a page of this server. A
// status with attachments or a poll gets no card, nor does a reblog (its original has one).
// Local and remote statuses are read the same way, from their rendered HTML: ours marks
// hashtags and mentions exactly as Mastodon's does (lib/text/status.ts).
import { Parser } from 'htmlparser2';
import { config } from '../config';
import type { Status } from '../db/statuses';
import { MAX_URL_LENGTH } from '../federation/guard';

/**
 * The form a card is stored and looked up under: parsed and re-serialised (host lower-cased, default port and
 * dot segments dropped), without the fragment, which names a place in the same page. Undefined if not http(s).
 */
export function normaliseCardUrl(raw: string, base?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname === '' || url.username !== '' || url.password !== '') return undefined;
  url.hash = '';
  return url.href.length > MAX_URL_LENGTH ? undefined : url.href;
}

const isOwnUrl = (url: string) => new URL(url).host === new URL(config.baseUrl).host;

const classesOf = (attrs: Record<string, string>) => (attrs.class ?? '').split(/\s+/);
const isTagOrMention = (attrs: Record<string, string>) =>
  (attrs.rel ?? '').split(/\s+/).includes('tag') || classesOf(attrs).some((c) => c === 'u-url' || c === 'mention' || c === 'h-card');

/** Every href of the HTML's links that is neither a hashtag nor a mention by its markup, in order. */
function linkHrefs(html: string): string[] {
  const hrefs: string[] = [];
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'a' && attrs.href && !isTagOrMention(attrs)) hrefs.push(attrs.href);
    },
  });
  parser.write(html);
  parser.end();
  return hrefs;
}

/** The URL whose card the status shows (normalised), or undefined when it should have none. */
export function cardLinkOf(status: Pick<Status, 'contentHtml' | 'mediaIds' | 'pollId' | 'reblogOfId' | 'mentions'>): string | undefined {
  if (status.reblogOfId || status.mediaIds.length > 0 || status.pollId) return undefined;
  const mentioned = new Set(status.mentions.map((m) => m.url));
  for (const href of linkHrefs(status.contentHtml)) {
    if (mentioned.has(href)) continue;
    const url = normaliseCardUrl(href);
    if (url && !isOwnUrl(url)) return url;
  }
  return undefined;
}
