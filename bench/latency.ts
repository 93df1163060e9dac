// Latency of the main endpoints on the local stack, and the DynamoDB calls each
// request makes (the stack's X-Db-Calls header, counted by lib/aws.ts).
// Usage: npm run bench            (starts its own local stack)
//        BENCH_URL=http://localhost:3000 npm run bench   (against a running one)
import { benchOnStack, fixtureUser, measure, printTable } from './lib';

const COUNT = Number(process.env.BENCH_COUNT ?? 200);

benchOnStack(async (baseUrl) => {
  const user = await fixtureUser(baseUrl);
  const auth = { headers: { Authorization: `Bearer ${user.token}` } };
  const results = [
    await measure('GET /api/v1/accounts/verify_credentials', COUNT, () => fetch(`${baseUrl}/api/v1/accounts/verify_credentials`, auth)),
    await measure('POST /oauth/token (client_credentials)', COUNT, () =>
      fetch(`${baseUrl}/oauth/token`, user.form({ grant_type: 'client_credentials', client_id: user.app.client_id, client_secret: user.app.client_secret, scope: 'read' }))),
    await measure('POST /oauth/token (password)', Math.ceil(COUNT / 4), () =>
      fetch(`${baseUrl}/oauth/token`, user.form({ grant_type: 'password', client_id: user.app.client_id, client_secret: user.app.client_secret, username: user.email, password: user.password, scope: 'read' }))),
    await measure('GET /api/v1/instance', COUNT, () => fetch(`${baseUrl}/api/v1/instance`)),
    await measure('GET /api/v2/instance', COUNT, () => fetch(`${baseUrl}/api/v2/instance`)),
  ];
  process.stdout.write(`\nLocal stack latency (${COUNT} sequential requests each, after warm-up; password grant ${Math.ceil(COUNT / 4)}):\n`);
  printTable(results);
});
