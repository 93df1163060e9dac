// Reading ActivityStreams as real peers send it: compacted JSON-LD in several
// shapes (a value or an array of them, an id or an embedded object, `as:Public`
// or `Public` or the full IRI). Every received document is read through these
// helpers, so no handler wonders whether `to` is a string or an array. A remote
// `@context` is never fetched: the shapes below are what the fediverse sends.
import { AS_PUBLIC } from './urls';

export type ApDocument = Record<string, unknown>;

const isObject = (value: unknown): value is ApDocument => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One value or an array of them, as an array (null and undefined as none). */
export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** An http(s) URL, or undefined. */
export function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An object's own id when it is an http(s) URL written as URL parsing writes it back: ids are compared and
 * keyed as strings, so one spelled another way (an upper-case host, a default port) could name the same
 * object twice. Undefined otherwise.
 */
export const canonicalId = (value: unknown): string | undefined => (typeof value === 'string' && httpUrl(value) === value ? value : undefined);

/** The id of a reference: the string itself, or an embedded object's `id`. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.id === 'string') return value.id;
  return undefined;
}

/** The ids of a property holding one or many references (strings or objects). */
export const idsOf = (value: unknown): string[] => asArray(value).flatMap((v) => idOf(v) ?? []);

/** The embedded object of a property, when it is one (and not a bare id). */
export const objectOf = (value: unknown): ApDocument | undefined => (isObject(value) ? value : undefined);

/** The `type` of a document (the first one when several are given). */
export function typeOf(doc: unknown): string | undefined {
  if (!isObject(doc)) return undefined;
  const first = asArray(doc.type)[0];
  return typeof first === 'string' ? first.replace(/^as:/, '') : undefined;
}

/** The host (with its port, lower-case) of an http(s) URL: what "same origin as the actor" compares. */
export function hostOf(url: string | undefined): string | undefined {
  const valid = httpUrl(url);
  return valid ? new URL(valid).host.toLowerCase() : undefined;
}

/** Do two URLs belong to the same server? */
export const sameHost = (a: string | undefined, b: string | undefined): boolean => {
  const ha = hostOf(a);
  return ha !== undefined && ha === hostOf(b);
};

/** The public collection, in every spelling peers use. */
export const isPublicCollection = (id: string): boolean => id === AS_PUBLIC || id === 'as:Public' || id === 'Public';

/** A URL property (`url`, `href`): a string, a Link object, or an array of either; the first http(s) one. */
export function urlOf(value: unknown): string | undefined {
  for (const v of asArray(value)) {
    const found = typeof v === 'string' ? httpUrl(v) : isObject(v) ? httpUrl(v.href) ?? httpUrl(v.url) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** A string property, or its first language's value in the `…Map` form (`content` / `contentMap`). */
export function textOf(doc: ApDocument, name: string): string | undefined {
  const plain = doc[name];
  if (typeof plain === 'string') return plain;
  const map = objectOf(doc[`${name}Map`]);
  const first = map ? Object.values(map).find((v) => typeof v === 'string') : undefined;
  return typeof first === 'string' ? first : undefined;
}

/** An ISO timestamp, or undefined when absent or not a date. */
export function dateOf(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
