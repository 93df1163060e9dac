// The texts of a status as sent to the service, and what comes back as the Translation's fields, as Mastodon's
// TranslateStatusService builds them. Everything is sent as HTML: the content as served, the content warning,
// poll options and media descriptions escaped. What must not be translated is marked `translate="no"`, which
// both services keep as it is: the custom emoji shortcodes the status uses (`:blobcat:` would otherwise come
// back as `:blobchat:` and show no emoji), mentions and hashtags (names, not words). What comes back is
// untrusted markup from another server: the content goes through the one sanitiser of remote HTML and is
// bounded in bytes, the other fields become plain text.
import { Parser } from 'htmlparser2';
import { boundedRemoteHtml, htmlToText, truncateUtf8 } from '../federation/sanitize';
import { escapeHtml } from '../text/html';

/** A translation may run longer than its source (100 kB at most, lib/federation/notes.ts): room for that, within an item. */
export const MAX_CONTENT_BYTES = 150_000;
export const MAX_SPOILER_BYTES = 10_000;
export const MAX_POLL_OPTION_BYTES = 2_000;
export const MAX_DESCRIPTION_BYTES = 10_000;

// As the emoji renderer reads a shortcode (lib/render/emoji.ts).
const SHORTCODE = /:([a-zA-Z0-9_]{2,100}):/g;

/** Elements that have no end tag in HTML. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const attributes = (attribs: Record<string, string>) =>
  Object.entries(attribs).map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join('');

/** Escaped text with each known emoji shortcode kept from translation. */
function protectShortcodes(escaped: string, known: ReadonlySet<string>): string {
  if (known.size === 0) return escaped;
  return escaped.replace(SHORTCODE, (whole, code: string) => (known.has(code) ? `<span translate="no">${whole}</span>` : whole));
}

/** Plain text (a content warning, a poll option, a description) as the HTML sent. */
export const plainSource = (text: string, known: ReadonlySet<string> = new Set()): string => protectShortcodes(escapeHtml(text), known);

/** A status's HTML content as sent: mentions, hashtags and known shortcodes marked `translate="no"`. */
export function contentSource(html: string, known: ReadonlySet<string>): string {
  const out: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const classes = (attribs.class ?? '').split(/\s+/);
        const isName = (name === 'span' && classes.includes('h-card')) || (name === 'a' && (classes.includes('mention') || classes.includes('hashtag')));
        out.push(`<${name}${attributes(isName ? { ...attribs, translate: 'no' } : attribs)}>`);
      },
      ontext(text) {
        out.push(protectShortcodes(escapeHtml(text), known));
      },
      onclosetag(name) {
        if (!VOID.has(name)) out.push(`</${name}>`);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.join('');
}

/** The marks taken off again: a span that only marked a shortcode goes (its text stays), the attribute goes elsewhere. */
function withoutMarks(html: string): string {
  const out: string[] = [];
  // For each open element, whether its tags were left out.
  const open: boolean[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const { translate, ...rest } = attribs;
        const dropped = name === 'span' && translate !== undefined && Object.keys(rest).length === 0;
        open.push(dropped);
        if (!dropped) out.push(`<${name}${attributes(rest)}>`);
      },
      ontext(text) {
        out.push(escapeHtml(text));
      },
      onclosetag(name) {
        const dropped = open.pop() ?? false;
        if (!dropped && !VOID.has(name)) out.push(`</${name}>`);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.join('');
}

/** The translated content as served: sanitised as any remote HTML, bounded. */
export const translatedContent = (html: string): string => boundedRemoteHtml(withoutMarks(html), MAX_CONTENT_BYTES);

/** A translated plain field: its markup (the marks among it) gone, entities decoded, bounded. */
export const translatedPlain = (html: string, maxBytes: number): string => truncateUtf8(htmlToText(html), maxBytes);
