// Relationship entity (https://docs.joinmastodon.org/entities/Relationship/) between
// the viewer and other accounts. `note` is the viewer's private note (lib/accounts/notes.ts),
// read with the rest of the state, as is `endorsed` (lib/db/endorsements.ts).
import { isVisible } from '../policy/accounts';
import type { Account } from '../db/accounts';
import { graphStates, type GraphState } from '../db/follows';
import { isId } from '../ids';
import { unavailableTo } from '../policy/sanctions';

/** At most this many ids are answered per request; further ids are ignored. */
export const RELATIONSHIPS_LIMIT = 40;

export function renderRelationship(id: string, state: Omit<GraphState, 'account'>) {
  const options = state.following ?? state.requested;
  return {
    id,
    following: state.following !== undefined,
    showing_reblogs: options?.showReblogs ?? false,
    notifying: options?.notify ?? false,
    followed_by: state.followedBy !== undefined,
    blocking: state.blocking ?? false,
    blocked_by: state.blockedBy ?? false,
    muting: state.muting !== undefined,
    muting_notifications: state.muting?.notifications ?? false,
    requested: state.requested !== undefined,
    requested_by: state.requestedBy !== undefined,
    domain_blocking: state.domainBlocking ?? false,
    endorsed: state.endorsed ?? false,
    note: state.note ?? '',
  };
}
export type Relationship = ReturnType<typeof renderRelationship>;

/**
 * Relationships with the accounts among `ids` that exist (unknown and malformed
 * ids are left out, as Mastodon does), in the order asked, each id once.
 */
/** `withSuspended` (Mastodon 4.3's with_suspended): also answer for suspended accounts, left out otherwise. */
export async function relationshipsOf(viewer: Account, ids: string[], withSuspended = false): Promise<Relationship[]> {
  const wanted = [...new Set(ids.filter(isId).map((id) => BigInt(id).toString()))].slice(0, RELATIONSHIPS_LIMIT);
  if (wanted.length === 0) return [];
  const states = await graphStates(viewer.id, wanted);
  return wanted.flatMap((id) => {
    const state = states.get(id);
    return state?.account && isVisible(state.account) && (withSuspended || !unavailableTo(state.account, viewer)) ? [renderRelationship(id, state)] : [];
  });
}
