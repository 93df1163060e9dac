// Mentioned accounts we do not know yet, found on their servers. A local post
// naming `@user@domain` of an account never seen here resolves it while posting
// (WebFinger, then the actor: ./actors.ts resolveAcct), as Mastodon's
// ProcessMentionsService does; a remote post mentioning an actor we do not know
// fetches that actor, so the mention is kept (Mastodon resolves them after the
// fact, MentionResolveWorker). Both are bounded: a few accounts per status, asked
// in parallel, each within a short time (so the whole wait is that time); what is
// not found in time is left out (a handle stays plain text), never an error.
import type { Account } from '../db/accounts';
import { log } from '../log';
import { accountByActorUri, resolveAcct } from './actors';
import { deadlineIn, withinBudget } from './budget';

/** Unknown handles resolved for one local post at most; the others stay plain text. */
export const MAX_RESOLVED_HANDLES = 3;
/** Unknown actors fetched for one remote status at most. */
export const MAX_FETCHED_MENTIONS = 5;
/** Time one handle (WebFinger and actor) or actor may take; they are asked in parallel. */
export const MENTION_TIMEOUT_MS = 3_000;

export type Handle = { username: string; domain: string };

/** The key a handle is answered under: as written, lower-cased (its account's domain may differ: WebFinger may delegate). */
export const handleKey = (h: Handle): string => `${h.username}@${h.domain}`.toLowerCase();

/** A remote account within MENTION_TIMEOUT_MS; undefined on any failure (logged). */
async function boundedLookup(what: string, lookup: () => Promise<Account | undefined>): Promise<Account | undefined> {
  try {
    const account = await withinBudget(lookup(), deadlineIn(MENTION_TIMEOUT_MS));
    return account?.domain ? account : undefined;
  } catch (err) {
    // A server that is down, slow, refused by the guard or answering nonsense: the mention is left out.
    log.info('mentioned account not resolved', { what, reason: err instanceof Error ? err.message : String(err) });
    return undefined;
  }
}

/**
 * The remote accounts of handles not known here (the first MAX_RESOLVED_HANDLES of them), by handleKey; one
 * that does not exist, or does not answer in time, is absent.
 */
export async function resolveHandles(handles: Handle[]): Promise<Map<string, Account>> {
  const distinct = [...new Map(handles.map((h) => [handleKey(h), h])).values()].slice(0, MAX_RESOLVED_HANDLES);
  const found = await Promise.all(distinct.map((h) => boundedLookup(`@${h.username}@${h.domain}`, () => resolveAcct(h.username, h.domain))));
  const out = new Map<string, Account>();
  distinct.forEach((h, i) => {
    const account = found[i];
    if (account) out.set(handleKey(h), account);
  });
  return out;
}

/** The accounts of actor URIs not known here (the first MAX_FETCHED_MENTIONS of them), fetched and stored; those not found are left out. */
export async function fetchMentionedActors(actorUris: string[]): Promise<Account[]> {
  const wanted = [...new Set(actorUris)].slice(0, MAX_FETCHED_MENTIONS);
  const found = await Promise.all(wanted.map((uri) => boundedLookup(uri, () => accountByActorUri(uri))));
  return found.flatMap((a) => a ?? []);
}
