// POST /users/:username/inbox and POST /inbox through the handler: a signed
// activity from a stored remote actor is queued once for the inbox worker with its
// verified signer, and every bad request is refused with its status and nothing
// queued or written. Keys are looked up by the real lookupKey (lib/federation/actors.ts)
// among the remote accounts stored here.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import { handler } from '../../functions/activitypub/inbox';
import { accountItem, type Account } from '../../lib/db/accounts';
import { createRemoteAccount } from '../../lib/db/remote';
import { readStashedBody } from '../../lib/federation/inbox_body';
import { receiveInboxRequest } from '../../lib/federation/inbox_request';
import { signRequest, type Signer } from '../../lib/federation/signatures';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { inboxMessage, type InboxMessage } from '../../lib/queue/messages';
import { aRemoteAccount, aUser } from '../support/factories';
import { call, type Call } from '../support/http';
import { storedItemCount } from '../support/items';

// ---- the inbox queue, watched: every message the endpoint sends lands here ----
const queued: InboxMessage[] = [];
registerInlineWorker('inbox', async (event: SQSEvent) => {
  for (const record of event.Records) queued.push(inboxMessage.parse(JSON.parse(record.body)));
  return { batchItemFailures: [] };
});

// ---- remote actors, stored as the actor fetcher would store them ----
type RemoteActor = { account: Account; signer: Signer };
const keyPair = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

const aRemoteActor = (username: string, domain = 'remote.example'): Promise<RemoteActor> => aRemoteAccount({ username, domain });

let bob: RemoteActor;
let carol: RemoteActor;
let dave: RemoteActor;
let alice: Account;

beforeAll(async () => {
  [bob, carol, dave, alice] = await Promise.all([
    aRemoteActor('bob'),
    aRemoteActor('carol', 'other.example'),
    aRemoteActor('dave'),
    aUser({ username: 'alice' }).then((u) => u.account),
  ]);
});
beforeEach(() => {
  queued.length = 0;
});

const followOf = (actor: RemoteActor, object = `https://social.example/users/alice`) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${actor.account.uri}#follows/${newId()}`,
  type: 'Follow',
  actor: actor.account.uri,
  object,
});

/** The request a peer makes: `body` signed by `signer` (Date `now`), then optionally changed on the way. */
function signedPost(
  path: string,
  body: string | Buffer,
  signer: Signer,
  opts: { now?: Date; contentType?: string; sent?: string | Buffer; query?: string; dropSignature?: boolean } = {},
): Call {
  const contentType = opts.contentType ?? 'application/activity+json';
  const url = `https://social.example${path}${opts.query ? `?${opts.query}` : ''}`;
  const headers = signRequest({ method: 'POST', url, headers: { 'content-type': contentType }, body }, signer, opts.now);
  if (opts.dropSignature) delete headers.signature;
  const username = /^\/users\/([^/]+)\/inbox$/.exec(path)?.[1];
  return {
    method: 'POST',
    path,
    query: opts.query,
    pathParameters: username ? { username } : undefined,
    headers,
    body: { data: opts.sent ?? body, contentType },
  };
}

describe('POST /users/:username/inbox and POST /inbox: accepted', () => {
  it('queues a signed Follow for its recipient, with the verified signer, and answers 202 with nothing', async () => {
    const follow = followOf(bob);
    const res = await call(handler, signedPost('/users/alice/inbox', JSON.stringify(follow), bob.signer));
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(queued).toEqual([{ activity: follow, signer: bob.account.uri, recipientId: alice.id, receivedAt: expect.any(String) }]);
  });

  it('queues an activity at the shared inbox without a recipient', async () => {
    const create = { id: 'https://remote.example/users/bob/statuses/1/activity', type: 'Create', actor: { id: bob.account.uri, type: 'Person' }, object: { id: 'https://remote.example/users/bob/statuses/1', type: 'Note', content: '<p>hi</p>' } };
    const res = await call(handler, signedPost('/inbox', JSON.stringify(create), bob.signer));
    expect(res.status).toBe(202);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ activity: create, signer: bob.account.uri });
    expect(queued[0]!.recipientId).toBeUndefined();
  });

  it.each([
    ['application/ld+json with its profile', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'],
    ['application/json', 'application/json'],
    ['application/activity+json with a charset', 'application/activity+json; charset=utf-8'],
  ])('takes %s', async (_what, contentType) => {
    const res = await call(handler, signedPost('/inbox', JSON.stringify(followOf(bob)), bob.signer, { contentType }));
    expect(res.status).toBe(202);
    expect(queued).toHaveLength(1);
  });

  it('verifies the exact bytes sent, when API Gateway hands them over base64-encoded', async () => {
    const bytes = Buffer.from(JSON.stringify({ ...followOf(bob), summary: 'héllo ✓' }), 'utf8');
    const res = await call(handler, signedPost('/inbox', bytes, bob.signer));
    expect(res.status).toBe(202);
    expect(queued[0]?.activity).toMatchObject({ summary: 'héllo ✓' });
  });

  it('verifies a signature over a path with a query string', async () => {
    const res = await call(handler, signedPost('/inbox', JSON.stringify(followOf(bob)), bob.signer, { query: 'from=relay' }));
    expect(res.status).toBe(202);
  });

  it('parks an activity too large for an SQS message in the bucket, and queues its key', async () => {
    const big = { ...followOf(bob), type: 'Create', object: { type: 'Note', content: 'x'.repeat(300 * 1024) } };
    const res = await call(handler, signedPost('/inbox', JSON.stringify(big), bob.signer));
    expect(res.status).toBe(202);
    expect(queued).toHaveLength(1);
    const message = queued[0]!;
    expect(message.activity).toBeUndefined();
    expect(message.bodyKey).toMatch(/^federation\/inbox\/[0-9a-f-]{36}\.json$/);
    expect(JSON.parse(await readStashedBody(message.bodyKey!))).toEqual(big);
  });

  it('takes the recorded Follow of a Fedify server at its inbox, verified with the stored key of its actor', async () => {
    const recorded = JSON.parse(readFileSync(new URL('../fixtures/activitypub/outgoing-Follow.json', import.meta.url), 'utf8'));
    const actor = JSON.parse(readFileSync(new URL('../fixtures/activitypub/actor-alice.json', import.meta.url), 'utf8'));
    await aUser({ username: 'probe' });
    const stored = accountItem.parse({
      id: newId(),
      username: actor.preferredUsername,
      domain: 'hollo-a.test',
      createdAt: new Date().toISOString(),
      uri: actor.id,
      inboxUrl: actor.inbox,
      publicKeyId: actor.publicKey.id,
      publicKeyPem: actor.publicKey.publicKeyPem,
      fetchedAt: new Date().toISOString(),
    });
    expect(await createRemoteAccount(stored)).toBe(true);
    // Recorded from a server delivering to an instance at probe.test: its signature covers that Host.
    process.env.LOCAL_DOMAIN = recorded.headers.host;
    try {
      await receiveInboxRequest(
        { method: recorded.method, path: recorded.url, headers: recorded.headers, body: Buffer.from(recorded.rawBody, 'utf8') },
        'probe',
        { now: new Date(recorded.headers.date) },
      );
    } finally {
      delete process.env.LOCAL_DOMAIN;
    }
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ activity: recorded.body, signer: actor.id });
  });
});

