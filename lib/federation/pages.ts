// The plain web pages of a local account and of one of its statuses, for a browser
// that follows a profile or status link from another server. Everything a user
// typed is escaped here; the only HTML taken as it is, is the server's own rendering
// of the bio, the profile fields and the statuses (lib/text: escaped text, links).
import { config } from '../config';
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { html, raw, type Reply } from '../http';
import { mediaUrl } from '../media/storage';
import { escapeHtml } from '../text/html';
import { apUrls } from './urls';

const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
header{display:flex;gap:1rem;align-items:center}header img{width:4rem;height:4rem;border-radius:.5rem}
h1{margin:0;font-size:1.4rem}.handle{margin:0;color:#666}article{border-top:1px solid #ddd;padding:.75rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}.meta{color:#666;font-size:.9rem}`;

const handleOf = (account: Account) => `@${account.username}@${config.domain}`;
const nameOf = (account: Account) => (account.displayName.trim() === '' ? account.username : account.displayName);

function layout(title: string, alternate: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="alternate" type="application/activity+json" href="${escapeHtml(alternate)}">
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** Avatars and attachments live on the media host: the page's Content-Security-Policy lets images come from there. */
function pageReply(body: string): Reply {
  let mediaOrigin = '';
  try {
    mediaOrigin = ` ${new URL(config.mediaUrl).origin}`;
  } catch {
    // no media host configured: images from this origin only
  }
  return html(body, 200, {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:${mediaOrigin}; frame-ancestors 'none'`,
    'Cache-Control': 'public, max-age=60',
    Vary: 'Accept',
  });
}

function accountHeader(account: Account): string {
  const avatar = account.avatarKey ? `<img src="${escapeHtml(mediaUrl(account.avatarKey))}" alt="">` : '';
  return `<header>${avatar}<div><h1>${escapeHtml(nameOf(account))}</h1><p class="handle">${escapeHtml(handleOf(account))}</p></div></header>`;
}

function statusArticle(status: Status, author: Account): string {
  const link = apUrls.statusPage(author.username, status.id);
  const warning = status.spoilerText === '' ? '' : `<p><strong>${escapeHtml(status.spoilerText)}</strong></p>`;
  const when = `<a href="${escapeHtml(link)}"><time datetime="${escapeHtml(status.createdAt)}">${escapeHtml(status.createdAt.slice(0, 16).replace('T', ' '))}</time></a>`;
  return `<article>${warning}<div class="content">${status.contentHtml}</div><p class="meta">${when}</p></article>`;
}

function fieldsList(account: Account): string {
  if (account.fieldsHtml.length === 0) return '';
  return `<dl>${account.fieldsHtml.map((f) => `<dt>${escapeHtml(f.name)}</dt><dd>${f.value}</dd>`).join('')}</dl>`;
}

/** A local account's page: name, handle, bio, fields, counts and its latest public statuses. */
export function profilePage(account: Account, recent: Status[]): Reply {
  const counts = `<p class="meta">${account.statusesCount} posts · ${account.followingCount} following · ${account.followersCount} followers</p>`;
  const posts = recent.length === 0 ? '<p class="meta">No public posts yet.</p>' : recent.map((s) => statusArticle(s, account)).join('\n');
  const body = `${accountHeader(account)}
<section class="note">${account.noteHtml}</section>
${fieldsList(account)}
${counts}
<h2>Posts</h2>
${posts}`;
  return pageReply(layout(`${nameOf(account)} (${handleOf(account)})`, apUrls.actor(account.username), body));
}

/** One status's page, under its author's name. */
export function statusPage(status: Status, author: Account): Reply {
  const body = `${accountHeader(author)}
${statusArticle(status, author)}
<p><a href="${escapeHtml(apUrls.profile(author.username))}">More from ${escapeHtml(nameOf(author))}</a></p>`;
  return pageReply(layout(`${nameOf(author)}: ${status.spoilerText || status.text.slice(0, 60)}`, apUrls.status(author.username, status.id), body));
}

/**
 * A status as other sites embed it (`/@user/:id/embed`, what an oEmbed's iframe shows: ./oembed.ts): the status
 * alone, under its author, for any page to frame. Nothing in it runs (no script may load), so being framed lends a
 * framing page nothing to click through; its links open the status here.
 */
export function statusEmbedPage(status: Status, author: Account): Reply {
  const body = `${accountHeader(author)}
${statusArticle(status, author)}`;
  const page = layout(`${nameOf(author)}: ${status.spoilerText || status.text.slice(0, 60)}`, apUrls.status(author.username, status.id), body)
    .replace('<head>', '<head>\n<base target="_blank">');
  let mediaOrigin = '';
  try {
    mediaOrigin = ` ${new URL(config.mediaUrl).origin}`;
  } catch {
    // no media host configured: images from this origin only
  }
  return raw(page, 'text/html; charset=utf-8', 200, {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:${mediaOrigin}; frame-ancestors *`,
    'Cache-Control': 'public, max-age=60',
    'Referrer-Policy': 'same-origin',
    Vary: 'Accept',
  });
}
