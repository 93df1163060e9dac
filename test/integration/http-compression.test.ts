// Compressed answers (lib/http/compress.ts): a page of statuses is sent with brotli or gzip as the client's
// Accept-Encoding asks, q-values honoured, and reads back identical; small bodies, refused encodings and bodies
// already binary go as they are; every compressible answer says Vary: Accept-Encoding. The answers go through the
// handler's real path (HTTP event in, API Gateway's result out), read raw as API Gateway would forward them.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { handler as accountStatuses } from '../../functions/accounts/statuses';
import { handler as showStatus } from '../../functions/statuses/show';
import { chosenEncoding, COMPRESS_MIN_BYTES } from '../../lib/http/compress';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { buildEvent, lambdaContext } from '../support/http';

let author: UserFixture;
beforeAll(async () => {
  author = await aUser();
  for (let i = 0; i < 20; i++) {
    await aStoredStatus(author.account, { text: `status ${i}: ${'a sentence long enough to look like a real post, with words in it. '.repeat(3)}` });
  }
});

/** The handler's result as API Gateway receives it: headers lowercased, the body's bytes. */
async function raw(handler: typeof accountStatuses, path: string, pathParameters: Record<string, string>, acceptEncoding?: string) {
  const res = await handler(buildEvent({ path, pathParameters, headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding } }), lambdaContext());
  const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const bytes = res.isBase64Encoded ? Buffer.from(res.body ?? '', 'base64') : Buffer.from(res.body ?? '', 'utf8');
  return { status: res.statusCode, headers, bytes };
}

const page = () => raw(accountStatuses, `/api/v1/accounts/${author.account.id}/statuses`, { id: author.account.id }, undefined);
const pageWith = (acceptEncoding: string) => raw(accountStatuses, `/api/v1/accounts/${author.account.id}/statuses`, { id: author.account.id }, acceptEncoding);

describe('a page of 20 statuses', () => {
  it('is sent with brotli to a client that accepts it, and reads back the same; the bytes are measured', async () => {
    const plain = await page();
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    expect(JSON.parse(plain.bytes.toString('utf8'))).toHaveLength(20);

    const br = await pageWith('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(brotliDecompressSync(br.bytes).toString('utf8')).toBe(plain.bytes.toString('utf8'));
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 3);
    process.stdout.write(`20-status page: ${plain.bytes.length} bytes plain, ${br.bytes.length} with br\n`);
  });

  it('is sent with gzip when the client takes only gzip, or weighs it above brotli', async () => {
    for (const header of ['gzip', 'br;q=0.5, gzip', 'br;q=0, *']) {
      const res = await pageWith(header);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(gunzipSync(res.bytes).toString('utf8'))).toHaveLength(20);
    }
  });

  it('is sent as it is when nothing acceptable is offered, however the header is written', async () => {
    for (const header of ['', 'identity', 'deflate', 'br;q=0, gzip;q=0', 'gzip;q=nonsense', ';;,,', `x-${'a'.repeat(10_000)}`]) {
      const res = await pageWith(header);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(res.bytes.toString('utf8'))).toHaveLength(20);
    }
  });
});

describe('small and error answers', () => {
  it('go uncompressed below the threshold: a 404 error and one short status', async () => {
    const missing = await raw(showStatus, '/api/v1/statuses/1', { id: '1' }, 'br, gzip');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(missing.bytes.toString('utf8'))).toEqual({ error: 'Record not found' });
  });
});

describe('chosenEncoding', () => {
  it('prefers brotli at equal weight and honours q-values and the wildcard', () => {
    expect(chosenEncoding('gzip, br')).toBe('br');
    expect(chosenEncoding('br;q=0.2, gzip;q=0.8')).toBe('gzip');
    expect(chosenEncoding('*')).toBe('br');
    expect(chosenEncoding('*;q=0')).toBeUndefined();
    expect(chosenEncoding(undefined)).toBeUndefined();
    expect(COMPRESS_MIN_BYTES).toBeGreaterThan(0);
  });
});