describe('POST /users/:username/inbox and POST /inbox: refused, nothing queued or written', () => {
  const follow = () => JSON.stringify(followOf(bob));
  const stranger = (): Signer => ({ keyId: bob.signer.keyId, privateKeyPem: keyPair().privateKey });
  const twoMegabytes = () => JSON.stringify({ ...followOf(bob), padding: 'x'.repeat(2 * 1024 * 1024) });

  const cases: [string, () => Call, number, string | RegExp][] = [
    ['no signature', () => signedPost('/users/alice/inbox', follow(), bob.signer, { dropSignature: true }), 401, 'Signature: missing signature'],
    ['a signature by another key than the one named', () => signedPost('/users/alice/inbox', follow(), stranger()), 401, 'Signature: bad signature'],
    ['a body that does not match its Digest', () => signedPost('/users/alice/inbox', follow(), bob.signer, { sent: follow().replace('Follow', 'Block') }), 401, 'Signature: digest mismatch'],
    ['a stale Date', () => signedPost('/inbox', follow(), bob.signer, { now: new Date(Date.now() - 2 * 3600_000) }), 401, 'Signature: date out of range'],
    ['an activity whose actor is on another server than the key', () => signedPost('/inbox', follow(), carol.signer), 401, "Signature: the key is not on the server of the activity's actor"],
    ['an activity whose actor does not own the key', () => signedPost('/inbox', follow(), dave.signer), 401, "Signature: the key does not belong to the activity's actor"],
    ['JSON that is not an object', () => signedPost('/inbox', '["Follow"]', bob.signer), 400, 'The body is not an ActivityStreams activity'],
    ['a bare JSON string', () => signedPost('/inbox', '"Follow"', bob.signer), 400, 'The body is not an ActivityStreams activity'],
    ['an object without an actor', () => signedPost('/inbox', JSON.stringify({ type: 'Follow', object: 'x' }), bob.signer), 400, 'The body is not an ActivityStreams activity'],
    ['an object whose type is not a string', () => signedPost('/inbox', JSON.stringify({ ...followOf(bob), type: 7 }), bob.signer), 400, 'The body is not an ActivityStreams activity'],
    ['a body that is not JSON', () => signedPost('/inbox', '{"type": "Follow",', bob.signer), 400, 'The body is not valid JSON'],
    ['a content type that is not JSON', () => signedPost('/inbox', follow(), bob.signer, { contentType: 'text/plain' }), 415, 'Unsupported content type: text/plain'],
    ['a 2 MB body, even signed', () => signedPost('/users/alice/inbox', twoMegabytes(), bob.signer), 413, 'The activity is larger than 1 MB'],
    ['a 2 MB body, unsigned', () => signedPost('/inbox', twoMegabytes(), bob.signer, { dropSignature: true }), 413, 'The activity is larger than 1 MB'],
    ['the inbox of nobody', () => signedPost('/users/nobody/inbox', follow(), bob.signer), 404, 'Record not found'],
    ['the inbox of a remote account', () => signedPost('/users/bob/inbox', follow(), bob.signer), 404, 'Record not found'],
  ];

  it.each(cases)('%s', async (_what, request, status, error) => {
    const before = await storedItemCount();
    const res = await call(handler, request());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
    expect(queued).toEqual([]);
    expect(await storedItemCount()).toBe(before);
  });
});
