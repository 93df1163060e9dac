// The pieces input schemas are built from: how clients spell ids, "not given",
// lists, booleans and numbers in query strings and form bodies. One definition
// each, so that every endpoint reads a value the same way and answers with the
// same "Validation failed" text. Part of the base (ARCHITECTURE.md): handlers,
// domain folders and queue contracts all use it, and it imports only zod.
import { z } from 'zod';

/** Form values arrive as strings: accept Mastodon's spellings of true and false. */
export const booleanish = z.preprocess((v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'on', 't', 'yes'].includes(s)) return true;
    if (['false', '0', 'off', 'f', 'no', ''].includes(s)) return false;
  }
  return v;
}, z.boolean({ invalid_type_error: 'must be a boolean' }));

/** A bounded string field. */
export const text = (max: number) => z.string({ invalid_type_error: 'must be a string' }).max(max, `is too long (maximum is ${max} characters)`);

/** Clients send null or '' for "not given" (Elk, Phanpy, Tusky). */
export const absent = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (v === null || v === '' ? undefined : v), schema.optional());

/** An id as Mastodon spells it: a decimal string of up to 20 digits (lib/ids.ts). */
export const id = z.string().regex(/^\d{1,20}$/, 'must be an id');

/** An id in a query string, which may be left out (`max_id`, `account_id`, ...). */
export const idParam = id.optional();

/**
 * A list that a client may also send as one value: `ids=1` as well as
 * `ids[]=1&ids[]=2` (the query parser gives a string for the first). `list` is
 * the array schema, with its own bounds and messages.
 */
export const oneOrMany = <T extends z.ZodTypeAny>(list: T) => z.preprocess((v) => (typeof v === 'string' ? [v] : v), list);

/** An integer that form bodies carry as a string of digits (JSON bodies as a number). */
export const intString = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
  z.number({ invalid_type_error: 'must be a number' }).int('must be an integer'),
);

/** An integer query parameter (`offset`, `limit`), read as `Number()` reads it; bound it at the use. */
export const intParam = z.coerce.number({ invalid_type_error: 'must be a number' }).int();

/**
 * How deep a JSON body may nest (objects and arrays): the json gem's default `max_nesting`, which Mastodon's
 * parser keeps. No ActivityPub document or API body comes near it; far deeper ones make JSON.stringify (and any
 * recursive walk) overflow the stack, a 500 instead of the client's 400.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Does this JSON text nest deeper than `max`? One pass over the characters, no recursion and no parse, so it can run
 * before anything builds the value: brackets inside strings (escapes included) do not count.
 */
export function jsonNestsDeeper(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
