// oEmbed of a local status (Mastodon's Api::OEmbedController and OEmbedSerializer): a status URL of ours, as
// the status page (`/@user/:id`) or the Note (`/users/user/statuses/:id`) names it, answered when anyone may
// read the status (public or unlisted, its author not suspended).
//
// The html: an iframe of the status's embed page (`/@user/:id/embed`, ./pages.ts statusEmbedPage), which any site
// may frame and which runs nothing. Mastodon 4.4 sends a <blockquote> that its embed.js turns into the same iframe;
// this server serves no script for other sites to load, so the iframe is given at once, as Mastodon did before 4.3.
import { config } from '../config';
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { HttpError, notFound } from '../errors';
import { escapeHtml } from '../text/html';
import { publicStatusOf } from './documents';
import { apUrls } from './urls';

/** Mastodon's default width of an embed; the height is left to the embed unless asked. */
export const DEFAULT_EMBED_WIDTH = 400;
/** A day, as Mastodon tells consumers to keep the answer. */
const CACHE_AGE = 86_400;

/** The username and status id a URL of ours names, or undefined when it names no status of this server. */
export function statusOfUrl(raw: string): { username: string; id: string } | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const ours = [new URL(config.baseUrl).host, config.domain].map((h) => h.toLowerCase());
  if (!['https:', 'http:'].includes(url.protocol) || !ours.includes(url.host.toLowerCase())) return undefined;
  const path = url.pathname.replace(/\/+$/, '');
  const match = /^\/@([A-Za-z0-9_]+)\/(\d{1,20})$/.exec(path) ?? /^\/users\/([A-Za-z0-9_]+)\/statuses\/(\d{1,20})$/.exec(path);
  return match ? { username: match[1]!, id: match[2]! } : undefined;
}

export type OEmbed = {
  type: 'rich';
  version: '1.0';
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  cache_age: number;
  html: string;
  width: number;
  height: number | null;
};

/** The oEmbed of the status `url` names; 404 when it names none anyone may read. */
export async function oembedOf(url: string, size: { maxwidth?: number; maxheight?: number }): Promise<OEmbed> {
  const named = statusOfUrl(url);
  if (!named) throw notFound();
  const { status, author } = await publicStatusOf(named.username, named.id).catch((err: unknown) => {
    // A suspended author's statuses answer 403 as documents; for an embed they are simply not there.
    if (err instanceof HttpError && err.status === 403) throw notFound();
    throw err;
  });
  return renderOEmbed(status, author, size.maxwidth ?? DEFAULT_EMBED_WIDTH, size.maxheight ?? null);
}

function renderOEmbed(status: Status, author: Account, width: number, height: number | null): OEmbed {
  const name = author.displayName.trim() === '' ? author.username : author.displayName;
  const embed = `${apUrls.statusPage(author.username, status.id)}/embed`;
  const html =
    `<iframe src="${escapeHtml(embed)}" class="mastodon-embed" style="max-width: 100%; border: 0" width="${width}"` +
    `${height !== null ? ` height="${height}"` : ''} allowfullscreen="allowfullscreen" title="Post by @${escapeHtml(author.username)}@${escapeHtml(config.domain)}"></iframe>`;
  return {
    type: 'rich',
    version: '1.0',
    author_name: name,
    author_url: apUrls.profile(author.username),
    provider_name: config.domain,
    provider_url: `${config.baseUrl}/`,
    cache_age: CACHE_AGE,
    html,
    width,
    height,
  };
}
