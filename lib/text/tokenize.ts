// The one linkifier: where a text (a status, a profile note or field) has links, found as Mastodon finds them,
// with twitter-text's URL extractor (Mastodon's TextFormatter is built on it, for statuses and profiles alike).
// Only absolute http(s) URLs typed with their scheme become links. As on Mastodon, a host must end in a known
// top-level domain: `localhost`, an IP address or `alpha.test` is not linked.
//
// Profiles also read plain text as a flat list of segments: rendering (HTML) and counting (length limits) both
// walk them.
import extractUrlsWithIndices from 'twitter-text/dist/extractUrlsWithIndices.js';

export type TextSegment = { kind: 'text'; text: string };
/** An http(s) URL as the user typed it (`text`) and its normalized form (`href`). */
export type UrlSegment = { kind: 'url'; text: string; href: string };
export type Segment = TextSegment | UrlSegment;

/** A link found in a text: [start, end) in UTF-16 code units, as typed, and normalized. */
export type FoundUrl = { start: number; end: number; text: string; href: string };

const SCHEME = /^https?:\/\//i;

function asHttpUrl(candidate: string): string | undefined {
  if (!SCHEME.test(candidate)) return undefined;
  try {
    const url = new URL(candidate);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** The http(s) URLs of `text`, in order. */
export function findUrls(text: string): FoundUrl[] {
  const out: FoundUrl[] = [];
  for (const u of extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: false })) {
    const href = asHttpUrl(u.url);
    if (href) out.push({ start: u.indices[0], end: u.indices[1], text: u.url, href });
  }
  return out;
}

/** Splits one line (no newlines) into text and URL segments. */
export function tokenizeLine(line: string): Segment[] {
  const out: Segment[] = [];
  let reached = 0;
  for (const url of findUrls(line)) {
    if (url.start > reached) out.push({ kind: 'text', text: line.slice(reached, url.start) });
    out.push({ kind: 'url', text: url.text, href: url.href });
    reached = url.end;
  }
  if (reached < line.length) out.push({ kind: 'text', text: line.slice(reached) });
  return out;
}

/**
 * Paragraphs of lines of segments. Line endings are normalized, the text is
 * trimmed, blank (or whitespace-only) lines separate paragraphs.
 */
export function tokenizeText(text: string): Segment[][][] {
  const lines = text.replace(/\r\n?/g, '\n').trim().split('\n');
  const paragraphs: Segment[][][] = [];
  let current: Segment[][] = [];
  for (const line of lines) {
    if (line.trim() === '') {
      if (current.length > 0) paragraphs.push(current);
      current = [];
    } else {
      current.push(tokenizeLine(line));
    }
  }
  if (current.length > 0) paragraphs.push(current);
  return paragraphs;
}
