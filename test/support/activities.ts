// Activities as a remote server sends them, for the suites that drive the inbox
// worker (lib/inbox processActivity) directly: an activity of a stored remote
// actor, its receipt as the inbox endpoint would enqueue it, and the deliveries
// our side queues in answer, collected instead of sent.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { AS_PUBLIC } from '../../lib/federation/urls';
import { processActivity, type Processed } from '../../lib/inbox';
import { registerInlineWorker } from '../../lib/queue';
import type { DeliverMessage } from '../../lib/queue/messages';

export type Doc = Record<string, unknown>;

/** A fresh activity id on the actor's own server. */
export const activityIdOf = (actor: { uri: string }): string => `${actor.uri}#activities/${randomUUID()}`;

/** An activity of `actor` (its id on the actor's server), with `overrides` on top. */
export const activity = (actor: { uri: string }, type: string, object: unknown, overrides: Doc = {}): Doc & { id: string } => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: activityIdOf(actor),
  type,
  actor: actor.uri,
  object,
  ...overrides,
});

/** A public Note of `actor` (its id on the actor's server, published a second ago), with `overrides` on top. */
export const aNote = (actor: { uri: string; followersUrl: string }, overrides: Doc = {}): Doc & { id: string } => ({
  id: `${actor.uri}/statuses/${randomUUID()}`,
  type: 'Note',
  attributedTo: actor.uri,
  to: [AS_PUBLIC],
  cc: [actor.followersUrl],
  content: '<p>hello from afar</p>',
  published: new Date(Date.now() - 1000).toISOString(),
  ...overrides,
});

/** `body` as the inbox endpoint enqueues it, signed by its actor unless told otherwise, through the worker's logic. */
export const receive = (body: Doc, signer = String(body.actor)): Promise<Processed> =>
  processActivity({ activity: body, signer, receivedAt: new Date().toISOString() });

/**
 * The deliveries queued from now on (the deliver queue's inline worker collects them instead of sending), emptied
 * before each test. `down` makes the queue fail while it answers true.
 */
export function collectDeliveries(down: () => boolean = () => false): DeliverMessage[] {
  const delivered: DeliverMessage[] = [];
  registerInlineWorker('deliver', async (event: SQSEvent) => {
    if (down()) throw new Error('deliver queue unavailable');
    for (const r of event.Records) delivered.push(JSON.parse(r.body) as DeliverMessage);
    return { batchItemFailures: [] };
  });
  beforeEach(() => {
    delivered.length = 0;
  });
  return delivered;
}
