// How large a page of statuses remote content can make, and what holding pages to the response's size
// (lib/http/page.ts) costs. Forty remote statuses as large as b0d7161's ingest stored them (99,900
// control characters, each 6 bytes of JSON and 7 of the function's result) on the public timeline,
// read through the handler with limit=40: b0d7161 answered them as one page (the sum of the pages
// below, over Lambda's 6 MB, so API Gateway answered 500); now each page stays within the budget and
// the Link walks to the rest. Then the size check's cost on an ordinary 20-status page: serializing
// the rendered page as before (one JSON.stringify) against pageReply (per-item serialization, one byte count).
// Usage: npm run bench:page-bytes   (in-process dynalite, no stack)
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { inProcessEmulators, percentile, printTable } from './lib';

const emulators = await inProcessEmulators();
const suffix = randomBytes(4).toString('hex');
Object.assign(process.env, {
  STAGE: 'test',
  TABLE_NAME: `bench-${suffix}`,
  MEDIA_BUCKET: `media-${suffix}`,
  BASE_URL: 'https://social.example',
  STREAMING_URL: 'wss://social.example',
  QUEUE_MODE: 'inline',
  SECRET_KEY_BASE: `bench-secret-${suffix}`,
  LOG_LEVEL: 'silent',
});

try {
  const { ensureTable } = await import('../infra/local/bootstrap');
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!);
  const { handler } = await import('../functions/timelines/public');
  const { aPostedStatus, aRemoteAccount, aUser } = await import('../test/support/factories');
  const { buildEvent, lambdaContext } = await import('../test/support/http');
  const { newId } = await import('../lib/ids');
  const { renderStatuses } = await import('../lib/render/status');
  const { ownId, pageReply } = await import('../lib/http/page');
  const { LAMBDA_RESPONSE_PAYLOAD_BYTES, PAGE_BODY_BUDGET_BYTES } = await import('../lib/http/limits');
  type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

  const remote = await aRemoteAccount({ domain: 'large.example' });
  const base = Date.now() - 60_000;
  const largest = '\u0001'.repeat(99_900);
  for (let i = 0; i < 40; i++) {
    const id = newId(base + i);
    await aPostedStatus(remote.account, { id, uri: `https://large.example/s/${id}`, url: `https://large.example/@r/${id}`, text: largest, contentHtml: `<p>${largest}</p>` });
  }
  const pages: { bytes: number; statuses: number }[] = [];
  let query = 'limit=40&remote=true';
  for (;;) {
    const result = await (handler as Handler)(buildEvent({ path: '/api/v1/timelines/public', query }), lambdaContext());
    const statuses = (JSON.parse(result.body ?? '[]') as unknown[]).length;
    if (statuses === 0) break;
    pages.push({ bytes: Buffer.byteLength(JSON.stringify(result)), statuses });
    const next = /<([^>]+)>; rel="next"/.exec(String(result.headers?.Link ?? ''));
    if (!next) break;
    query = new URL(next[1]!).searchParams.toString();
  }
  const mb = (n: number) => `${(n / 1_000_000).toFixed(2)} MB`;
  process.stdout.write(`\nPublic timeline, 40 remote statuses of 99,900 control characters, limit=40 (Lambda's limit ${LAMBDA_RESPONSE_PAYLOAD_BYTES} bytes; page budget ${PAGE_BODY_BUDGET_BYTES}):\n`);
  printTable([
    { answer: 'b0d7161: one page of all 40 (sum of the pages below)', statuses: 40, bytes: pages.reduce((n, p) => n + p.bytes, 0), size: mb(pages.reduce((n, p) => n + p.bytes, 0)) },
    ...pages.map((p, i) => ({ answer: `now: page ${i + 1}`, statuses: p.statuses, bytes: p.bytes, size: mb(p.bytes) })),
  ]);

  // An ordinary page: 20 local statuses of typical length, rendered once.
  const author = await aUser();
  const ordinary = [];
  for (let i = 0; i < 20; i++) {
    ordinary.push(await aPostedStatus(author.account, { text: `bench post ${i} #bench https://example.com/${i} ${'lorem ipsum dolor sit amet '.repeat(8)}`, contentHtml: `<p>bench post ${i} <a href="https://example.com/tags/bench" class="mention hashtag" rel="tag">#<span>bench</span></a> <a href="https://example.com/${i}" rel="nofollow noopener" target="_blank">example.com/${i}</a> ${'lorem ipsum dolor sit amet '.repeat(8)}</p>` }));
  }
  const body = await renderStatuses(ordinary, undefined, { context: 'public' });
  const ctx = { path: '/api/v1/timelines/public', query: { limit: '20' } };
  const edges = { newest: ordinary.at(-1)!.id, oldest: ordinary[0]!.id };
  const time = (fn: () => unknown, runs = 5000) => {
    for (let i = 0; i < 200; i++) fn();
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      fn();
      ms.push(performance.now() - start);
    }
    return { p50: percentile(ms, 50).toFixed(4), p99: percentile(ms, 99).toFixed(4) };
  };
  const bytes = Buffer.byteLength(JSON.stringify(body));
  process.stdout.write(`\nSerializing an ordinary 20-status page (${bytes} bytes), ms:\n`);
  printTable([
    { path: 'b0d7161: JSON.stringify(page)', ...time(() => JSON.stringify(body)) },
    { path: 'now: pageReply with the size check', ...time(() => pageReply(ctx, edges, body, { keyOf: ownId }).body) },
  ]);
} finally {
  await emulators.stop();
}
