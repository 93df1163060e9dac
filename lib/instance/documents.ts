// The operator's documents (terms of service, privacy policy) as the HTML clients are served: Markdown rendered
// as Mastodon renders them (raw HTML in the Markdown escaped, no images), or HTML the operator wrote; either way
// reduced to the tags a document needs, with sanitize-html, as lib/federation/sanitize.ts does for remote HTML.
// Rendered once, when the operator publishes (lib/admin/document_commands.ts): only the CLI loads this module.
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import type { DocumentFormat } from '../db/instance_documents';
import { withoutControls } from '../text/html';

/** What an operator's document may be, in UTF-8 bytes: a long legal text is some 50 kB; two copies fit an item. */
export const DOCUMENT_MAX_BYTES = 150_000;

const DOCUMENT_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u',
    'del', 's', 'ul', 'ol', 'li', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  ],
  allowedAttributes: { a: ['href', 'rel'], ol: ['start'], th: ['align'], td: ['align'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head', 'template', 'svg', 'math', 'iframe', 'object'],
  parseStyleAttributes: false,
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener noreferrer' } }),
  },
};

// html: false escapes any HTML written in the Markdown (Redcarpet's escape_html), and images are not rendered
// (no_images): a document shows no third-party content. Links stay as written, as Mastodon's do.
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false }).disable('image');

export const sanitizeDocumentHtml = (html: string): string =>
  withoutControls(sanitizeHtml(withoutControls(html), DOCUMENT_OPTIONS)).trim();

/** The served HTML of a document as the operator wrote it. `%{domain}` stays, replaced when served. */
export function renderDocument(source: string, format: DocumentFormat): string {
  const html = format === 'markdown' ? markdown.render(withoutControls(source)) : source;
  return sanitizeDocumentHtml(html);
}
