import { randomBytes, randomInt } from 'node:crypto';

// Mastodon-style snowflake: milliseconds since the epoch shifted left 16 bits,
// plus 16 bits of sequence, written in decimal. The sequence starts at a random
// point in each process and moves by one per id, so one process never mints the
// same id twice within 65,536 ids of one millisecond (twelve sign-ups at once
// drew the same random low bits once); two processes collide only by chance.
export const ID_WIDTH = 20;

let sequence = randomInt(0, 65536);

export const newId = (at: Date | number = Date.now()): string => {
  const ms = BigInt(typeof at === 'number' ? at : at.getTime());
  sequence = (sequence + 1) & 0xffff;
  return ((ms << 16n) | BigInt(sequence)).toString();
};

/** The smallest id that could have been minted at `at`, for time-range queries. */
export const idAt = (at: Date | number): string =>
  (BigInt(typeof at === 'number' ? at : at.getTime()) << 16n).toString();

export const isId = (value: string): boolean => /^\d{1,20}$/.test(value);

/** Fixed-width form used inside keys so that string order is time order. */
export const padId = (id: string): string => id.padStart(ID_WIDTH, '0');

export const timeOfId = (id: string): Date => new Date(Number(BigInt(id) >> 16n));

/** A random URL-safe secret (tokens, client ids, codes). */
export const secretToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
