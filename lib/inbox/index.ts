// What a received activity does: the inbox worker's one entry point. The inbox
// endpoint (lib/federation/inbox_request.ts) has verified the HTTP Signature and
// enqueued the activity with the actor that owns the verifying key; here it is
// checked again for who may do what, processed at most once, and handed to the
// handler of its type (one file each, as Mastodon's app/lib/activitypub/activity/).
//
// Checks, before anything is written: the activity is a JSON object with an id,
// a type and an actor; the actor is the signer; the id is on the actor's server
// (so nobody can spend another server's activity ids). Handlers check the rest
// (an object created, updated or deleted must be the actor's own).
//
// At most once: the id is claimed (lib/db/activity_seen.ts) before the handler
// runs and marked done after it. A redelivery of a finished activity stops at
// `done` and writes nothing. A worker that fails gives its claim back and the
// message is retried; one that dies leaves a claim that goes stale after
// CLAIM_STALE_MS, and the redelivery takes it over and finishes the work: every
// handler's writes are conditional or keyed so that running it again completes
// rather than duplicates (a Note is stored once by its id, a follow edge once,
// a notification once). An activity ignored (nothing to do) is not remembered.
//
// This lives outside lib/federation because it uses the domain folders (graph,
// statuses) that themselves use lib/federation to send: ARCHITECTURE.md forbids the loop.
import { claimActivity, markActivityDone, releaseActivity } from '../db/activity_seen';
import { accountByActorUri } from '../federation/actors';
import { deleteStashedBody, readStashedBody } from '../federation/inbox_body';
import { MAX_ID_LENGTH } from '../federation/notes';
import { canonicalId, idOf, objectOf, sameHost, typeOf, type ApDocument } from '../federation/vocab';
import { ItemTooLarge } from '../errors';
import { log } from '../log';
import { isRemoteAccount } from '../policy/federation';
import { federationRefusalOfUrl } from '../policy/instance_domains';
import { enqueue } from '../queue';
import type { InboxMessage } from '../queue/messages';
import { announce } from './announce';
import { accept, reject } from './answer';
import { block } from './block';
import { create } from './create';
import { remove } from './delete';
import { flag } from './flag';
import { follow } from './follow';
import { like } from './like';
import { add, removeFromCollection } from './pin';
import type { Outcome, Received } from './received';
import { undo } from './undo';
import { quoteRequest } from './quote_request';
import { answersFeatureRequest, featureAccepted, featureAuthorizationDeleted, featureRejected, featureRequest } from './feature_request';
import { recheckOriginSuspension, update } from './update';

/**
 * How old a claim must be before a redelivery takes it over: longer than the inbox worker lives (120 s,
 * functions/workers/functions.yml), shorter than the queue's visibility timeout (720 s, infra/queues.yml).
 */
export const CLAIM_STALE_MS = 180_000;

/** The handler of each activity type; any other type is ignored. */
const HANDLERS: Record<string, (received: Received) => Promise<Outcome>> = {
  Follow: follow,
  Undo: undo,
  // A FeatureRequest's answer is told apart here, as ./answer.ts tells a QuoteRequest's.
  Accept: (received) => (answersFeatureRequest(received) ? featureAccepted(received) : accept(received)),
  Reject: (received) => (answersFeatureRequest(received) ? featureRejected(received) : reject(received)),
  Create: create,
  Delete: async (received) => (await featureAuthorizationDeleted(received)) ?? remove(received),
  Update: update,
  Like: like,
  Announce: announce,
  Block: block,
  Flag: flag,
  Add: add,
  Remove: removeFromCollection,
  QuoteRequest: quoteRequest,
  FeatureRequest: featureRequest,
};

/** What a suspended actor may still send (the rest is acknowledged and changes nothing). */
const ALLOWED_WHILE_SUSPENDED = new Set(['Delete', 'Update', 'Undo', 'Reject']);

/** Another delivery of the same activity is being processed right now: this one is retried later, by then a replay. */
export class ActivityInProgress extends Error {
  constructor(readonly activityId: string) {
    super(`activity ${activityId} is being processed by another worker`);
    this.name = 'ActivityInProgress';
  }
}

/** What `processActivity` did with a message (tests and logs). */
export type Processed = 'applied' | 'ignored' | 'replayed' | 'refused' | 'continued';

async function activityOf(message: InboxMessage): Promise<ApDocument | undefined> {
  if (message.activity) return message.activity;
  const parsed: unknown = JSON.parse(await readStashedBody(message.bodyKey!));
  return objectOf(parsed);
}

