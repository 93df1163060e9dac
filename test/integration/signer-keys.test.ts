// Who signed a GET of one of our documents (lib/federation/signer_keys.ts): the endpoints that
// serve actors, statuses and collections verify the signature with a key that is stored with its
// account, or fetched from its server and kept in memory, and never store a new account. Called
// through the handlers against dynalite, the keys served over HTTP by a server on loopback.
import { handler as actorHandler } from '../../functions/activitypub/actor';
import { handler as statusHandler } from '../../functions/activitypub/status';
import type { Account } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import { remoteAccountByUri } from '../../lib/db/remote';
import { saveActorDocument } from '../../lib/federation/actors';
import { signRequest, type Signer } from '../../lib/federation/signatures';
import { forgetKeptKeys, lookupSignerKey } from '../../lib/federation/signer_keys';
import { newId, padId } from '../../lib/ids';
import { dynamo } from '../../lib/aws';
import { call } from '../support/http';
import { aBareAccount, aFollow, aStoredStatus } from '../support/factories';
import { scanTable } from '../support/items';
import { aRemoteActor, remoteServer, type RemoteActor, type RemoteServer } from '../support/remote-server';

const BASE = 'https://social.example';
const AP_ACCEPT = 'application/activity+json';

let server: RemoteServer;
let alice: Account;
beforeAll(async () => {
  alice = await aBareAccount();
});
beforeEach(async () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  forgetKeptKeys();
  server = await remoteServer();
});
afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  await server.close();
  await updateInstanceSettings({ authorizedFetch: false });
});

const signedHeaders = (path: string, signer?: Signer) => ({
  accept: AP_ACCEPT,
  ...(signer ? signRequest({ method: 'GET', url: `${BASE}${path}`, headers: { accept: AP_ACCEPT } }, signer) : {}),
});

/** GET alice's actor document, signed by `signer` when given. */
const getActor = (signer?: Signer) => {
  const path = `/users/${alice.username}`;
  return call(actorHandler, { path, pathParameters: { username: alice.username }, headers: signedHeaders(path, signer) });
};

/** GET a status of alice as a Note, signed by `signer` when given. */
const getNote = (id: string, signer?: Signer) => {
  const path = `/users/${alice.username}/statuses/${id}`;
  return call(statusHandler, { path, pathParameters: { username: alice.username, id }, headers: signedHeaders(path, signer) });
};

/** The partition key of every item in the table. */
async function itemKeys(): Promise<string[]> {
  const found: string[] = [];
  await scanTable({ ProjectionExpression: 'PK' }, (page) => page.Items?.forEach((item) => found.push(String(item.PK))));
  return found;
}

const anActor = (overrides: Record<string, unknown> = {}, keyIndex = 0): RemoteActor => aRemoteActor(server.origin, `p${newId().slice(-8)}`, overrides, keyIndex);

describe('a signer we store nothing about', () => {
  it('is served with authorized fetch on: its key fetched once, no account stored', async () => {
    // Alice's key pair is made at the first fetch of her actor: not counted below.
    expect((await getActor()).status).toBe(200);
    await updateInstanceSettings({ authorizedFetch: true });
    const peer = anActor();
    server.serve(peer.doc);
    const before = new Set(await itemKeys());
    expect((await getActor(peer)).status).toBe(200);
    expect((await getActor(peer)).status).toBe(200);
    expect(server.received.map((r) => r.path)).toEqual([new URL(peer.doc.id).pathname]);
    expect(await remoteAccountByUri(peer.doc.id)).toBeUndefined();
    // The fetch of its key is signed by the instance actor, whose key pair is made at its first use.
    expect((await itemKeys()).filter((key) => !before.has(key) && key !== 'ACTORKEYS#INSTANCE')).toEqual([]);
  });

  it('sees what anyone sees: a followers-only status is "Record not found", a public one is served', async () => {
    const peer = anActor();
    server.serve(peer.doc);
    const secret = await aStoredStatus(alice, { visibility: 'private' });
    const open = await aStoredStatus(alice, { visibility: 'public' });
    const refused = await getNote(secret.id, peer);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: 'Record not found' });
    expect((await getNote(open.id, peer)).status).toBe(200);
  });

  it('may sign with a key published as a document of its own (GoToSocial), which its actor lists', async () => {
    await updateInstanceSettings({ authorizedFetch: true });
    const peer = anActor();
    const keyId = `${peer.doc.id}/main-key`;
    server.serve({ ...peer.doc, publicKey: { id: keyId, owner: peer.doc.id, publicKeyPem: peer.publicKeyPem } });
    server.route('GET', `${new URL(peer.doc.id).pathname}/main-key`, { body: { id: keyId, type: 'CryptographicKey', owner: peer.doc.id, publicKeyPem: peer.publicKeyPem } });
    expect((await getActor({ keyId, privateKeyPem: peer.privateKeyPem })).status).toBe(200);
    expect(await remoteAccountByUri(peer.doc.id)).toBeUndefined();
  });
});

