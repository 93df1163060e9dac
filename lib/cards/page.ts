// What a web page says about itself, read from its HTML with htmlparser2 (a forgiving,
// streaming tokenizer: broken or truncated markup yields what it can, never throws): the
// <meta> tags (OpenGraph `og:*` by `property`, Twitter `twitter:*` and `description` by
// `name`; either attribute is accepted, as Mastodon's LinkDetailsExtractor does), the
// first <title>, <html lang>, and the oEmbed discovery link. Pure: no I/O.
import { Parser } from 'htmlparser2';

export type PageMeta = {
  /** The first `content` of each meta name or property, lower-cased name. */
  meta: Map<string, string>;
  title: string | undefined;
  lang: string | undefined;
  /** `<link rel="alternate" type="application/json+oembed" href>`, as written. */
  oembedHref: string | undefined;
};

/** Pages put their metadata in <head>; a body's worth of tags is not read further. */
const MAX_META_TAGS = 500;

export function readPageMeta(html: string): PageMeta {
  const meta = new Map<string, string>();
  let title: string | undefined;
  let titleText: string[] | undefined;
  let lang: string | undefined;
  let oembedHref: string | undefined;
  let count = 0;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'html' && lang === undefined && attrs.lang) lang = attrs.lang;
        else if (name === 'meta' && attrs.content !== undefined && count < MAX_META_TAGS) {
          count++;
          for (const key of [attrs.property, attrs.name]) {
            const k = key?.trim().toLowerCase();
            if (k && !meta.has(k)) meta.set(k, attrs.content.trim());
          }
        } else if (name === 'link' && oembedHref === undefined && attrs.href) {
          const rels = (attrs.rel ?? '').toLowerCase().split(/\s+/);
          if (rels.includes('alternate') && (attrs.type ?? '').toLowerCase().trim() === 'application/json+oembed') oembedHref = attrs.href;
        } else if (name === 'title' && title === undefined && titleText === undefined) titleText = [];
      },
      ontext(text) {
        titleText?.push(text);
      },
      onclosetag(name) {
        if (name === 'title' && titleText !== undefined && title === undefined) {
          title = titleText.join('').replace(/\s+/g, ' ').trim();
          titleText = undefined;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { meta, title, lang, oembedHref };
}

const IFRAME_ATTRIBUTES = ['src', 'width', 'height', 'frameborder', 'allowfullscreen', 'scrolling'] as const;

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * An oEmbed provider's `html` with nothing but its iframes (as Mastodon's MASTODON_OEMBED sanitiser keeps): each
 * with an http(s) `src` and only the size and framing attributes; scripts, text and every other element go.
 * '' when no iframe is left.
 */
export function sanitizeEmbedHtml(html: string): string {
  const out: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name !== 'iframe') return;
        let src: URL;
        try {
          src = new URL(attrs.src ?? '');
        } catch {
          return;
        }
        if (src.protocol !== 'https:' && src.protocol !== 'http:') return;
        const kept = IFRAME_ATTRIBUTES.filter((a) => attrs[a] !== undefined).map((a) => (a === 'src' ? ` src="${escapeAttribute(src.href)}"` : ` ${a}="${escapeAttribute(attrs[a]!)}"`));
        out.push(`<iframe${kept.join('')}></iframe>`);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return out.join('');
}
