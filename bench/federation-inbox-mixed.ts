// Inbox throughput with the mix a real server receives: Create(Note), Like,
// Announce, Undo (of those Likes and Announces), Follow and Update(Person), from
// many stored remote actors, to one local account with a few statuses, against
// dynalite started in this process. Each activity goes through processActivity as
// the inbox worker's SQS handler runs it, in batches of 10 one after another (one
// consumer, batchSize 10); fan-out and notify run inline as they are sent (their
// cost is part of an activity's), deliveries (Accept of a Follow) are counted, not
// sent. Prints the overall rate and the cost of each type; no assertions.
// Usage: npx tsx bench/federation-inbox-mixed.ts   (INBOX_MIXED=600 by default)
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { federationBench, percentile, printTable } from './lib';

const COUNT = Number(process.env.INBOX_MIXED ?? 600);
const ACTORS = 60;
const STATUSES = 10;
const BATCH = 10;
const TYPES = ['Create', 'Like', 'Announce', 'Undo', 'Follow', 'Update'] as const;
type Kind = (typeof TYPES)[number];

async function main() {
  const emulators = await federationBench('inbox-mixed');
  // Imported after the environment points at the emulators.
  const { accountItem, createLocalAccount } = await import('../lib/db/accounts');
  const { createRemoteAccount } = await import('../lib/db/remote');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const { AS_PUBLIC, apUrls } = await import('../lib/federation/urls');
  const { newId } = await import('../lib/ids');
  const { processActivity } = await import('../lib/inbox');
  const { registerInlineWorker } = await import('../lib/queue');
  const { handler: fanoutWorker } = await import('../functions/workers/fanout');
  const { handler: notifyWorker } = await import('../functions/workers/notify');
  let deliveries = 0;
  registerInlineWorker('fanout', (event: SQSEvent) => fanoutWorker(event));
  registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
  for (const queue of ['deliver', 'push'] as const) {
    registerInlineWorker(queue, async (event: SQSEvent) => {
      deliveries += queue === 'deliver' ? event.Records.length : 0;
      return { batchItemFailures: [] };
    });
  }

  const now = new Date().toISOString();
  const created = await createLocalAccount({ id: newId(), username: 'target', email: 'target@example.com', passwordHash: 'x', confirmedAt: now });
  if (!created.ok) throw new Error('local account');
  const local = created.account;
  const statuses = Array.from({ length: STATUSES }, (_, i) => {
    const id = newId();
    return statusItem.parse({ id, conversationId: id, accountId: local.id, text: `status ${i}`, contentHtml: `<p>status ${i}</p>`, visibility: 'public', createdAt: now });
  });
  await batchWrite(statuses.map((s) => statusRecord(s)));
  const actors = await Promise.all(
    Array.from({ length: ACTORS }, async (_, i) => {
      const uri = `https://remote${i % 6}.example/users/actor${i}`;
      const account = accountItem.parse({
        id: newId(), username: `actor${i}`, domain: `remote${i % 6}.example`, uri, inboxUrl: `${uri}/inbox`,
        sharedInboxUrl: `https://remote${i % 6}.example/inbox`, followersUrl: `${uri}/followers`, createdAt: now, fetchedAt: now,
      });
      await createRemoteAccount(account);
      return account as typeof account & { uri: string };
    }),
  );
  const localActor = apUrls.actor(local.username);
  // Each (actor, status) pair once: the actor cycles fastest, the status after each round of actors.
  const statusUrl = (n: number) => apUrls.status(local.username, statuses[Math.floor(n / ACTORS) % STATUSES]!.id);

  // What each actor did that an Undo can take back (its Likes and Announces, newest last).
  const undoable = new Map<string, Record<string, unknown>[]>();
  /** The Follow each actor has in force, which its next Follow turn undoes. */
  const follows = new Map<string, Record<string, unknown>>();
  const activityOf = (kind: Kind, n: number): Record<string, unknown> => {
    const actor = actors[n % ACTORS]!;
    const base = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor.uri}#a/${randomUUID()}`, actor: actor.uri };
    switch (kind) {
      case 'Create': {
        const id = `${actor.uri}/statuses/${randomUUID()}`;
        return { ...base, type: 'Create', object: { id, type: 'Note', attributedTo: actor.uri, to: [AS_PUBLIC], cc: [`${actor.uri}/followers`], content: '<p>mixed bench</p>', published: new Date().toISOString() } };
      }
      case 'Like':
      case 'Announce': {
        const done = { ...base, type: kind, object: statusUrl(n), ...(kind === 'Announce' ? { to: [AS_PUBLIC], cc: [`${actor.uri}/followers`], published: new Date().toISOString() } : {}) };
        undoable.set(actor.uri, [...(undoable.get(actor.uri) ?? []), done]);
        return done;
      }
      case 'Undo': {
        const earlier = undoable.get(actor.uri)?.shift();
        return earlier ? { ...base, type: 'Undo', object: earlier } : activityOf('Like', n);
      }
      case 'Follow': {
        const current = follows.get(actor.uri);
        follows.delete(actor.uri);
        if (current) return { ...base, type: 'Undo', object: current };
        const follow = { ...base, type: 'Follow', object: localActor };
        follows.set(actor.uri, follow);
        return follow;
      }
      case 'Update':
        return { ...base, type: 'Update', object: { id: actor.uri, type: 'Person', preferredUsername: actor.username, name: `Actor ${n}`, summary: `<p>update ${n}</p>`, inbox: actor.inboxUrl, followers: `${actor.uri}/followers` } };
    }
  };

  const byType = new Map<string, number[]>();
  const outcomes = new Map<string, number>();
  /** Hands the activities to processActivity in batches of BATCH side by side (the worker's batch), one batch after another. */
  const run = async (activities: Record<string, unknown>[]) => {
    const started = performance.now();
    for (let i = 0; i < activities.length; i += BATCH) {
      await Promise.all(
        activities.slice(i, i + BATCH).map(async (activity) => {
          const t = performance.now();
          const outcome = await processActivity({ activity, signer: String(activity.actor), receivedAt: new Date().toISOString() });
          const type = String(activity.type) === 'Undo' ? `Undo(${String((activity.object as { type: string }).type)})` : String(activity.type);
          byType.set(type, [...(byType.get(type) ?? []), performance.now() - t]);
          outcomes.set(`${type} ${outcome}`, (outcomes.get(`${type} ${outcome}`) ?? 0) + 1);
        }),
      );
    }
    return performance.now() - started;
  };

  try {
    await run(Array.from({ length: 20 }, (_, n) => activityOf('Create', n))); // warm-up
    byType.clear();
    outcomes.clear();
    const mix = Array.from({ length: COUNT }, (_, n) => activityOf(TYPES[n % TYPES.length]!, n));
    const ms = await run(mix);
    process.stdout.write(`\nMixed inbox activities against dynalite (in-process; batches of ${BATCH}, fan-out and notify inline; ${deliveries} deliveries queued):\n`);
    process.stdout.write(`${COUNT} activities in ${Math.round(ms)} ms: ${Math.round((COUNT / ms) * 1000)} activities/s\n\n`);
    printTable(
      [...byType.entries()].map(([type, times]) => ({
        type,
        count: times.length,
        'p50 ms': Number(percentile(times, 50).toFixed(1)),
        'p95 ms': Number(percentile(times, 95).toFixed(1)),
        'max ms': Math.round(percentile(times, 100)),
      })),
    );
    process.stdout.write('\nOutcomes:\n');
    printTable([...outcomes.entries()].map(([what, count]) => ({ 'type and outcome': what, count })));
  } finally {
    await emulators.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
