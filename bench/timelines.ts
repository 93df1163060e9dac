// Latency of the timeline and posting endpoints on the local stack, with the
// DynamoDB calls each request makes (X-Db-Calls).
// Usage: npm run bench:timelines   (starts its own local stack)
import { benchOnStack, fixtureUser, json, measure, printTable } from './lib';

const COUNT = Number(process.env.BENCH_COUNT ?? 200);

benchOnStack(async (baseUrl) => {
  const reader = await fixtureUser(baseUrl);
  const author = await fixtureUser(baseUrl);
  const as = (token: string, body?: unknown) => ({
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const authorAccount = await json<{ id: string }>(fetch(`${baseUrl}/api/v1/accounts/verify_credentials`, as(author.token)));
  await json(fetch(`${baseUrl}/api/v1/accounts/${authorAccount.id}/follow`, as(reader.token, {})));
  for (let i = 0; i < 40; i++) {
    await json(fetch(`${baseUrl}/api/v1/statuses`, as(author.token, { status: `bench post ${i} #bench https://example.com/${i}`, visibility: 'public' })));
  }
  // The fan-out runs as separate worker invocations: wait for the reader's home to fill.
  for (let tries = 0; ; tries++) {
    const page = await json<unknown[]>(fetch(`${baseUrl}/api/v1/timelines/home?limit=40`, as(reader.token)));
    if (page.length >= 40) break;
    if (tries > 100) throw new Error('home timeline never filled');
    await new Promise((r) => setTimeout(r, 100));
  }
  let n = 0;
  const results = [
    await measure('GET /api/v1/timelines/home (20)', COUNT, () => fetch(`${baseUrl}/api/v1/timelines/home?limit=20`, as(reader.token))),
    await measure('GET /api/v1/timelines/public (20)', COUNT, () => fetch(`${baseUrl}/api/v1/timelines/public?limit=20`)),
    await measure('GET /api/v1/timelines/tag/bench (20)', COUNT, () => fetch(`${baseUrl}/api/v1/timelines/tag/bench?limit=20`)),
    await measure('POST /api/v1/statuses', COUNT, () => fetch(`${baseUrl}/api/v1/statuses`, as(author.token, { status: `measured post ${n++} #bench` }))),
  ];
  process.stdout.write(`\nLocal stack latency (${COUNT} sequential requests each, after warm-up):\n`);
  printTable(results);
});
