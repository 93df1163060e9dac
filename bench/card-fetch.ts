// Preview cards: the DynamoDB calls (and time) of one cards-worker message (lib/cards), against
// dynalite and s3rver started in this process and a web server on loopback serving an
// OpenGraph page with a 1200×630 JPEG. Four cases, each over its own statuses:
//   new URL     the page is fetched, its image copied and scaled, the card stored and attached,
//               the status streamed again (nobody listening) and counted toward link trends;
//   cached URL  another status linking to a URL fetched before: attached without fetching;
//   failed URL  the page answers 404: the failure is stored, nothing attached;
//   no link     a status without a link (only reaches the worker after an edit dropped its link).
// Usage: npx tsx bench/card-fetch.ts        (CARD_STATUSES=30 by default)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { federationBench, percentile, printTable } from './lib';

const COUNT = Number(process.env.CARD_STATUSES ?? 30);

async function main() {
  const emulators = await federationBench('cards');
  const { ensureBucket } = await import('../infra/local/bootstrap');
  const bucket = `cards-bench-${Date.now().toString(36)}`;
  Object.assign(process.env, { AWS_ENDPOINT_URL_S3: emulators.s3Endpoint, MEDIA_BUCKET: bucket, MEDIA_URL: `${emulators.s3Endpoint}/${bucket}` });
  await ensureBucket(emulators.s3Endpoint, bucket);
  // Imported after the environment points at the emulators.
  const { dbCalls } = await import('../lib/aws');
  const { accountItem } = await import('../lib/db/accounts');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const keys = await import('../lib/db/keys');
  const { newId } = await import('../lib/ids');
  const { processCardRequest } = await import('../lib/cards');

  const image = await sharp({ create: { width: 1200, height: 630, channels: 3, background: { r: 20, g: 120, b: 200 } } }).jpeg().toBuffer();
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/missing')) return res.writeHead(404, { 'content-type': 'text/html' }).end('<title>gone</title>');
    if (req.url === '/cover.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(image);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<html lang="en"><head><title>t</title><meta property="og:title" content="Story ${req.url}"><meta property="og:description" content="About it">` +
        `<meta property="og:image" content="/cover.jpg"><meta property="og:site_name" content="Bench News"></head><body>${'<p>text</p>'.repeat(2000)}</body></html>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const now = new Date().toISOString();
  const author = accountItem.parse({ id: newId(), username: 'linker', createdAt: now, confirmedAt: now, approved: true });
  const statusLinking = (href: string | undefined) => {
    const id = newId();
    return statusItem.parse({
      id,
      accountId: author.id,
      createdAt: now,
      visibility: 'public',
      conversationId: id,
      text: href ? `see ${href}` : 'no link',
      contentHtml: href ? `<p>see <a href="${href}">${href}</a></p>` : '<p>no link</p>',
    });
  };
  const cases = {
    'new URL': Array.from({ length: COUNT }, (_, i) => statusLinking(`${origin}/story/${i}`)),
    'cached URL': Array.from({ length: COUNT }, (_, i) => statusLinking(`${origin}/story/${i}`)),
    'failed URL': Array.from({ length: COUNT }, (_, i) => statusLinking(`${origin}/missing/${i}`)),
    'no link': Array.from({ length: COUNT }, () => statusLinking(undefined)),
  };
  await batchWrite([{ ...keys.account(author.id), ...author }, ...Object.values(cases).flat().map(statusRecord)]);

  const rows: Record<string, string | number>[] = [];
  for (const [name, statuses] of Object.entries(cases)) {
    const calls: number[] = [];
    const ms: number[] = [];
    const outcomes = new Set<string>();
    for (const status of statuses) {
      dbCalls.reset();
      const started = performance.now();
      outcomes.add(await processCardRequest({ statusId: status.id }));
      ms.push(performance.now() - started);
      calls.push(dbCalls.count);
    }
    rows.push({
      case: name,
      messages: statuses.length,
      outcome: [...outcomes].join('/'),
      dynamodb_calls: [...new Set(calls)].sort((a, b) => a - b).join('/'),
      p50_ms: percentile(ms, 50).toFixed(1),
      p99_ms: percentile(ms, 99).toFixed(1),
    });
  }
  printTable(rows);
  server.close();
  await emulators.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
