// How long a text field may be, in two steps. Mastodon's rules count
// characters in ways that cost work (URLs found and counted as 23, grapheme
// clusters), and some of them are lenient about the raw size (a 100 KB link
// counts as 23). So every text field first has a raw cap, a plain length check
// in UTF-16 units that zod runs before any counting or parsing: what a real
// client sends under Mastodon's limit always fits, and nothing larger costs
// anything or reaches storage. The counted limits (Mastodon's) follow in lib.
//
// Raw caps are the counted limit times 2 where Mastodon counts code points or
// grapheme clusters (room for characters outside the BMP, accents, emoji with
// modifiers), and a fixed size where links count as 23 whatever their length:
// 2,500 for a status (a link of 2 KB still fits), 1,000 for a note. Control
// characters other than tab and line breaks are refused: no client types them,
// and JSON spells each one in six bytes.
// Nothing here imports anything heavy: every handler may use it.
import { z } from 'zod';

/** Mastodon's counted limits (StatusLengthValidator, PollOptionsValidator, Account, MediaAttachment, List, CustomFilterKeyword). */
/** The longest local username (Mastodon's); lookups refuse longer names before any read. */
export const USERNAME_MAX = 30;

export const COUNTED_LIMITS = {
  statusCharacters: 500,
  pollOptions: 4,
  pollOptionCharacters: 50,
  displayName: 30,
  note: 500,
  fields: 4,
  fieldText: 255,
  mediaDescription: 1500,
  listTitle: 256,
  filterPhrase: 512,
} as const;

/** Raw caps, in UTF-16 code units (JavaScript's string length), checked before anything else. */
export const RAW_CAPS = {
  /** Links count as 23 characters, so the text may be longer than 500 as typed. */
  statusText: 2_500,
  spoilerText: 2 * COUNTED_LIMITS.statusCharacters,
  pollOption: 2 * COUNTED_LIMITS.pollOptionCharacters,
  /** Options a request may carry: more than Mastodon's 4, so that 5 to 20 get Mastodon's own message. */
  pollOptionCount: 20,
  displayName: 2 * COUNTED_LIMITS.displayName,
  /** Links count as 23 characters in a note too. */
  note: 1_000,
  fieldText: 2 * COUNTED_LIMITS.fieldText,
  /** Rows a client may send (blank ones are dropped before the limit of 4 applies). */
  fieldRows: 16,
  // The following are counted in code units already (Rails' `length`), so the cap is the limit itself.
  mediaDescription: COUNTED_LIMITS.mediaDescription,
  listTitle: COUNTED_LIMITS.listTitle,
  filterPhrase: COUNTED_LIMITS.filterPhrase,
} as const;

/** C0 control characters other than tab, line feed and carriage return. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * A string field with its raw cap. `counted` names the limit the user knows
 * (500 characters), so the refusal reads as Mastodon's would for the same text.
 */
export const cappedText = (cap: number, counted?: number) =>
  z
    .string({ invalid_type_error: 'must be a string' })
    .max(cap, counted === undefined ? `is too long (maximum is ${cap} characters)` : `is too long (maximum is ${counted} characters, ${cap} as typed)`)
    .refine((value) => !CONTROL.test(value), 'must not contain control characters');
