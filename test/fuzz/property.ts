// What every answer to a hostile request must satisfy, and how a request and its
// answer are printed when it does not.
import type { FuzzRequest } from './arbitraries';
import { wire, type Answer } from './send';

/**
 * The pages a browser is sent to (the OAuth authorization, the e-mail confirmation, the
 * moderation pages and the strike pages) answer their errors as pages, as Mastodon's do:
 * a person reads them.
 */
const HTML_PAGES = /^\/(oauth\/authorize|auth\/|admin(\/|\?|$)|disputes\/)/;

const header = (a: Extract<Answer, { answered: true }>, name: string) => a.headers[name]?.[0];

/**
 * The problems with an answer (none when it is acceptable):
 * - the server answers, with a status below 500;
 * - a 4xx carries a JSON `{"error": string}` body (HEAD answers have no body to carry it, and
 *   the browser pages answer with HTML pages);
 * - a refused request wrote nothing: `X-Db-Writes: 0` on every handler's answer with a status >= 400.
 *   Answers made before any handler ran (the Node servers' own refusals of a malformed
 *   request) carry neither `X-Db-Calls` nor `X-Db-Writes` and touched no data.
 */
export function problems(req: FuzzRequest, answer: Answer): string[] {
  if (!answer.answered) return [`no answer: ${answer.reason}`];
  const out: string[] = [];
  const { status } = answer;
  if (status >= 500) out.push(`status ${status}`);
  const page = HTML_PAGES.test(req.target) && /^text\/html\b/i.test(header(answer, 'content-type') ?? '');
  if (status >= 400 && status < 500 && req.method.toUpperCase() !== 'HEAD' && !page) {
    const type = header(answer, 'content-type') ?? '';
    if (!/^application\/json\b/i.test(type)) out.push(`${status} with Content-Type ${JSON.stringify(type)}, not JSON`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    if (typeof error !== 'string') out.push(`${status} without a JSON {"error": string} body`);
  }
  if (status >= 400) {
    const writes = header(answer, 'x-db-writes');
    const fromHandler = header(answer, 'x-db-calls') !== undefined || header(answer, 'x-handler-ms') !== undefined;
    if (writes !== undefined && writes !== '0') out.push(`refused (${status}) after ${writes} DynamoDB writes`);
    if (writes === undefined && fromHandler) out.push(`refused (${status}) by a handler with no X-Db-Writes header`);
  }
  return out;
}

/** A byte string shown readably: escapes, and long runs cut to their length. */
export function show(bytes: string, max = 600): string {
  const escaped = (s: string) => JSON.stringify(s).slice(1, -1).replace(/[\x7f-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`);
  // Runs of one character (the huge fields) are shown as their length.
  let text = '';
  for (let i = 0; i < bytes.length && text.length <= max;) {
    let j = i + 1;
    while (j < bytes.length && bytes[j] === bytes[i]) j++;
    text += j - i >= 64 ? `⟪${escaped(bytes[i]!)} × ${j - i}⟫` : escaped(bytes.slice(i, j));
    i = j;
  }
  return text.length > max ? `${text.slice(0, max)}… (${bytes.length} bytes in all)` : text;
}

/**
 * The request as a reader wants it in a failure report: its route, then the bytes sent,
 * with fixtures left as their placeholders (`{{token:B}}`, `{{id:status}}`).
 */
export function describeRequest(req: FuzzRequest): string {
  const bytes = wire(req, { tokens: {}, ids: {} }, 'stack').toString('latin1');
  const end = bytes.indexOf(req.framing === 'lf-only' ? '\n\n' : '\r\n\r\n');
  const head = (end < 0 ? bytes : bytes.slice(0, end)).split(/\r?\n/);
  const body = end < 0 ? '' : bytes.slice(end + (req.framing === 'lf-only' ? 2 : 4));
  const lines = [`[${req.route}]${req.framing === 'normal' ? '' : ` framing=${req.framing}`}`, show(head[0] ?? '', 1_000)];
  const headers = head.slice(1);
  for (const line of headers.slice(0, 16)) lines.push(show(line, 300));
  if (headers.length > 16) lines.push(`… ${headers.length - 16} more header lines`);
  if (body.length > 0) lines.push('', show(body));
  return lines.join('\n  ');
}

export function describeAnswer(answer: Answer): string {
  if (!answer.answered) return `no answer (${answer.reason}) after ${answer.ms} ms; received ${show(answer.received.toString('latin1'), 300)}`;
  const headers = Object.entries(answer.headers).flatMap(([k, vs]) => vs.map((v) => `${k}: ${v}`));
  return [`${answer.status} after ${answer.ms} ms`, ...headers, '', show(answer.body.toString('latin1'), 400)].join('\n  ');
}
