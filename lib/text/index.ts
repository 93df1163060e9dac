// Plain text as Mastodon renders a local profile: a note becomes paragraphs
// (<p>) split on blank lines with <br /> for single line breaks; a profile field
// value stays inline; http(s) URLs typed with their scheme become links.
import { segmentsHtml } from './html';
import { tokenizeLine, tokenizeText, type Segment } from './tokenize';

export { escapeHtml } from './html';
export type { Segment } from './tokenize';

const REL = 'nofollow noopener noreferrer';
/** Field links carry rel="me" so the linked page can be verified against the profile. */
const REL_ME = `me ${REL}`;

/** A note (profile bio) as HTML; '' for a blank note. */
export function noteToHtml(text: string): string {
  return tokenizeText(text)
    .map((lines) => `<p>${lines.map((line) => segmentsHtml(line, { rel: REL })).join('<br />')}</p>`)
    .join('');
}

/** A profile field value as inline HTML (line breaks become spaces, as a field is one line). */
export function fieldValueToHtml(text: string): string {
  return segmentsHtml(tokenizeLine(text.replace(/\s*[\r\n]+\s*/g, ' ').trim()), { rel: REL_ME });
}

/** Every URL counts as this many characters, whatever its length (Mastodon's rule). */
export const URL_COUNTED_LENGTH = 23;

const segmentLength = (segment: Segment): number => {
  switch (segment.kind) {
    case 'text':
      return [...segment.text].length;
    case 'url':
      return URL_COUNTED_LENGTH;
  }
};

/** The length that text limits apply to: characters (code points), with URLs counted as 23. */
export function countableLength(text: string): number {
  const lines = text.split('\n');
  let total = lines.length - 1;
  for (const line of lines) for (const segment of tokenizeLine(line)) total += segmentLength(segment);
  return total;
}
