// Outbound requests to other servers (lib/federation/fetch.ts, guard.ts) against a
// real HTTP server on loopback: the address guard refuses this network unless the
// local stage allows it (and refuses link-local always), checks names inside the
// connection's lookup and every redirect again; documents are signed by the
// instance actor, bounded in size and time, and must come from their own origin.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { FetchFailed, FetchRefused, fetchObject, guardedGet, MAX_DOCUMENT_BYTES, postActivity, REQUEST_TIMEOUT_MS, RETRY_AFTER_MAX_S, retryAfterSeconds, useRequestTimeout } from '../../lib/federation/fetch';
import { checkOutboundUrl } from '../../lib/federation/guard';
import { instancePublicKey, instanceSigner } from '../../lib/federation/keys';
import { verifyRequest } from '../../lib/federation/signatures';
import { useResolver } from '../../lib/net';
import { classifyAddress } from '../../lib/push/endpoint';
import { headersOf, remoteServer, type RemoteServer } from '../support/remote-server';

let names: Record<string, string[]> = {};
let server: RemoteServer;
let other: RemoteServer;

beforeAll(() => useResolver(async (host) => names[host] ?? Promise.reject(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }))));
afterAll(() => useResolver(undefined));

beforeEach(async () => {
  names = {};
  server = await remoteServer();
  other = await remoteServer();
});
afterEach(async () => {
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  process.env.STAGE = 'test';
  useRequestTimeout(undefined);
  await server.close();
  await other.close();
});

/** The local stage with FEDERATION_ALLOW_PRIVATE=1: loopback and private addresses, over http too. */
const allowPrivate = () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
};

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'fetched',
    (err) => (err instanceof FetchRefused ? `refused: ${err.reason}` : err instanceof FetchFailed ? `failed: ${err.reason}` : `threw ${err}`),
  );

const note = (origin: string, path = '/notes/1') => ({ id: `${origin}${path}`, type: 'Note', content: 'hi' });