describe('a stored follower', () => {
  it('is served its followers-only status from the stored key, with no fetch', async () => {
    const follower = anActor();
    const account = (await saveActorDocument(follower.doc))!;
    await aFollow(account, alice);
    const secret = await aStoredStatus(alice, { visibility: 'private' });
    const read: string[] = [];
    const stop = dynamo().observe((op, input) => {
      if (op === 'GetItem') read.push(String((input as { Key: { PK: string } }).Key.PK));
    });
    const res = await getNote(secret.id, follower).finally(stop);
    expect(res.status).toBe(200);
    expect(server.received).toHaveLength(0);
    // The key lookup and the question who signed read the follower's account once.
    expect(read.filter((pk) => pk.startsWith('ACTOR#'))).toHaveLength(1);
    expect(read.filter((pk) => pk === `ACCOUNT#${padId(account.id)}`)).toHaveLength(1);
  });

  it('whose key was rotated: one refetch, the new key written to its account and nothing else', async () => {
    const before = anActor({}, 0);
    const account = (await saveActorDocument(before.doc))!;
    await aFollow(account, alice);
    const after = aRemoteActor(server.origin, account.username, { name: 'Renamed meanwhile' }, 1);
    server.serve(after.doc);
    const secret = await aStoredStatus(alice, { visibility: 'private' });
    expect((await getNote(secret.id, after)).status).toBe(200);
    expect(server.received).toHaveLength(1);
    const stored = (await remoteAccountByUri(account.uri!))!;
    expect(stored.publicKeyPem).toBe(after.publicKeyPem);
    expect(stored).toMatchObject({ displayName: account.displayName, fetchedAt: account.fetchedAt, noteHtml: account.noteHtml });
    // The old key no longer verifies.
    expect((await getNote(secret.id, before)).status).toBe(404);
  });
});

describe('keys that do not prove who signed', () => {
  beforeEach(() => updateInstanceSettings({ authorizedFetch: true }));

  const refused = async (signer: Signer) => {
    const res = await getActor(signer);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'The request signature could not be verified' });
  };

  it('a key document naming an owner on another origin', async () => {
    const peer = anActor();
    const keyId = `${server.origin}/keys/k1`;
    server.route('GET', '/keys/k1', { body: { id: keyId, type: 'CryptographicKey', owner: 'https://elsewhere.example/users/x', publicKeyPem: peer.publicKeyPem } });
    await refused({ keyId, privateKeyPem: peer.privateKeyPem });
  });

  it('a key document naming an owner whose actor lists another key, or that is no actor', async () => {
    const peer = anActor();
    const other = aRemoteActor(server.origin, 'other', {}, 1);
    server.serve({ ...peer.doc, publicKey: { id: `${peer.doc.id}#main-key`, owner: peer.doc.id, publicKeyPem: other.publicKeyPem } });
    const keyId = `${server.origin}/keys/k2`;
    server.route('GET', '/keys/k2', { body: { id: keyId, type: 'CryptographicKey', owner: peer.doc.id, publicKeyPem: peer.publicKeyPem } });
    await refused({ keyId, privateKeyPem: peer.privateKeyPem });
    server.route('GET', '/keys/k3', { body: { id: `${server.origin}/keys/k3`, type: 'CryptographicKey', owner: `${server.origin}/notes/1`, publicKeyPem: peer.publicKeyPem } });
    server.route('GET', '/notes/1', { body: { id: `${server.origin}/notes/1`, type: 'Note', publicKey: { id: `${server.origin}/keys/k3`, publicKeyPem: peer.publicKeyPem } } });
    await refused({ keyId: `${server.origin}/keys/k3`, privateKeyPem: peer.privateKeyPem });
  });

  it('an actor document at the key URL claiming another id', async () => {
    const peer = anActor();
    server.route('GET', new URL(peer.doc.id).pathname, { body: { ...peer.doc, id: `${peer.doc.id}-other` } });
    await refused(peer);
  });

  it('a key whose actor lists it under another owner, or a key that does not read', async () => {
    const peer = anActor();
    server.serve({ ...peer.doc, publicKey: { id: peer.keyId, owner: `${server.origin}/users/someone-else`, publicKeyPem: peer.publicKeyPem } });
    await refused(peer);
    const broken = anActor();
    server.serve({ ...broken.doc, publicKey: { id: broken.keyId, owner: broken.doc.id, publicKeyPem: '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----' } });
    await refused(broken);
     // OpenSSL reads a real key with any text around it: 450 KB of it would make the actor's item pass DynamoDB's limit.
    const padded = anActor();
    server.serve({ ...padded.doc, publicKey: { id: padded.keyId, owner: padded.doc.id, publicKeyPem: `${'x'.repeat(450_000)}\n${padded.publicKeyPem}` } });
    await refused(padded);
    expect(await remoteAccountByUri(padded.doc.id)).toBeUndefined();
  });

  it('a server that does not answer, an unknown actor, one of our own key ids, a private address', async () => {
    server.route('GET', '/users/down', { status: 503, body: '' });
    const { privateKeyPem } = anActor();
    await refused({ keyId: `${server.origin}/users/down#main-key`, privateKeyPem });
    await refused({ keyId: `${server.origin}/users/nobody#main-key`, privateKeyPem });
    await refused({ keyId: `${BASE}/users/${alice.username}#main-key`, privateKeyPem });
    delete process.env.FEDERATION_ALLOW_PRIVATE;
    forgetKeptKeys();
    const peer = anActor();
    server.serve(peer.doc);
    await refused(peer);
    expect(server.received.map((r) => r.path)).toEqual(['/users/down', '/users/nobody']);
  });

  it('a stream of bad signatures with a known key fetches it again at most once a minute', async () => {
    const peer = anActor();
    server.serve(peer.doc);
    expect((await getActor(peer)).status).toBe(200);
    const forger = aRemoteActor(server.origin, 'forger', {}, 1);
    for (let i = 0; i < 3; i++) await refused({ keyId: peer.keyId, privateKeyPem: forger.privateKeyPem });
    expect(server.received).toHaveLength(1);
    expect(await lookupSignerKey(peer.keyId, { refresh: false })).toEqual({ publicKeyPem: peer.publicKeyPem, ownerUri: peer.doc.id });
  });
});