/** The checks that need nothing stored: shape, signer, origin. The refusal's reason, or the parts. */
function checked(activity: ApDocument | undefined, signer: string): { id: string; type: string; actorUri: string } | string {
  if (!activity) return 'not a JSON object';
  const id = canonicalId(activity.id);
  const type = typeOf(activity);
  const actorUri = idOf(activity.actor);
  if (!id || id.length > MAX_ID_LENGTH) return 'no usable id';
  if (!type) return 'no type';
  if (!actorUri) return 'no actor';
  if (actorUri !== signer) return 'actor is not the signer';
  if (!sameHost(id, actorUri)) return "id is not on the actor's server";
  return { id, type, actorUri };
}

/**
 * Processes one received activity (an `inbox` message). Refused and ignored activities write nothing; an
 * applied one is remembered for a week. Throws when it must be retried (a failure, or a concurrent delivery).
 */
export async function processActivity(message: InboxMessage): Promise<Processed> {
  const activity = await activityOf(message);
  const parts = checked(activity, message.signer);
  if (typeof parts === 'string') {
    log.warn('inbox: activity refused', { reason: parts, signer: message.signer, id: activity?.id });
    return finish(message, 'refused');
  }
  // Queued before the operator suspended its server (or left it out of limited federation): dropped, nothing written.
  const refusal = await federationRefusalOfUrl(parts.actorUri);
  if (refusal) {
    log.info('inbox: activity of a server not federated with dropped', { id: parts.id, type: parts.type, refusal });
    return finish(message, 'refused');
  }
  const handler = HANDLERS[parts.type];
  if (!handler) {
    log.debug('inbox: activity type ignored', { type: parts.type, id: parts.id });
    return finish(message, 'ignored');
  }
  // The signer's key was just verified against the stored actor: no fetch here.
  let actor = await accountByActorUri(parts.actorUri, { fetch: false });
  if (!actor || !isRemoteAccount(actor) || actor.uri !== parts.actorUri) {
    log.warn('inbox: actor not stored', { id: parts.id, actor: parts.actorUri });
    return finish(message, 'refused');
  }

  // A suspended actor is heard only on what Mastodon still takes from one (ProcessCollectionService's
  // activity_allowed_while_suspended?): its own Delete or Update, and the Undo or Reject of what it did.
  // Suspended by its own server: that may have been lifted by an Update this activity overtook.
  if (actor.suspendedAt && !ALLOWED_WHILE_SUSPENDED.has(parts.type)) actor = await recheckOriginSuspension(actor);
  if (actor.suspendedAt && !ALLOWED_WHILE_SUSPENDED.has(parts.type)) {
    log.info('inbox: activity of a suspended account ignored', { id: parts.id, type: parts.type, actorId: actor.id });
    return finish(message, 'ignored');
  }

  const claim = await claimActivity(parts.id, CLAIM_STALE_MS);
  if (!claim.claimed) {
    if (claim.state === 'processing') throw new ActivityInProgress(parts.id);
    log.info('inbox: activity already processed', { id: parts.id, type: parts.type });
    return finish(message, 'replayed');
  }
  let outcome: Outcome;
  try {
    outcome = await handler({ id: parts.id, type: parts.type, actor: { ...actor, uri: parts.actorUri }, activity: activity! });
  } catch (err) {
    await releaseActivity(parts.id, claim.claimant);
    // A record it would make cannot be stored, now or on any retry: the activity is refused, not retried into the dead-letter queue.
    if (err instanceof ItemTooLarge) {
      log.warn('inbox: activity refused', { reason: 'item too large', id: parts.id, type: parts.type, key: err.key, bytes: err.bytes });
      return finish(message, 'refused');
    }
    throw err;
  }
  if (outcome === 'applied') {
    await markActivityDone(parts.id, claim.claimant);
    log.info('inbox: activity applied', { id: parts.id, type: parts.type, actorId: actor.id });
    return finish(message, 'applied');
  }
  // Nothing was done, or more remains: the claim goes, so that nothing is remembered, or the next run may claim it.
  await releaseActivity(parts.id, claim.claimant);
  if (outcome === 'more') {
    await enqueue('inbox', message);
    return 'continued';
  }
  log.debug('inbox: activity ignored', { id: parts.id, type: parts.type });
  return finish(message, 'ignored');
}

/** A stashed body is removed once its activity needs it no more. */
async function finish(message: InboxMessage, processed: Processed): Promise<Processed> {
  if (message.bodyKey) await deleteStashedBody(message.bodyKey);
  return processed;
}
