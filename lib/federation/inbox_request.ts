// What an inbox does with a POST before the inbox worker sees it
// (https://docs.joinmastodon.org/spec/security/#http): refuse what is too large,
// signed for another host, not JSON or nested too deeply, not an activity, or signed
// with a key that is not on its actor's server, all before any key is fetched; then
// verify the HTTP Signature (a key fetch passes ./key_gate.ts first), check that the
// actor owns the key that signed it, and queue the activity. Nothing is written to
// the table for a request that fails any of these, beyond the key gate's bookkeeping.
import { z } from 'zod';
import { accountByUsername } from '../db/accounts';
import { badRequest, HttpError, notFound, tooLarge, unauthorized, unsupportedMediaType } from '../errors';
import { log } from '../log';
import { enqueue } from '../queue';
import { jsonNestsDeeper } from '../schema';
import { lookupKey } from './actor_store';
import { refuseSuspendedActor, refuseSuspendedSigner } from './domain_gate';
import { INLINE_ACTIVITY_MAX_BYTES, stashBody } from './inbox_body';
import { keyGate, type KeyGate } from './key_gate';
import { requestKeyId, verifyRequest, type KeyLookup } from './signatures';
import { isOurHost } from './urls';
import { idOf } from './vocab';

/** Mastodon refuses larger activities too; no legitimate one comes near. */
export const INBOX_BODY_MAX_BYTES = 1024 * 1024;

/** application/activity+json, application/ld+json (with its profile), application/json; a missing type is read as JSON too. */
const ACCEPTED_TYPES = new Set(['application/activity+json', 'application/ld+json', 'application/json']);

export type InboxRequest = {
  method: string;
  /** The path with its query string, as signed in `(request-target)`. */
  path: string;
  /** Lower-cased request headers. */
  headers: Record<string, string>;
  /** The body's bytes as sent (the Digest covers them). */
  body: Buffer;
};

/** The least an activity must be for the worker to look at it: an object with a type and an actor. */
const activityShape = z
  .object({ type: z.string().min(1), actor: z.union([z.string().min(1), z.object({ id: z.string().min(1) }).passthrough()]) })
  .passthrough();

const notAnActivity = () => badRequest('The body is not an ActivityStreams activity');
const mediaTypeOf = (headers: Record<string, string>) => (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/** The inbox's owner, for a personal inbox (404 for an unknown or remote username); none for the shared inbox. */
async function recipientOf(username: string | undefined): Promise<{ id: string } | undefined> {
  if (username === undefined) return undefined;
  const account = await accountByUsername(username);
  if (!account || account.domain) throw notFound();
  return account;
}

function parseActivity(body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8');
  // Before it is parsed: the activity is serialised again to be queued, which a deep one would overflow.
  if (jsonNestsDeeper(text)) throw badRequest('The body is nested too deeply');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('The body is not valid JSON');
  }
  const shape = activityShape.safeParse(parsed);
  if (!shape.success) throw notAnActivity();
  return shape.data;
}

const hostOf = (url: string | undefined): string | undefined => {
  try {
    return url === undefined ? undefined : new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
};

/** The key lookup of one request: fetches go through its gate, and a key fetched but unusable is remembered there. */
const gatedLookup = (gate: KeyGate): KeyLookup => async (keyId, { refresh }) => {
  const found = await lookupKey(keyId, { refresh, fetchDocument: gate.fetchDocument(keyId) });
  if (!found && gate.fetched()) await gate.keyUnusable(keyId);
  return found;
};

/**
 * Accepts a POST to an inbox (`username` for a personal one, undefined for the shared
 * inbox) and queues its activity for the inbox worker, or throws the HttpError to
 * answer: 413 over 1 MB, 404 for no such inbox, 403 signed by a suspended server, 401 unsigned, signed
 * for another host, with a key not on the actor's server, unverifiable or signed by someone else than the
 * actor, 415 not JSON, 400 not an activity or nested too deeply; from the key gate, 401 or 503 with
 * Retry-After, or what `beforeKeyFetch` throws (the sender's budget).
 */
export async function receiveInboxRequest(
  req: InboxRequest,
  username: string | undefined,
  opts: { lookup?: KeyLookup; now?: Date; beforeKeyFetch?: () => Promise<void> } = {},
): Promise<void> {
  if (req.body.length > INBOX_BODY_MAX_BYTES) throw tooLarge('The activity is larger than 1 MB');
  const recipient = await recipientOf(username);
  // A suspended server is refused before its key is fetched (its request reads nothing more).
  await refuseSuspendedSigner(req.headers, req.path);
  // The signature covers Host (verifyRequest requires it): one made for another server is not for us, whoever relays it.
  const host = req.headers.host;
  if (host !== undefined && !isOurHost(host)) throw refused(req, `Signature: signed for the host ${host}, not this instance`);
  const type = mediaTypeOf(req.headers);
  if (type !== '' && !ACCEPTED_TYPES.has(type)) throw unsupportedMediaType(`Unsupported content type: ${type}`);
  const activity = parseActivity(req.body);
  // A key is fetched only from the actor's own server: a keyId anywhere else is refused before it costs a request.
  const keyId = requestKeyId(req.headers);
  if (keyId !== undefined && hostOf(keyId) !== hostOf(idOf(activity.actor))) {
    throw refused(req, "Signature: the key is not on the server of the activity's actor", keyId);
  }
  const gate = keyGate({ beforeFetch: opts.beforeKeyFetch });
  const verified = await verifyRequest(req, opts.lookup ?? gatedLookup(gate), opts.now);
  if (!verified.ok) throw refused(req, `Signature: ${verified.reason}`);
  await refuseSuspendedActor(verified.ownerUri, req.path);
  if (idOf(activity.actor) !== verified.ownerUri) throw refused(req, 'Signature: the key does not belong to the activity\'s actor', verified.keyId);

  const json = JSON.stringify(activity);
  const inline = Buffer.byteLength(json) <= INLINE_ACTIVITY_MAX_BYTES;
  await enqueue('inbox', {
    ...(inline ? { activity } : { bodyKey: await stashBody(json) }),
    signer: verified.ownerUri,
    ...(recipient ? { recipientId: recipient.id } : {}),
    receivedAt: (opts.now ?? new Date()).toISOString(),
  });
}

/** A 401, logged: the first thing an operator looks for when a peer's activities do not arrive. */
function refused(req: InboxRequest, reason: string, keyId?: string): HttpError {
  log.info('inbox: refused', { path: req.path, reason, keyId, userAgent: req.headers['user-agent'] });
  return unauthorized(reason);
}
