// Plain text to a flat list of segments. Rendering (HTML) and counting (length
// limits) both walk these segments, so a new kind of entity is added here once:
// the @mention and #hashtag issue adds `{ kind: 'mention' }` / `{ kind: 'hashtag' }`
// members to `Segment` and a pass in `tokenizeLine` that splits text segments.
import { tokenize } from 'linkifyjs';

export type TextSegment = { kind: 'text'; text: string };
/** An http(s) URL as the user typed it (`text`) and its normalized form (`href`). */
export type UrlSegment = { kind: 'url'; text: string; href: string };
export type Segment = TextSegment | UrlSegment;

/** Only absolute http(s) URLs typed with their scheme become links, as in Mastodon. */
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

/** Splits one line (no newlines) into text and URL segments; adjacent text is merged. */
export function tokenizeLine(line: string): Segment[] {
  const out: Segment[] = [];
  const pushText = (text: string) => {
    if (text === '') return;
    const last = out[out.length - 1];
    if (last?.kind === 'text') last.text += text;
    else out.push({ kind: 'text', text });
  };
  for (const token of tokenize(line)) {
    const value = token.toString();
    const href = token.t === 'url' ? asHttpUrl(value) : undefined;
    if (href) out.push({ kind: 'url', text: value, href });
    else pushText(value);
  }
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
