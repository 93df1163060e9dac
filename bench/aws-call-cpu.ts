// The CPU time one DynamoDB call costs the function that makes it, through lib/aws (the SDK's document client,
// signing, retries, metering): a GetItem and a Query of 20 items of 500 bytes, each answered at once by a
// stand-in server in another process, so that only the caller's work is counted (process.cpuUsage). The
// answer is the same every time; what is measured is building, signing and sending the request and parsing
// the answer. On the local stack every function shares this machine's cores, so this time is also what a
// call takes from the load bench's throughput (bench/load.ts); in Lambda it is billed time per call.
// Usage: npm run bench:aws-call-cpu        AWS_CALLS=3000
import { spawn } from 'node:child_process';
import { printTable } from './lib';

const CALLS = Number(process.env.AWS_CALLS ?? 3000);
const WARMUP = 300;

/** The stand-in: answers GetItem with one small item and Query with 20 larger ones. */
const SERVER = `
const item = (i) => ({ PK: { S: 'a' + i }, SK: { S: 'b' }, n: { N: '1' }, body: { S: 'x'.repeat(500) } });
const query = JSON.stringify({ Items: Array.from({ length: 20 }, (_, i) => item(i)), Count: 20, ScannedCount: 20 });
const get = JSON.stringify({ Item: { PK: { S: 'a' }, SK: { S: 'b' }, n: { N: '1' } } });
const server = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'bench' });
    res.end(String(req.headers['x-amz-target']).endsWith('.Query') ? query : get);
  });
});
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

async function main() {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}`,
    AWS_ACCESS_KEY_ID: 'BENCH',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    STAGE: process.env.STAGE || 'local',
  });
  const { dynamo } = await import('../lib/aws');
  const db = dynamo();
  const calls: Record<string, () => Promise<unknown>> = {
    GetItem: () => db.get({ TableName: 'bench', Key: { PK: 'a', SK: 'b' } }),
    'Query (20 items)': () => db.query({ TableName: 'bench', KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': 'a' } }),
  };
  const rows: Record<string, string | number>[] = [];
  try {
    for (const [name, call] of Object.entries(calls)) {
      for (let i = 0; i < WARMUP; i++) await call();
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) await call();
      const used = process.cpuUsage(cpu);
      rows.push({ call: name, calls: CALLS, 'cpu ms/call': ((used.user + used.system) / 1000 / CALLS).toFixed(3), 'wall ms/call': ((performance.now() - started) / CALLS).toFixed(3) });
    }
  } finally {
    child.kill();
  }
  process.stdout.write(`One DynamoDB call through lib/aws, the answer from a stand-in in another process (node ${process.version}):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