describe('the address guard', () => {
  it.each([
    ['loopback', 'https://127.0.0.1/users/a'],
    ['loopback, another one', 'https://127.8.9.10/users/a'],
    ['IPv6 loopback', 'https://[::1]/users/a'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/users/a'],
    ['localhost', 'https://localhost/users/a'],
    ['RFC 1918', 'https://10.1.2.3/users/a'],
    ['RFC 1918, 192.168', 'https://192.168.0.10/users/a'],
    ['RFC 1918, 172.16', 'https://172.20.0.1/users/a'],
    ['unique-local IPv6', 'https://[fd12::1]/users/a'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
    ['this network', 'https://0.0.0.0/users/a'],
    ['carrier-grade NAT', 'https://100.64.1.1/users/a'],
    ['loopback spelled as one number', 'https://2130706433/users/a'],
    ['loopback spelled in hex', 'https://0x7f.0.0.1/users/a'],
    ['localhost with a trailing dot', 'https://localhost./users/a'],
  ])('refuses %s when private addresses are not allowed', async (_what, url) => {
    expect(await refusal(fetchObject(url))).toMatch(/^refused: points to a private, loopback/);
  });

  it('refuses plain http outside the local stage', async () => {
    names['public.test'] = ['93.184.216.34'];
    expect(await refusal(fetchObject('http://public.test/users/a'))).toBe('refused: must be an https URL');
  });

  it('lets a preview card\'s plain http reach a public address only, as Mastodon fetches http pages; federation stays https', async () => {
    expect(checkOutboundUrl('http://93.184.216.34/page', { plainHttp: true }).href).toBe('http://93.184.216.34/page');
    expect(() => checkOutboundUrl('http://93.184.216.34/page')).toThrow('must be an https URL');
    for (const inside of ['http://10.0.0.1/', 'http://127.0.0.1/', 'http://169.254.169.254/latest', 'http://localhost/']) {
      expect(() => checkOutboundUrl(inside, { plainHttp: true })).toThrow(/points to a private, loopback/);
    }
    // A name is checked inside the connection as for https: one that resolves inside is refused, nothing sent.
    names['inside.test'] = ['10.0.0.7'];
    names['rebound.test'] = ['127.0.0.1'];
    const page = (url: string) => guardedGet(url, { accept: 'text/html', plainHttp: true });
    expect(await refusal(page('http://inside.test/page'))).toMatch(/^refused: points to a private/);
    expect(await refusal(page(`http://rebound.test:${new URL(server.origin).port}/page`))).toMatch(/^refused: points to a private/);
    expect(server.received).toHaveLength(0);
  });

  it('refuses credentials in the URL and URLs that are not http(s)', async () => {
    expect(await refusal(fetchObject('https://user:pw@public.test/users/a'))).toBe('refused: must not contain credentials');
    expect(await refusal(fetchObject('ftp://public.test/users/a'))).toBe('refused: must be an https URL');
    expect(await refusal(fetchObject('not a url'))).toBe('refused: is not a valid URL');
  });

  it('checks a name inside the connection: a name that resolves inside is refused, with nothing sent', async () => {
    names['inside.test'] = ['10.0.0.7'];
    names['mixed.test'] = ['93.184.216.34', '192.168.1.1'];
    names['rebound.test'] = ['127.0.0.1'];
    expect(await refusal(fetchObject('https://inside.test/users/a'))).toMatch(/^refused: points to a private/);
    expect(await refusal(fetchObject('https://mixed.test/users/a'))).toMatch(/^refused: points to a private/);
    expect(await refusal(fetchObject(`https://rebound.test:${new URL(server.origin).port}/users/a`))).toMatch(/^refused/);
    expect(server.received).toHaveLength(0);
  });

  it('a name that does not resolve is a network failure, not a refusal', async () => {
    expect(await refusal(fetchObject('https://nowhere.test/users/a'))).toMatch(/^failed: host nowhere.test could not be resolved/);
  });

  it('refuses our own loopback server when FEDERATION_ALLOW_PRIVATE is set outside the local stage', async () => {
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    server.serve(note(server.origin));
    expect(await refusal(fetchObject(`${server.origin}/notes/1`))).toBe('refused: must be an https URL');
    expect(await refusal(fetchObject(`https://${server.host}/notes/1`))).toMatch(/^refused: points to a private/);
    expect(server.received).toHaveLength(0);
  });

  it('on the local stage with FEDERATION_ALLOW_PRIVATE=1, reaches loopback over http, but never link-local nor plain http to a public address', async () => {
    allowPrivate();
    server.serve(note(server.origin));
    expect(await fetchObject(`${server.origin}/notes/1`)).toEqual(note(server.origin));
    expect(await refusal(fetchObject('http://169.254.169.254/latest/meta-data'))).toMatch(/^refused: points to a private, loopback, link-local/);
    names['metadata.test'] = ['169.254.169.254'];
    expect(await refusal(fetchObject('https://metadata.test/latest'))).toMatch(/^refused: points to/);
    names['public.test'] = ['93.184.216.34'];
    expect(await refusal(fetchObject('http://public.test/users/a'))).toBe('refused: must be an https URL');
    names['remote.test'] = ['127.0.0.1'];
    server.serve(note(`http://remote.test:${new URL(server.origin).port}`));
    expect(await fetchObject(`http://remote.test:${new URL(server.origin).port}/notes/1`)).toMatchObject({ type: 'Note' });
  });

  it('classifies addresses for push and federation alike (lib/net.ts)', () => {
    expect(['8.8.8.8', '2606:4700::1111', '10.0.0.1', 'fd00::1', '127.0.0.1', '::1', '169.254.1.1', 'fe80::1', '::ffff:10.0.0.1'].map(classifyAddress)).toEqual([
      'public', 'public', 'private', 'private', 'loopback', 'loopback', 'reserved', 'reserved', 'private',
    ]);
  });
});

describe('fetchObject', () => {
  beforeEach(allowPrivate);

  it('sends a GET signed by the instance actor, asking for ActivityPub JSON', async () => {
    server.serve(note(server.origin));
    await fetchObject(`${server.origin}/notes/1?page=true`);
    const req = server.received[0]!;
    expect(req.path).toBe('/notes/1?page=true');
    expect(req.headers.accept).toBe('application/activity+json, application/ld+json');
    expect(req.headers['user-agent']).toMatch(/^tootless\//);
    expect(req.headers.signature).toContain(`keyId="${(await instanceSigner()).keyId}"`);
    const publicKeyPem = await instancePublicKey();
    const verified = await verifyRequest({ method: 'GET', path: req.path, headers: headersOf(req) }, async () => ({ publicKeyPem, ownerUri: 'https://social.example/actor' }));
    expect(verified).toMatchObject({ ok: true });
  });

  it('follows at most three redirects, checking and signing each hop for its own host', async () => {
    server.route('GET', '/a', { status: 301, headers: { location: `${other.origin}/b` } });
    other.route('GET', '/b', { status: 302, headers: { location: '/c' } });
    other.route('GET', '/c', { status: 307, headers: { location: `${other.origin}/notes/1` } });
    other.serve(note(other.origin));
    expect(await fetchObject(`${server.origin}/a`)).toEqual(note(other.origin));
    expect(other.received.map((r) => r.path)).toEqual(['/b', '/c', '/notes/1']);
    expect(other.received.every((r) => r.headers.host === other.host && /headers="\(request-target\) host date/.test(String(r.headers.signature)))).toBe(true);

    server.route('GET', '/loop', { status: 302, headers: { location: `${server.origin}/loop` } });
    expect(await refusal(fetchObject(`${server.origin}/loop`))).toBe('failed: more than 3 redirects');
  });

  it('refuses a redirect to where it may not go, sending nothing there', async () => {
    server.route('GET', '/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } });
    expect(await refusal(fetchObject(`${server.origin}/to-metadata`))).toMatch(/^refused: points to a private, loopback, link-local/);
    names['sneaky.test'] = ['169.254.169.254'];
    server.route('GET', '/to-name', { status: 302, headers: { location: 'https://sneaky.test/x' } });
    expect(await refusal(fetchObject(`${server.origin}/to-name`))).toMatch(/^refused/);
    server.route('GET', '/to-file', { status: 302, headers: { location: 'file:///etc/passwd' } });
    expect(await refusal(fetchObject(`${server.origin}/to-file`))).toBe('refused: must be an https URL');
  });

  it(`reads at most ${MAX_DOCUMENT_BYTES} bytes, declared or streamed`, async () => {
    const big = { ...note(server.origin), content: 'x'.repeat(MAX_DOCUMENT_BYTES) };
    server.serve(big);
    expect(await refusal(fetchObject(`${server.origin}/notes/1`))).toBe(`failed: larger than ${MAX_DOCUMENT_BYTES} bytes`);
    // Chunked, no Content-Length: counted as it arrives.
    const raw = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.write(`{"id":"http://127.0.0.1:${(raw.address() as AddressInfo).port}/big","content":"`);
      const chunk = 'y'.repeat(64 * 1024);
      for (let i = 0; i < 20; i++) res.write(chunk);
      res.end('"}');
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      expect(await refusal(fetchObject(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/big`))).toBe(`failed: larger than ${MAX_DOCUMENT_BYTES} bytes`);
    } finally {
      raw.closeAllConnections();
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('a compressed answer is decoded, and its size counted after decoding', async () => {
    server.route('GET', '/notes/1', { headers: { 'content-type': 'application/activity+json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(note(server.origin))) });
    expect(await fetchObject(`${server.origin}/notes/1`)).toEqual(note(server.origin));
    const bomb = gzipSync(JSON.stringify({ ...note(server.origin, '/notes/2'), content: 'z'.repeat(2 * MAX_DOCUMENT_BYTES) }));
    expect(bomb.length).toBeLessThan(MAX_DOCUMENT_BYTES);
    server.route('GET', '/notes/2', { headers: { 'content-encoding': 'gzip' }, body: bomb });
    expect(await refusal(fetchObject(`${server.origin}/notes/2`))).toBe(`failed: larger than ${MAX_DOCUMENT_BYTES} bytes`);
  });

  it('wants a JSON object whose id is on the origin it was served from', async () => {
    server.route('GET', '/elsewhere', { body: note(other.origin) });
    server.route('GET', '/no-id', { body: { type: 'Note' } });
    server.route('GET', '/array', { body: [note(server.origin)] });
    server.route('GET', '/html', { headers: { 'content-type': 'text/html' }, body: '<html>hi</html>' });
    // Redirected: the id must be on the origin of the last hop.
    server.route('GET', '/moved', { status: 301, headers: { location: `${other.origin}/notes/1` } });
    other.route('GET', '/notes/1', { body: note(server.origin) });
    expect(await refusal(fetchObject(`${server.origin}/elsewhere`))).toMatch(/^failed: its id ".*" is not on the origin it was served from/);
    expect(await refusal(fetchObject(`${server.origin}/no-id`))).toMatch(/^failed: its id null/);
    expect(await refusal(fetchObject(`${server.origin}/array`))).toBe('failed: is not a JSON object');
    expect(await refusal(fetchObject(`${server.origin}/html`))).toBe('failed: is not a JSON object');
    expect(await refusal(fetchObject(`${server.origin}/moved`))).toMatch(/is not on the origin/);
  });

  it('fails with the status a server answers', async () => {
    server.route('GET', '/gone', { status: 410, body: '' });
    const err = await fetchObject(`${server.origin}/gone`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchFailed);
    expect((err as FetchFailed).status).toBe(410);
  });

  it(`gives up on a server that does not answer (${REQUEST_TIMEOUT_MS} ms; shortened here)`, async () => {
    useRequestTimeout(300);
    server.route('GET', '/slow', { hang: true });
    const started = Date.now();
    expect(await refusal(fetchObject(`${server.origin}/slow`))).toBe('failed: no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('postActivity', () => {
  beforeEach(allowPrivate);
  const activity = { '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://social.example/users/a#follows/1', type: 'Follow' };

  it('POSTs the activity as application/activity+json, signed over the body too, and answers the status', async () => {
    server.route('POST', '/inbox', { status: 202, body: '' });
    const signer = await instanceSigner();
    expect(await postActivity(`${server.origin}/inbox`, activity, signer)).toEqual({ status: 202 });
    const req = server.received[0]!;
    expect(req.headers['content-type']).toBe('application/activity+json');
    expect(JSON.parse(req.body.toString('utf8'))).toEqual(activity);
    expect(String(req.headers.signature)).toMatch(/headers="\(request-target\) host date digest content-type"/);
    const publicKeyPem = await instancePublicKey();
    const verified = await verifyRequest({ method: 'POST', path: req.path, headers: headersOf(req), body: req.body }, async () => ({ publicKeyPem, ownerUri: 'x' }));
    expect(verified).toMatchObject({ ok: true });
  });

  it('answers error statuses as they are, and a closed port as a network failure', async () => {
    server.route('POST', '/inbox', { status: 503, headers: { 'retry-after': '7' }, body: 'busy' });
    const signer = await instanceSigner();
    expect(await postActivity(`${server.origin}/inbox`, activity, signer)).toEqual({ status: 503, retryAfterS: 7 });
    const port = new URL(other.origin).port;
    await other.close();
    expect(await refusal(postActivity(`http://127.0.0.1:${port}/inbox`, activity, signer))).toMatch(/^failed: .*ECONNREFUSED/);
    other = await remoteServer();
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day; anything else is unreadable', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('2026', now)).toBe(2026);
    expect(retryAfterSeconds('Sat, 28 Nov 2026 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Sat, 28 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('99999999', now)).toBe(RETRY_AFTER_MAX_S);
    expect(retryAfterSeconds('Sat, 28 Nov 2099 12:00:00 GMT', now)).toBe(RETRY_AFTER_MAX_S);
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '12345678901', '2026-12-01']) expect(retryAfterSeconds(bad, now)).toBeUndefined();
  });

  it('refuses an inbox on a forbidden address before sending', async () => {
    const signer = await instanceSigner();
    expect(await refusal(postActivity('http://169.254.169.254/inbox', activity, signer))).toMatch(/^refused/);
  });
});
