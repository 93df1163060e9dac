// The inbox spends a key fetch only when it is worth one (lib/federation/key_gate.ts): POST /inbox through the
// handler, signed by actors with real keys on loopback servers that count every request they get. A keyId off
// its actor's server, a key or a host that failed lately, a host with its fetch slots held, an address past its
// budget: each is answered at once, with no request to anyone. A server that never answers does not hold the
// handler. Deep JSON and a signature made for another host are refused before anything else.
import type { SQSEvent } from 'aws-lambda';
import { handler } from '../../functions/activitypub/inbox';
import { handler as createApp } from '../../functions/apps/create';
import { abandonedKeyFetches, FETCHES_PER_HOST, useKeyFetchTimeout, useKeyWait } from '../../lib/federation/key_gate';
import { instanceSigner } from '../../lib/federation/keys';
import { signRequest, type Signer } from '../../lib/federation/signatures';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { aRemoteAccount } from '../support/factories';
import { call, type Call } from '../support/http';
import { aRemoteActor, remoteServer, type RemoteServer } from '../support/remote-server';

const queued: unknown[] = [];
registerInlineWorker('inbox', async (event: SQSEvent) => {
  for (const record of event.Records) queued.push(JSON.parse(record.body));
  return { batchItemFailures: [] };
});

let servers: RemoteServer[] = [];
const aServer = async () => {
  const server = await remoteServer();
  servers.push(server);
  return server;
};

// The instance actor's key pair signs every fetch: made once here, not inside a test's first fetch.
beforeAll(() => instanceSigner());
beforeEach(() => {
  queued.length = 0;
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  // A fetch the handler stopped waiting for ends once its server is gone: nothing of a test outlives it.
  await abandonedKeyFetches();
  useKeyFetchTimeout(undefined);
  useKeyWait(undefined);
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
});

/** An address of its own per test: the budget of unverifiable requests is per address. */
let addresses = 0;
const anAddress = () => `198.51.100.${++addresses}`;

const followBy = (actorId: string) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${actorId}#follows/${newId()}`,
  type: 'Follow',
  actor: actorId,
  object: 'https://social.example/users/nobody',
});

/** A POST to our shared inbox as a peer makes it: `body` signed by `signer` for `url`'s host. */
function signedPost(body: string, signer: Signer, opts: { sourceIp: string; url?: string }): Call {
  const headers = signRequest({ method: 'POST', url: opts.url ?? 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body }, signer);
  return { method: 'POST', path: '/inbox', headers, body: { data: body, contentType: 'application/activity+json' }, sourceIp: opts.sourceIp };
}

describe('honest peers', () => {
  it('takes the first delivery of an actor not yet known, fetching its key once', async () => {
    // What is tested is the path, not the machine's speed: a loaded one may take more than a second on loopback.
    useKeyWait(60_000);
    const server = await aServer();
    const actor = aRemoteActor(server.origin, 'hana');
    server.serve(actor.doc);
    const ip = anAddress();
    const first = await call(handler, signedPost(JSON.stringify(followBy(actor.doc.id)), actor, { sourceIp: ip }));
    const second = await call(handler, signedPost(JSON.stringify(followBy(actor.doc.id)), actor, { sourceIp: ip }));
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(server.received.map((r) => r.path)).toEqual(['/users/hana']);
    expect(queued).toHaveLength(2);
  });
});

describe('refused before any key fetch', () => {
  it('a keyId on another server than the actor: 401, and neither server is asked', async () => {
    const [actorServer, keyServer] = [await aServer(), await aServer()];
    const actor = aRemoteActor(actorServer.origin, 'ines');
    const elsewhere = aRemoteActor(keyServer.origin, 'ines');
    actorServer.serve(actor.doc);
    keyServer.serve(elsewhere.doc);
    const res = await call(handler, signedPost(JSON.stringify(followBy(actor.doc.id)), elsewhere, { sourceIp: anAddress() }));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Signature: the key is not on the server of the activity's actor" });
    expect(keyServer.received).toEqual([]);
    expect(actorServer.received).toEqual([]);
    expect(queued).toEqual([]);
  });

  it('a signature made for another host: 401, even from a known actor whose key verifies', async () => {
    const known = await aRemoteAccount({ username: 'jo', domain: 'remote.example' });
    const res = await call(handler, signedPost(JSON.stringify(followBy(known.account.uri!)), known.signer, { sourceIp: anAddress(), url: 'https://other.example/inbox' }));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Signature: signed for the host other.example, not this instance' });
    expect(queued).toEqual([]);
  });

  it('JSON nested deeper than any activity: 400, not a 500 when it is serialised', async () => {
    const known = await aRemoteAccount({ username: 'kai', domain: 'remote.example' });
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = JSON.stringify(followBy(known.account.uri!)).replace(/}$/, `,"tag":${deep}}`);
    const res = await call(handler, signedPost(body, known.signer, { sourceIp: anAddress() }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'The body is nested too deeply' });
    expect(queued).toEqual([]);
  });
});

