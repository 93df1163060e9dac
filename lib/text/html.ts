// Segments to HTML. Everything the user typed is escaped; the only markup is
// the server's own (<p>, <br />, <a>, <span>), so the output is safe to insert.
import escape from 'escape-html';
import type { Segment, UrlSegment } from './tokenize';

/** C0 and C1 control characters and DEL, but tab, newline and carriage return. */
export const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** Text without control characters (but tab, newline and return): they show as nothing or as garbage. */
export const withoutControls = (text: string): string => text.replace(CONTROLS, '');

/**
 * Text as HTML: escaped, and without control characters, which HTML does not allow
 * (the source text keeps what was typed; the HTML every client shows does not carry them).
 */
export const escapeHtml = (text: string): string => escape(withoutControls(text));

/** Characters of a link shown before Mastodon's ellipsis. */
const DISPLAY_LENGTH = 30;
const HIDDEN_PREFIX = /^(https?:\/\/(www\.)?)/i;

/**
 * Mastodon's link form: the scheme (and `www.`) hidden, the first 30 characters
 * shown, the rest hidden behind an ellipsis class. Clients (the web UI, Elk,
 * Phanpy) style `invisible` and `ellipsis`; others show the text as it is.
 */
export function linkHtml(url: UrlSegment, rel: string): string {
  const prefix = HIDDEN_PREFIX.exec(url.text)?.[1] ?? '';
  const rest = [...url.text.slice(prefix.length)];
  const shown = rest.slice(0, DISPLAY_LENGTH).join('');
  const hidden = rest.slice(DISPLAY_LENGTH).join('');
  return (
    `<a href="${escapeHtml(url.href)}" target="_blank" rel="${rel}">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${hidden ? 'ellipsis' : ''}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}

export type RenderOptions = { rel: string };

export function segmentsHtml(segments: Segment[], opts: RenderOptions): string {
  return segments
    .map((segment) => {
      switch (segment.kind) {
        case 'text':
          return escapeHtml(segment.text);
        case 'url':
          return linkHtml(segment, opts.rel);
      }
    })
    .join('');
}
