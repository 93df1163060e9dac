// Latency and DynamoDB calls per request (X-Db-Calls) of the list endpoints on
// the local stack: a reader whose list holds 3 followed authors, who posted 60
// statuses between them after the list was made (so the fan-out worker, not the
// backfill, filled the list timeline).
// Usage: npm run bench:lists   (starts its own local stack; BENCH_COUNT=200 by default)
import { benchOnStack, fixtureUser, json, measure, printTable } from './lib';

const COUNT = Number(process.env.BENCH_COUNT ?? 200);
const AUTHORS = 3;
const STATUSES = 60;

benchOnStack(async (baseUrl) => {
  const as = (token: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => ({
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const reader = await fixtureUser(baseUrl);
  const authors = [];
  for (let i = 0; i < AUTHORS; i++) {
    const author = await fixtureUser(baseUrl);
    const account = await json<{ id: string }>(fetch(`${baseUrl}/api/v1/accounts/verify_credentials`, as(author.token)));
    await json(fetch(`${baseUrl}/api/v1/accounts/${account.id}/follow`, as(reader.token, {})));
    authors.push({ ...author, id: account.id });
  }
  const list = await json<{ id: string }>(fetch(`${baseUrl}/api/v1/lists`, as(reader.token, { title: 'bench' })));
  await json(fetch(`${baseUrl}/api/v1/lists/${list.id}/accounts`, as(reader.token, { account_ids: authors.map((a) => a.id) })));
  for (let i = 0; i < STATUSES; i++) {
    const author = authors[i % AUTHORS]!;
    await json(fetch(`${baseUrl}/api/v1/statuses`, as(author.token, { status: `list bench post ${i} https://example.com/${i}`, visibility: 'public' })));
  }
  // The fan-out runs as separate worker invocations: wait until the list timeline holds all of them.
  const timeline = (query: string) => json<{ id: string }[]>(fetch(`${baseUrl}/api/v1/timelines/list/${list.id}?${query}`, as(reader.token)));
  for (let tries = 0; ; tries++) {
    const first = await timeline('limit=40');
    const rest = first.length === 40 ? await timeline(`limit=40&max_id=${first.at(-1)!.id}`) : [];
    if (first.length + rest.length >= STATUSES) break;
    if (tries > 300) throw new Error(`the list timeline never filled (${first.length + rest.length} of ${STATUSES})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const members = await json<unknown[]>(fetch(`${baseUrl}/api/v1/lists/${list.id}/accounts`, as(reader.token)));
  if (members.length !== AUTHORS) throw new Error(`the list has ${members.length} accounts, not ${AUTHORS}`);

  const results = [
    await measure('GET /api/v1/timelines/list/:id (20)', COUNT, () => fetch(`${baseUrl}/api/v1/timelines/list/${list.id}?limit=20`, as(reader.token))),
    await measure('GET /api/v1/lists/:id/accounts', COUNT, () => fetch(`${baseUrl}/api/v1/lists/${list.id}/accounts`, as(reader.token))),
    await measure('GET /api/v1/lists', COUNT, () => fetch(`${baseUrl}/api/v1/lists`, as(reader.token))),
  ];
  process.stdout.write(`\nLocal stack latency (${COUNT} sequential requests each, after warm-up; list of ${AUTHORS} authors, ${STATUSES} statuses):\n`);
  printTable(results);
});