describe('deep JSON on the client API', () => {
  it('POST /api/v1/apps with a deeply nested field: 400 {"error"}', async () => {
    const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const res = await call(createApp, {
      method: 'POST',
      path: '/api/v1/apps',
      body: { data: `{"client_name":"deep","redirect_uris":"urn:ietf:wg:oauth:2.0:oob","website":${deep}}`, contentType: 'application/json' },
      sourceIp: anAddress(),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Error occurred while parsing request parameters: nested too deeply' });
  });
});

describe('a key that failed is not fetched again within its window', () => {
  it('a missing key document: fetched once, then refused at once with Retry-After', async () => {
    const server = await aServer();
    const actor = aRemoteActor(server.origin, 'lee');
    // Its document is not served: 404.
    const ip = anAddress();
    const first = await call(handler, signedPost(JSON.stringify(followBy(actor.doc.id)), actor, { sourceIp: ip }));
    const second = await call(handler, signedPost(JSON.stringify(followBy(actor.doc.id)), actor, { sourceIp: ip }));
    expect(first.status).toBe(401);
    expect(second.status).toBe(401);
    expect(second.body).toEqual({ error: 'Signature: the key could not be fetched lately; not fetched again yet' });
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    expect(server.received.map((r) => r.path)).toEqual(['/users/lee']);
  });

  it('a host that failed (5xx): no key of it is fetched again, whoever names one', async () => {
    const server = await aServer();
    server.route('GET', '/users/max', { status: 502, body: 'bad gateway' });
    const [max, ned] = [aRemoteActor(server.origin, 'max'), aRemoteActor(server.origin, 'ned')];
    server.serve(ned.doc);
    const first = await call(handler, signedPost(JSON.stringify(followBy(max.doc.id)), max, { sourceIp: anAddress() }));
    const other = await call(handler, signedPost(JSON.stringify(followBy(ned.doc.id)), ned, { sourceIp: anAddress() }));
    expect(first.status).toBe(401);
    expect(other.status).toBe(401);
    expect(server.received.map((r) => r.path)).toEqual(['/users/max']);
  });
});

describe('a server that never answers', () => {
  it('holds no handler past its wait, and has at most FETCHES_PER_HOST fetches outstanding: the rest are answered 503 at once', async () => {
    // The fetches' own limit longer than the test: the slots stay held while the requests arrive. A wait of a few
    // seconds rather than one, so that a busy machine's slow table reads cannot end a wait before the slot is taken.
    useKeyFetchTimeout(120_000);
    useKeyWait(5_000);
    const server = await aServer();
    const actors = ['oli', 'pat', 'quinn', 'ray', 'sam'].map((name) => aRemoteActor(server.origin, name));
    for (const actor of actors) server.route('GET', new URL(actor.doc.id).pathname, { hang: true });
    const answers = await Promise.all(actors.map((actor) => call(handler, signedPost(JSON.stringify(followBy(actor.doc.id)), actor, { sourceIp: anAddress() }))));
    // Every handler returned though no fetch ever did.
    expect(answers.map((a) => a.status)).toEqual(Array(actors.length).fill(503));
    for (const a of answers) expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
    expect(answers.filter((a) => /too many key fetches/.test(String(a.body.error)))).toHaveLength(actors.length - FETCHES_PER_HOST);
    expect(answers.filter((a) => /could not be had in time/.test(String(a.body.error)))).toHaveLength(FETCHES_PER_HOST);
    expect(server.received).toHaveLength(FETCHES_PER_HOST);
    expect(queued).toEqual([]);
  });
});

describe('the budget of an address for unverifiable requests', () => {
  it('answers 429 with the rate-limit headers once spent, and then fetches nothing for it', async () => {
    process.env.RATE_LIMIT_FACTOR = '0.03'; // 100 × 0.03: 3 per window
    try {
      const [actorServer, keyServer] = [await aServer(), await aServer()];
      const actor = aRemoteActor(actorServer.origin, 'tess');
      const elsewhere = aRemoteActor(keyServer.origin, 'tess');
      const ip = anAddress();
      const unverifiable = () => call(handler, signedPost(JSON.stringify(followBy(actor.doc.id)), elsewhere, { sourceIp: ip }));
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await unverifiable()).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      // A key that could be fetched is not, from a spent address.
      const honestLooking = aRemoteActor(actorServer.origin, 'uma');
      actorServer.serve(honestLooking.doc);
      const res = await call(handler, signedPost(JSON.stringify(followBy(honestLooking.doc.id)), honestLooking, { sourceIp: ip }));
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'Too many requests' });
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(Date.parse(res.headers['x-ratelimit-reset']!)).toBeGreaterThan(Date.now());
      expect(actorServer.received).toEqual([]);
      expect(keyServer.received).toEqual([]);
      // Another address is not held by it.
      const elsewhereRes = await call(handler, signedPost(JSON.stringify(followBy(honestLooking.doc.id)), honestLooking, { sourceIp: anAddress() }));
      expect(elsewhereRes.status).toBe(202);
    } finally {
      delete process.env.RATE_LIMIT_FACTOR;
    }
  });
});
