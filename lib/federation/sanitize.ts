// Remote HTML (an actor's summary and field values, a Note's content) as we
// store and serve it: reduced to the small set of tags Mastodon keeps, with
// sanitize-html. Everything else goes, its text kept (a <script> or <style>
// goes whole); links keep only safe schemes and are marked nofollow; classes
// only those clients read (mentions, hashtags, microformats, link shortening).
// Every piece of remote HTML goes through here, and only here.
//
// Here too what every stored remote string is bounded by: control characters
// out (C0 and C1 but tab, newline and return: they show as nothing or as
// garbage, and a page of them costs bytes without showing anything), and a size
// in UTF-8 bytes, which is what DynamoDB's item limit and AWS's response limits
// count (a character can be four of them).
import { Parser } from 'htmlparser2';
import sanitizeHtml from 'sanitize-html';
import { CONTROLS, withoutControls } from '../text/html';

export { withoutControls };

/** The protocols a link may use (the web, and the decentralised schemes Mastodon also keeps). */
const LINK_SCHEMES = ['http', 'https', 'dat', 'dweb', 'ipfs', 'ipns', 'ssb', 'gopher', 'xmpp', 'magnet', 'gemini'];

/** Classes clients style or read: microformats (`h-card`, `u-url`...), mentions, hashtags, shortened links. */
const KEPT_CLASSES = ['h-*', 'p-*', 'u-*', 'dt-*', 'e-*', 'mention', 'hashtag', 'ellipsis', 'invisible'];

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'span', 'a', 'del', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 'ul', 'ol', 'li', 'blockquote'],
  allowedAttributes: { a: ['href', 'rel', 'class'], span: ['class'] },
  allowedClasses: { a: KEPT_CLASSES, span: KEPT_CLASSES },
  allowedSchemes: LINK_SCHEMES,
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // Unknown tags go, their text stays; these go with their content, which is never prose.
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head', 'template', 'svg', 'math'],
  // No style attribute is let through, so none is parsed: the function bundles carry no postcss
  // (serverless.yml, infra/bundle/postcss-unused.cjs).
  parseStyleAttributes: false,
  transformTags: {
    // A heading stays a paragraph of its own rather than running into the next one.
    h1: 'p', h2: 'p', h3: 'p', h4: 'p', h5: 'p', h6: 'p',
    // Links leave for other sites: no referrer, no opener, no credit for ranking.
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener noreferrer' } }),
  },
};

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The first `units` UTF-16 code units of `text`, less a surrogate pair's first half left alone at the end. */
export const headOf = (text: string, units: number): string => {
  const head = text.slice(0, units);
  return /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
};

/** Marks where a text was cut. */
const ELLIPSIS = '…';

/**
 * The longest start of `text` within `maxBytes` UTF-8 bytes, cut between code points (never inside a surrogate
 * pair), ending with an ellipsis when something was cut.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most three bytes: most texts are measured by their length alone.
  if (text.length * 3 <= maxBytes || utf8Bytes(text) <= maxBytes) return text;
  const room = maxBytes - utf8Bytes(ELLIPSIS);
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const size = ch.length === 2 ? 4 : ch.charCodeAt(0) < 0x80 ? 1 : ch.charCodeAt(0) < 0x800 ? 2 : 3;
    if (used + size > room) break;
    used += size;
    end += ch.length;
  }
  return room < 0 ? '' : text.slice(0, end) + ELLIPSIS;
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const VOID_TAGS = new Set(['br']);

/**
 * Sanitised HTML (the output of sanitizeRemoteHtml) within `maxBytes` UTF-8 bytes: elements are kept whole or
 * left out, text is cut between characters (an entity is a character here: never cut inside one) and ends with
 * an ellipsis, and the elements still open are closed within the bound.
 */
export function truncateHtml(html: string, maxBytes: number): string {
  if (html.length * 3 <= maxBytes || utf8Bytes(html) <= maxBytes) return html;
  const out: string[] = [];
  const open: string[] = [];
  let used = 0;
  // What closing the open elements will take: always kept free.
  let closing = 0;
  let full = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (full) return;
        const tag = `<${name}${Object.entries(attribs).map(([k, v]) => ` ${k}="${escapeText(v)}"`).join('')}>`;
        const close = VOID_TAGS.has(name) ? 0 : name.length + 3;
        if (used + utf8Bytes(tag) + close + closing > maxBytes) {
          full = true;
          return;
        }
        out.push(tag);
        used += utf8Bytes(tag);
        if (close > 0) {
          open.push(name);
          closing += close;
        }
      },
      ontext(text) {
        if (full) return;
        const escaped = escapeText(text);
        if (used + utf8Bytes(escaped) + closing <= maxBytes) {
          out.push(escaped);
          used += utf8Bytes(escaped);
          return;
        }
        full = true;
        const room = maxBytes - used - closing - utf8Bytes(ELLIPSIS);
        if (room < 0) return;
        let piece = '';
        let size = 0;
        for (const ch of text) {
          const e = escapeText(ch);
          const b = utf8Bytes(e);
          if (size + b > room) break;
          piece += e;
          size += b;
        }
        out.push(piece + ELLIPSIS);
      },
      onclosetag(name) {
        if (full || VOID_TAGS.has(name) || open[open.length - 1] !== name) return;
        open.pop();
        closing -= name.length + 3;
        out.push(`</${name}>`);
        used += name.length + 3;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.join('') + open.reverse().map((name) => `</${name}>`).join('');
}

/**
 * Remote HTML reduced to the tags and attributes Mastodon allows, without control characters. They go before
 * sanitising, so that the link check sees the link as stored, and after, where an entity (`&#1;`) decoded to one.
 */
export function sanitizeRemoteHtml(html: string): string {
  return withoutControls(sanitizeHtml(withoutControls(html), OPTIONS)).trim();
}

/** Sanitised remote HTML within `maxBytes` UTF-8 bytes (see truncateHtml). */
export const boundedRemoteHtml = (html: string, maxBytes: number): string => truncateHtml(sanitizeRemoteHtml(html), maxBytes);

/** Remote HTML (or plain text) as plain text: for names and other places that show no markup. */
export function htmlToText(html: string): string {
  const text = sanitizeHtml(withoutControls(html).replace(/<br\s*\/?>/gi, '\n').replace(/<\/p>\s*<p[^>]*>/gi, '\n\n'), {
    allowedTags: [],
    allowedAttributes: {},
    nonTextTags: OPTIONS.nonTextTags,
    parseStyleAttributes: false,
  });
  // sanitize-html leaves entities escaped; plain text wants the characters.
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(CONTROLS, '')
    .trim();
}
