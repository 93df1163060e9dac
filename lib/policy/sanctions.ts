// What a moderator's sanction on an account (lib/moderation) means for everyone else, asked by every read path,
// the fan-out, streaming, push and the ActivityPub documents, as Mastodon 4 reads Account#suspended?,
// #silenced? and #sensitized?:
// - suspended: gone for everyone but itself (its profile shown emptied with `suspended: true`, nothing it wrote
//   shown anywhere);
// - silenced (limited): off the public places (public and hashtag timelines and streams, trends, search) for
//   those who do not follow it; what it does notifies only those who follow it;
// - sensitized: its media are shown sensitive.
// A server's sanction (the operator's domain blocks) is lib/policy/instance_domains.ts; the two compose here.
import type { Account } from '../db/accounts';

type Sanctioned = Pick<Account, 'suspendedAt' | 'silencedAt' | 'sensitizedAt'>;

export const isSuspended = (account: Pick<Account, 'suspendedAt'>): boolean => account.suspendedAt !== null;
export const isSilenced = (account: Pick<Account, 'silencedAt'>): boolean => account.silencedAt !== null;
export const isSensitized = (account: Pick<Account, 'sensitizedAt'>): boolean => account.sensitizedAt !== null;

/** Is `account` gone for `viewer` (suspended, and the viewer is not the account itself)? */
export const unavailableTo = (account: Pick<Account, 'id' | 'suspendedAt'>, viewer: Pick<Account, 'id'> | undefined): boolean =>
  isSuspended(account) && viewer?.id !== account.id;

/** Has the account any sanction a reader must apply? (Most have none: a page then needs no further thought.) */
export const isSanctioned = (account: Sanctioned): boolean => isSuspended(account) || isSilenced(account) || isSensitized(account);
