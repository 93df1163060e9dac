// Suspending and purging an account (lib/moderation/suspension.ts, lib/moderation/purge.ts) against dynalite and
// s3rver started in this process: the request path's calls for an account with few statuses and with many (they
// should not grow with the statuses: the purge is the sweeper's), then the sweeper step run as the schedule runs it,
// each invocation with its budget (suspensionWorkLimits.budgetMs, 60 s), until the purge is done: invocations,
// time and DynamoDB calls. Queues run inline and collect their messages.
// Usage: npm run bench:suspend-purge   (SUSPEND_STATUSES=10000, SUSPEND_BUDGET_MS=60000 by default)
import { randomBytes } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, printTable } from './lib';

const STATUSES = Number(process.env.SUSPEND_STATUSES ?? 10_000);
const BUDGET_MS = Number(process.env.SUSPEND_BUDGET_MS ?? 60_000);

async function main() {
  const emulators = await inProcessEmulators();
  process.env.TABLE_NAME = `suspend-${randomBytes(3).toString('hex')}`;
  process.env.QUEUE_MODE = 'inline';
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  const { dbCalls } = await import('../lib/aws');
  const { accountById, createLocalAccount } = await import('../lib/db/accounts');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { QUEUES, registerInlineWorker } = await import('../lib/queue');
  const { suspendAccount, SUSPENSION_RETENTION_DAYS } = await import('../lib/moderation/suspension');
  const { runSuspensionWork, suspensionWorkLimits } = await import('../lib/moderation/purge');
  const { accountStatusesPage } = await import('../lib/db/account_statuses');
  suspensionWorkLimits.budgetMs = BUDGET_MS;

  const rows: Record<string, string | number>[] = [];
  try {
    for (const queue of QUEUES) registerInlineWorker(queue, async (_event: SQSEvent) => ({ batchItemFailures: [] }));

    const anAccount = async (name: string, statuses: number) => {
      const created = await createLocalAccount({ id: newId(), username: name, email: `${name}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true });
      if (!created.ok) throw new Error('bench: account not created');
      const items = [];
      for (let i = 0; i < statuses; i++) {
        const id = newId();
        items.push(statusRecord(statusItem.parse({ id, accountId: created.account.id, createdAt: new Date().toISOString(), visibility: 'public', conversationId: id, text: `status ${i}`, contentHtml: `<p>status ${i}</p>` })));
      }
      for (let i = 0; i < items.length; i += 500) await batchWrite(items.slice(i, i + 500));
      return created.account;
    };

    // The request path: the same calls whatever the account holds.
    for (const [name, count] of [['small', 10], ['large', STATUSES]] as const) {
      const account = await anAccount(`${name}${randomBytes(2).toString('hex')}`, count);
      dbCalls.reset();
      const started = Date.now();
      await suspendAccount((await accountById(account.id))!);
      rows.push({ step: `suspendAccount (request path), ${count} statuses`, 'ms': Date.now() - started, 'DynamoDB calls': dbCalls.count, invocations: 1 });
      if (name !== 'large') continue;

      // The sweeper: the severing now, then the purge once due; one runSuspensionWork per scheduled invocation.
      const due = Date.now() + (SUSPENSION_RETENTION_DAYS + 1) * 86_400_000;
      dbCalls.reset();
      let invocations = 0;
      let started2 = Date.now();
      await runSuspensionWork();
      invocations++;
      rows.push({ step: 'sweeper: follows severed', ms: Date.now() - started2, 'DynamoDB calls': dbCalls.count, invocations });
      dbCalls.reset();
      invocations = 0;
      started2 = Date.now();
      for (;;) {
        invocations++;
        const result = await runSuspensionWork(due);
        // Done when no purge is left to continue (the small account's is finished in the first run alongside).
        if (result.continues === 0) break;
      }
      const left = await accountStatusesPage(account.id, { limit: 1 }, {});
      rows.push({ step: `sweeper: purge of ${count} statuses${left.length ? ' (NOT finished)' : ''}`, ms: Date.now() - started2, 'DynamoDB calls': dbCalls.count, invocations });
      rows.push({ step: 'purge per status', ms: ((Date.now() - started2) / count).toFixed(2), 'DynamoDB calls': (dbCalls.count / count).toFixed(2), invocations: '' });
    }
  } finally {
    await emulators.stop();
  }
  printTable(rows);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
