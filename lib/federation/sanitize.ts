// Remote HTML (an actor's summary and field values, a Note's content) as we
// store and serve it: reduced to the small set of tags Mastodon keeps, with
// sanitize-html. Everything else goes, its text kept (a <script> or <style>
// goes whole); links keep only safe schemes and are marked nofollow; classes
// only those clients read (mentions, hashtags, microformats, link shortening).
// Every piece of remote HTML goes through here, and only here.
import sanitizeHtml from 'sanitize-html';

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

/** Remote HTML reduced to the tags and attributes Mastodon allows. */
export function sanitizeRemoteHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS).trim();
}

/** Remote HTML (or plain text) as plain text: for names and other places that show no markup. */
export function htmlToText(html: string): string {
  const text = sanitizeHtml(html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/p>\s*<p[^>]*>/gi, '\n\n'), {
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
    .trim();
}
