// DynamoDB calls and capacity units of one page (limit=40) of GET /api/v1 and /api/v2/admin/accounts, through the
// handlers (auth, the facet Queries, the account batch reads, the renderer), with 1,000 accounts in the table: 900
// plain, 100 silenced, and a moderator. Each request runs as the Lambda would, against dynalite in this process,
// its calls and units read from the X-Db-* headers the middleware writes with EXPOSE_METRICS=1.
// Usage: npm run bench:admin-pages   (ADMIN_BENCH_ACCOUNTS=1000 by default)
import { randomBytes } from 'node:crypto';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, printTable } from './lib';

const ACCOUNTS = Number(process.env.ADMIN_BENCH_ACCOUNTS ?? 1000);
const SILENCED_EVERY = 10;

async function main() {
  const emulators = await inProcessEmulators();
  process.env.TABLE_NAME = `adminpages-${randomBytes(3).toString('hex')}`;
  process.env.EXPOSE_METRICS = '1';
  process.env.QUEUE_MODE = 'inline';
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  const { createAppInput, registerApp } = await import('../lib/apps');
  const { createLocalAccount, setRole, updateAccount } = await import('../lib/db/accounts');
  const { newId } = await import('../lib/ids');
  const { issueAccessToken } = await import('../lib/tokens');
  const { handler: v1 } = await import('../functions/admin_accounts/index_v1');
  const { handler: v2 } = await import('../functions/admin_accounts/index_v2');
  const { call } = await import('../test/support/http');
  const rows: Record<string, string | number>[] = [];
  try {
    const { app } = await registerApp(createAppInput.parse({ client_name: 'admin bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read admin:read' }));
    const made: string[] = [];
    for (let i = 0; i < ACCOUNTS - 1; i++) {
      const created = await createLocalAccount({ id: newId(), username: `member${i}`, email: `member${i}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true, displayName: `Member ${i}` });
      if (!created.ok) throw new Error('bench: could not create an account');
      made.push(created.account.id);
      if (i % SILENCED_EVERY === 0) await updateAccount(created.account.id, { silencedAt: new Date().toISOString() });
    }
    const mod = await createLocalAccount({ id: newId(), username: 'moderator', email: 'moderator@example.com', passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true });
    if (!mod.ok) throw new Error('bench: no moderator');
    await setRole(mod.account.id, '1', false);
    const { raw } = await issueAccessToken(app, mod.account.id, ['read', 'admin:read']);

    const cases: [string, typeof v1, string, Record<string, string>][] = [
      ['v1, no filter', v1, '/api/v1/admin/accounts', {}],
      ['v1, next page (max_id)', v1, '/api/v1/admin/accounts', { max_id: made[ACCOUNTS - 100]! }],
      ['v1, silenced=true', v1, '/api/v1/admin/accounts', { silenced: 'true' }],
      ['v1, local=true&username=member1', v1, '/api/v1/admin/accounts', { local: 'true', username: 'member1' }],
      ['v1, display_name=Member 99 (walk)', v1, '/api/v1/admin/accounts', { display_name: 'Member 99' }],
      ['v2, no filter', v2, '/api/v2/admin/accounts', {}],
      ['v2, status=silenced', v2, '/api/v2/admin/accounts', { status: 'silenced' }],
      ['v2, origin=local&status=active', v2, '/api/v2/admin/accounts', { origin: 'local', status: 'active' }],
      ['v2, email=member5@example.com', v2, '/api/v2/admin/accounts', { email: 'member5@example.com' }],
    ];
    for (const [name, handler, path, query] of cases) {
      const res = await call(handler, { method: 'GET', path, query: { limit: '40', ...query }, token: raw });
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text}`);
      rows.push({
        request: name,
        accounts: res.body.length,
        'db calls': res.headers['x-db-calls'] ?? '?',
        'read units': res.headers['x-db-read-units'] ?? '?',
        'write units': res.headers['x-db-write-units'] ?? '?',
      });
    }
    process.stdout.write(`\nOne page (limit=40) of the admin account list, ${ACCOUNTS} accounts (${Math.ceil((ACCOUNTS - 1) / SILENCED_EVERY)} silenced):\n`);
    printTable(rows);
  } finally {
    await emulators.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
