// What a page of GET /api/v1/admin/reports costs in DynamoDB calls and capacity units, with 1,000 reports in
// the table (50 reporters, 50 reported accounts each with a status named in its reports, every other report
// resolved): the real handler (functions/admin_reports/index.ts) called with API Gateway events, against dynalite
// started in this process, with EXPOSE_METRICS=1 (X-Db-Calls, X-Db-Read-Units: capacity units as DynamoDB
// reports them). Dynalite reports the units of each call as DynamoDB prices them (4 KB per read unit, eventually
// consistent reads half).
// Usage: npm run bench:admin-reports   (ADMIN_REPORTS=1000 by default; BENCH_TRACE=1 lists each measured page's calls on stderr)
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { buildEvent, lambdaContext } from '../test/support/http';
import { inProcessEmulators, printTable } from './lib';

const REPORTS = Number(process.env.ADMIN_REPORTS ?? 1000);
const PEOPLE = 50;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

async function main() {
  const emulators = await inProcessEmulators();
  process.env.TABLE_NAME = `admin-reports-${randomBytes(3).toString('hex')}`;
  process.env.QUEUE_MODE = 'inline';
  process.env.EXPOSE_METRICS = '1';
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  // Imported after the environment points at the emulators.
  const { createAppInput, registerApp } = await import('../lib/apps');
  const { createLocalAccount, setRole } = await import('../lib/db/accounts');
  const { putReport, moveReport } = await import('../lib/db/reports');
  const { newId } = await import('../lib/ids');
  const { issueAccessToken } = await import('../lib/tokens');
  const { handler } = (await import('../functions/admin_reports/index')) as { handler: Handler };
  const { observeRequests } = await import('../lib/aws');
  const { aStoredStatus } = await import('../test/support/factories');

  const rows: Record<string, string | number>[] = [];
  try {
    const started = Date.now();
    const { app } = await registerApp(createAppInput.parse({ client_name: 'admin reports bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read admin:read' }));
    const account = async (username: string) => {
      const created = await createLocalAccount({ id: newId(), username, email: `${username}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true });
      if (!created.ok) throw new Error('bench: could not create an account');
      return created.account;
    };
    const moderator = await account('moderator');
    await setRole(moderator.id, '1', false);
    const { raw: token } = await issueAccessToken(app, moderator.id, ['read', 'admin:read']);
    const reporters: Awaited<ReturnType<typeof account>>[] = [];
    const targets: Awaited<ReturnType<typeof account>>[] = [];
    for (let i = 0; i < PEOPLE; i++) reporters.push(await account(`reporter${i}`));
    for (let i = 0; i < PEOPLE; i++) targets.push(await account(`target${i}`));
    // One status per reported account, named in every report about it (rendered as a Status in each report).
    const statusOf = new Map<string, string>();
    for (const t of targets) {
      const text = 'Buy followers now at a discount, see the link in my profile';
      statusOf.set(t.id, (await aStoredStatus(t, { text, contentHtml: `<p>${text}</p>` })).id);
    }

    const filed: string[] = [];
    for (let i = 0; i < REPORTS; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, REPORTS - i) }, async (_, k) => {
          const n = i + k;
          const target = targets[n % PEOPLE]!;
          const id = newId();
          await putReport({
            id,
            // Spread so that each reporter reports several accounts and each account is reported by several people.
            accountId: reporters[(n * 7 + Math.floor(n / PEOPLE)) % PEOPLE]!.id,
            targetAccountId: target.id,
            statusIds: [statusOf.get(target.id)!],
            comment: `report ${n}: this account posts spam links in every reply`,
            category: 'spam',
            ruleIds: [],
            forwarded: false,
            uri: null,
            actionTakenAt: null,
            actionTakenByAccountId: null,
            assignedAccountId: null,
            createdAt: new Date().toISOString(),
          });
          filed.push(id);
          if (n % 2 === 1) await moveReport(id, 'resolved', moderator.id);
        }),
      );
    }
    process.stdout.write(`Seeded ${REPORTS} reports (${PEOPLE} reporters, ${PEOPLE} reported accounts, every other one resolved) in ${Date.now() - started} ms\n`);

    const page = async (name: string, query: Record<string, string>) => {
      const call = async () => {
        const res = await handler(buildEvent({ path: '/api/v1/admin/reports', query, token }), lambdaContext());
        if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${String(res.body)}`);
        return res;
      };
      await call(); // warm: the instance settings are read once per container (lib/memo.ts)
      const trace: string[] = [];
      const stop = process.env.BENCH_TRACE
        ? observeRequests((req) => {
            const op = req.headers?.['X-Amz-Target'] ?? req.headers?.['x-amz-target'];
            if (op) trace.push(op.replace(/^DynamoDB_\d+\./, ''));
          })
        : () => undefined;
      const res = await call();
      stop();
      if (trace.length > 0) process.stderr.write(`${name}: ${trace.join(', ')}\n`);
      const h = res.headers ?? {};
      const items = (JSON.parse(String(res.body)) as unknown[]).length;
      rows.push({
        page: name,
        reports: items,
        dynamodb_calls: String(h['X-Db-Calls']),
        read_units: Number(h['X-Db-Read-Units']).toFixed(1),
        body_kb: (Buffer.byteLength(String(res.body)) / 1024).toFixed(0),
      });
      return JSON.parse(String(res.body)) as { id: string }[];
    };
    const first = await page('default (open, 100)', {});
    await page('default, next page (max_id)', { max_id: first.at(-1)!.id });
    await page('resolved=true (100)', { resolved: 'true' });
    await page('target_account_id=… (open)', { target_account_id: targets[0]!.id });
    await page('account_id=… (open)', { account_id: reporters[0]!.id });
    await page('account_id + target_account_id', { account_id: reporters[0]!.id, target_account_id: targets[0]!.id });
    await page('limit=200 (open)', { limit: '200' });
    await page('limit=20 (open)', { limit: '20' });
  } finally {
    process.stdout.write('\n');
    printTable(rows);
    await emulators.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
