// What compressing answers (lib/http/compress.ts) saves on the wire and costs the function: a page of 20 statuses
// of varied, post-like text (a different sentence mix per status, links, hashtags, mentions) read through the public
// timeline's handler with no Accept-Encoding, gzip, and brotli; the bytes of each body, and the time the function
// spends compressing (p50/p99 of compressAnswer alone over the same answer).
// Usage: npm run bench:compression   (in-process dynalite, no stack)
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

/** A deterministic pseudo-random source, so runs compare. */
let seed = 42;
const next = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)]!;
const WORDS = 'the a of to and in is it you that he was for on are with as his they be at one have this from or had by hot word but what some we can out other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find any new work part take get place made live where after back little only round man year came show every good me give our under name very through just form sentence great think say help low line differ turn cause much mean before move right boy old too same tell does set three want air well also play small end put home read hand port large spell add even land here must big high such follow act why ask men change went light kind off need house picture try us again animal point mother world near build self earth father'.split(' ');
const sentence = () => {
  const n = 6 + Math.floor(next() * 14);
  const words = Array.from({ length: n }, () => pick(WORDS));
  return `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`;
};

try {
  const { ensureTable } = await import('../infra/local/bootstrap');
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!);
  const { handler } = await import('../functions/timelines/public');
  const { aPostedStatus, aUser } = await import('../test/support/factories');
  const { buildEvent, lambdaContext } = await import('../test/support/http');
  const { compressAnswer } = await import('../lib/http/compress');
  type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

  const authors = await Promise.all(Array.from({ length: 5 }, () => aUser()));
  for (let i = 0; i < 20; i++) {
    const text = [sentence(), sentence(), next() < 0.5 ? sentence() : ''].join(' ').trim();
    const tag = pick(WORDS);
    const link = `https://news${i}.example/${randomBytes(6).toString('hex')}`;
    const html = `<p>${text} <a href="https://social.example/tags/${tag}" class="mention hashtag" rel="tag">#<span>${tag}</span></a></p><p><a href="${link}" rel="nofollow noopener" target="_blank">${link.slice(8)}</a></p>`;
    await aPostedStatus(authors[i % authors.length]!.account, { text: `${text} #${tag} ${link}`, contentHtml: html });
  }
  const read = async (acceptEncoding?: string) => {
    const headers: Record<string, string> = acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {};
    return (handler as Handler)(buildEvent({ path: '/api/v1/timelines/public', query: 'limit=20', headers }), lambdaContext());
  };
  const bytesOf = (r: APIGatewayProxyStructuredResultV2) => (r.isBase64Encoded ? Buffer.from(r.body ?? '', 'base64').length : Buffer.byteLength(r.body ?? ''));
  const plain = await read();
  const statuses = (JSON.parse(plain.body ?? '[]') as unknown[]).length;
  const time = (accept: string, runs = 500) => {
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      compressAnswer({ ...plain, headers: { ...(plain.headers as Record<string, string>) } }, accept);
      ms.push(performance.now() - start);
    }
    return { 'compress p50 ms': percentile(ms, 50).toFixed(3), 'compress p99 ms': percentile(ms, 99).toFixed(3) };
  };
  const rows = [];
  for (const [label, accept] of [['none (before)', undefined], ['gzip', 'gzip'], ['br', 'br, gzip']] as const) {
    const r = await read(accept);
    const bytes = bytesOf(r);
    rows.push({ 'Accept-Encoding': label, statuses, 'body bytes': bytes, 'of plain': `${((bytes / bytesOf(plain)) * 100).toFixed(1)}%`, ...(accept ? time(accept) : { 'compress p50 ms': '-', 'compress p99 ms': '-' }) });
  }
  process.stdout.write('\nPublic timeline, limit=20, through the handler:\n');
  printTable(rows);
} finally {
  await emulators.stop();
}
