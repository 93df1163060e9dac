// The admin API's checks of what a block or allow names, with Rails' answers ("Validation failed: Domain is not a
// valid domain name"): every bad value is a 422 naming its field.
import { config } from '../config';
import { unprocessable } from '../errors';

const failed = (field: string, problem: string) => unprocessable(`Validation failed: ${field} ${problem}`);

/** Mastodon's limit on a block's comments. */
export const COMMENT_MAX = 1000;

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * A domain as blocks store it (lower-case, punycode, no trailing dot, a port kept), or a 422 naming `field`:
 * blank, not a host name, or this instance's own.
 */
export function domainField(value: unknown, field = 'Domain'): string {
  const text = typeof value === 'string' ? value.trim().replace(/\.$/, '') : '';
  if (text === '') throw failed(field, "can't be blank");
  if (/[\s/?#@\\*]/.test(text) || text.length > 253) throw failed(field, 'is not a valid domain name');
  let host: string;
  try {
    host = new URL(`https://${text}/`).host.toLowerCase();
  } catch {
    throw failed(field, 'is not a valid domain name');
  }
  const name = host.replace(/:\d+$/, '');
  if (name === '' || name.startsWith('[') || !name.split('.').every((label) => LABEL.test(label))) throw failed(field, 'is not a valid domain name');
  if (host === config.domain.toLowerCase() || name === config.domain.toLowerCase().replace(/:\d+$/, '')) throw failed(field, "is this server's own domain");
  return host;
}

/** A comment: trimmed, at most COMMENT_MAX characters, else a 422 naming `field`. */
export function commentField(value: unknown, field: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if ([...text].length > COMMENT_MAX) throw failed(field, `is too long (maximum is ${COMMENT_MAX} characters)`);
  return text;
}

/** One of `allowed`, else a 422 naming `field` (Rails' inclusion message). */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw failed(field, value === undefined || value === '' ? "can't be blank" : 'is not included in the list');
  return found;
}

export const validationFailed = failed;
