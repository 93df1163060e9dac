// Consent to be featured across servers (Mastodon 4.6's FeatureRequest and FeatureAuthorization): a remote
// collection asking to feature one of our accounts (answered by its policy, our authorization served and withdrawn),
// one of our collections featuring a remote account (asked, accepted only on an authorization that verifies,
// rejected, withdrawn; the remote actor's canFeature read first), and a received collection's items of a third
// server's accounts and of ours (kept only on an authorization that verifies). The other servers are real HTTP
// servers on loopback (test/support/remote-server.ts, the local stage with FEDERATION_ALLOW_PRIVATE=1); received
// activities go through processActivity, deliveries are collected from the queue.
import { handler as featureAuthorizationHandler } from '../../functions/activitypub/feature_authorization';
import { handler as collectionDoc } from '../../functions/activitypub/collection';
import { handler as accountCollections } from '../../functions/collections/account_collections';
import { handler as addItemHandler } from '../../functions/collections/add_item';
import { handler as createHandler } from '../../functions/collections/create';
import { handler as inCollections } from '../../functions/collections/in_collections';
import { handler as revokeHandler } from '../../functions/collections/revoke_item';
import { handler as showHandler } from '../../functions/collections/show';
import { MAX_ITEMS } from '../../lib/collections';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { createFollow } from '../../lib/db/follows';
import { remoteAccountByUri } from '../../lib/db/remote';
import { accountByActorUri } from '../../lib/federation/actors';
import { instanceSigner } from '../../lib/federation/keys';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { queueMessages, type QueueName } from '../../lib/queue/messages';
import { activity, collectDeliveries, receive } from '../support/activities';
import { aFollow, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';
import { aRemoteActor, remoteServer, type RemoteActor, type RemoteServer } from '../support/remote-server';

for (const queue of Object.keys(queueMessages) as QueueName[]) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));
const delivered = collectDeliveries();

type Doc = Record<string, unknown> & { id: string };

let server: RemoteServer;
/** A third server: the home of accounts another server's collection features. */
let elsewhere: RemoteServer;

beforeAll(async () => {
  await instanceSigner();
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  server = await remoteServer();
  elsewhere = await remoteServer();
});

afterAll(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  await Promise.all([server.close(), elsewhere.close()]);
});

const ok = (res: Answer) => {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text}`);
  return res.body;
};

async function someone(opts: { discoverable?: boolean } = {}): Promise<UserFixture> {
  const user = await aUser();
  await updateAccount(user.account.id, { discoverable: opts.discoverable ?? true, locked: false });
  return user;
}

let n = 0;
/** A remote actor served on `on` (and stored here, as the inbox's signature check stores it). */
async function anActor(on: RemoteServer, overrides: Record<string, unknown> = {}): Promise<{ actor: RemoteActor; account: Account & { uri: string } }> {
  const actor = aRemoteActor(on.origin, `peer${++n}`, overrides);
  on.serve(actor.doc);
  await accountByActorUri(actor.doc.id);
  const account = (await remoteAccountByUri(actor.doc.id))!;
  return { actor, account: account as Account & { uri: string } };
}

const canFeature = (automaticApproval: unknown[], manualApproval: unknown[] = []) => ({ interactionPolicy: { canFeature: { automaticApproval, manualApproval } } });

/** A FeaturedCollection of `owner` on its server, served there unless told otherwise. */
function aCollection(on: RemoteServer, owner: RemoteActor, items: unknown[] = [], serve = true): Doc {
  const doc = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${owner.doc.id}/collections/${++n}`,
    type: 'FeaturedCollection',
    name: 'Friends',
    attributedTo: owner.doc.id,
    summary: '',
    sensitive: false,
    discoverable: true,
    totalItems: items.length,
    orderedItems: items,
  };
  if (serve) on.serve(doc);
  return doc;
}

const authorizationOf = (id: string, collectionUri: string, featured: string): Doc => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id,
  type: 'FeatureAuthorization',
  interactingObject: collectionUri,
  interactionTarget: featured,
});

const fetchesOf = (on: RemoteServer, path: string) => on.received.filter((r) => r.method === 'GET' && r.path === path).length;

const createRes = (user: UserFixture, json: Record<string, unknown>) => call(createHandler, { method: 'POST', path: '/api/v1/collections', json, token: user.token });
const aLocalCollection = async (user: UserFixture) => ok(await createRes(user, { name: 'Worth it', sensitive: false, discoverable: true })).collection as { id: string; uri: string };
const addItem = (user: UserFixture, collectionId: string, accountId: string) =>
  call(addItemHandler, { method: 'POST', path: `/api/v1/collections/${collectionId}/items`, pathParameters: { id: collectionId }, json: { account_id: accountId }, token: user.token });
const showOf = async (id: string, viewer: UserFixture) => ok(await call(showHandler, { path: `/api/v1/collections/${id}`, pathParameters: { id }, token: viewer.token }));
const storedCollection = async (owner: Account, uri: string, viewer: UserFixture) =>
  (ok(await call(accountCollections, { path: `/api/v1/accounts/${owner.id}/collections`, pathParameters: { id: owner.id }, token: viewer.token })).collections as any[]).find((c) => c.uri === uri);
const authorizationDoc = (username: string, id: string) =>
  call(featureAuthorizationHandler, { path: `/users/${username}/feature_authorizations/${id}`, pathParameters: { username, id }, headers: { accept: 'application/activity+json' } });
const sent = () => delivered.map((d) => ({ inbox: d.inbox, type: (d.activity as Doc).type }));

describe('a remote collection asks to feature one of our accounts', () => {
  it('accepts for a discoverable account: the Accept names our FeatureAuthorization, served until revoked, whose Delete then goes out', async () => {
    const { actor: alice, account: aliceAccount } = await anActor(server);
    const local = await someone();
    const collection = aCollection(server, alice);
    const request = activity(aliceAccount, 'FeatureRequest', apUrls.actor(local.account.username), { instrument: collection.id });
    expect(await receive(request)).toBe('applied');

    expect(sent()).toEqual([{ inbox: `${alice.doc.id}/inbox`, type: 'Accept' }]);
    const accept = delivered[0]!.activity as Doc;
    expect(delivered[0]!.signer).toEqual({ accountId: local.account.id });
    expect(accept).toMatchObject({ actor: apUrls.actor(local.account.username), to: alice.doc.id, object: request.id });
    const result = accept.result as string;
    expect(result).toMatch(new RegExp(`^${apUrls.actor(local.account.username)}/feature_authorizations/\\d+-\\d+$`));

    // The collection was fetched and stored, our account in it, accepted; the account sees where it is featured.
    const stored = await storedCollection(aliceAccount, collection.id, local);
    expect(stored.items).toEqual([expect.objectContaining({ account_id: local.account.id, state: 'accepted' })]);
    const featuredIn = ok(await call(inCollections, { path: `/api/v1/accounts/${local.account.id}/in_collections`, pathParameters: { id: local.account.id }, token: local.token }));
    expect(featuredIn.collections.map((c: { id: string }) => c.id)).toEqual([stored.id]);

    const authId = result.split('/').pop()!;
    const served = await authorizationDoc(local.account.username, authId);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ id: result, type: 'FeatureAuthorization', interactingObject: collection.id, interactionTarget: apUrls.actor(local.account.username) });
    expect(served.headers['cache-control']).toBe('private, no-store');

    // The owner then lists it, naming our authorization: the same item, now with its FeaturedItem id.
    const item = { id: `${collection.id}/items/1`, type: 'FeaturedItem', featuredObject: apUrls.actor(local.account.username), featureAuthorization: result };
    expect(await receive(activity(aliceAccount, 'Add', item, { target: collection.id }))).toBe('applied');
    const update = { ...collection, name: 'Renamed', orderedItems: [item] };
    expect(await receive(activity(aliceAccount, 'Update', update))).toBe('applied');
    const shown = await showOf(stored.id, local);
    expect(shown.collection).toMatchObject({ name: 'Renamed', items: [{ id: stored.items[0].id, account_id: local.account.id, state: 'accepted' }] });

    // Revoked by the featured account: the owner's server is sent the Delete of the authorization, no more served.
    delivered.length = 0;
    const itemId = stored.items[0].id as string;
    const revoke = await call(revokeHandler, { method: 'POST', path: `/api/v1/collections/${stored.id}/items/${itemId}/revoke`, pathParameters: { id: stored.id, item_id: itemId }, token: local.token });
    expect(revoke.status).toBe(200);
    expect(sent()).toEqual([{ inbox: `${alice.doc.id}/inbox`, type: 'Delete' }]);
    expect(delivered[0]!.activity).toMatchObject({ actor: apUrls.actor(local.account.username), to: [AS_PUBLIC], object: { id: result, type: 'FeatureAuthorization', interactingObject: collection.id } });
    expect((await authorizationDoc(local.account.username, authId)).status).toBe(404);
    expect((await showOf(stored.id, local)).collection.items).toEqual([]);
    // Listing it again with the withdrawn authorization keeps nothing; a new request is rejected.
    expect(await receive(activity(aliceAccount, 'Update', { ...update, name: 'Again' }))).toBe('applied');
    expect((await showOf(stored.id, local)).collection.items).toEqual([]);
    delivered.length = 0;
    expect(await receive(activity(aliceAccount, 'FeatureRequest', apUrls.actor(local.account.username), { instrument: collection.id }))).toBe('applied');
    expect(sent().map((s) => s.type)).toEqual(['Reject']);
  });

  it('rejects for an account not discoverable, and stores no item of it', async () => {
    const { actor: alice, account: aliceAccount } = await anActor(server);
    const shy = await someone({ discoverable: false });
    const collection = aCollection(server, alice);
    const request = activity(aliceAccount, 'FeatureRequest', apUrls.actor(shy.account.username), { instrument: collection.id });
    expect(await receive(request)).toBe('applied');
    expect(sent()).toEqual([{ inbox: `${alice.doc.id}/inbox`, type: 'Reject' }]);
    expect(delivered[0]!.activity).toMatchObject({ actor: apUrls.actor(shy.account.username), object: request.id });
    expect((delivered[0]!.activity as Doc).result).toBeUndefined();
    expect((await storedCollection(aliceAccount, collection.id, shy)).items).toEqual([]);
  });

  it('forged requests change nothing: a collection on another server, or not the actor\'s, or an item naming an authorization not given', async () => {
    const { actor: alice, account: aliceAccount } = await anActor(server);
    const { actor: mallory } = await anActor(elsewhere);
    const local = await someone();
    const target = apUrls.actor(local.account.username);
    // The instrument on another server than the actor's: not fetched, not answered.
    const theirs = aCollection(elsewhere, mallory);
    const before = fetchesOf(elsewhere, new URL(theirs.id).pathname);
    expect(await receive(activity(aliceAccount, 'FeatureRequest', target, { instrument: theirs.id }))).toBe('ignored');
    expect(fetchesOf(elsewhere, new URL(theirs.id).pathname)).toBe(before);
    // A collection on the actor's server attributed to someone else.
    const notHers = { ...aCollection(server, alice, [], false), attributedTo: mallory.doc.id };
    server.serve(notHers);
    expect(await receive(activity(aliceAccount, 'FeatureRequest', target, { instrument: notHers.id }))).toBe('ignored');
    expect(delivered).toEqual([]);

    // A collection listing our account without our consent, or with an authorization of ours for another item.
    const other = await someone();
    const granted = aCollection(server, alice);
    expect(await receive(activity(aliceAccount, 'FeatureRequest', apUrls.actor(other.account.username), { instrument: granted.id }))).toBe('applied');
    const grantedAuth = (delivered[0]!.activity as Doc).result as string;
    const forged = aCollection(server, alice, [], false);
    expect(await receive(activity(aliceAccount, 'Add', forged, { target: `${alice.doc.id}/featured_collections` }))).toBe('applied');
    const listing = {
      ...forged,
      orderedItems: [
        { id: `${forged.id}/items/1`, type: 'FeaturedItem', featuredObject: target },
        { id: `${forged.id}/items/2`, type: 'FeaturedItem', featuredObject: target, featureAuthorization: grantedAuth },
        { id: `${forged.id}/items/3`, type: 'FeaturedItem', featuredObject: apUrls.actor(other.account.username), featureAuthorization: grantedAuth },
        { id: `${forged.id}/items/4`, type: 'FeaturedItem', featuredObject: target, featureAuthorization: `${apUrls.actor(local.account.username)}/feature_authorizations/1-2` },
      ],
    };
    expect(await receive(activity(aliceAccount, 'Update', listing))).toBe('applied');
    expect((await storedCollection(aliceAccount, forged.id, local)).items).toEqual([]);
    expect((await call(inCollections, { path: `/api/v1/accounts/${local.account.id}/in_collections`, pathParameters: { id: local.account.id }, token: local.token })).body.collections).toEqual([]);
  });
});

describe('one of our collections featuring a remote account', () => {
  let owner: UserFixture;
  beforeAll(async () => {
    owner = await someone();
    const { account: follower } = await aRemoteAccount({ domain: 'followers.example' });
    await createFollow(
      { id: newId(), followerId: follower.id, followedId: owner.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() },
      { followerInbox: 'https://followers.example/inbox' },
    );
  });

  it('asks its server, and accepts it only on an authorization that verifies; then its Add goes to the followers', async () => {
    const { actor: bob, account: bobAccount } = await anActor(server, canFeature([AS_PUBLIC]));
    const { account: carol } = await anActor(server, canFeature([AS_PUBLIC]));
    const c = await aLocalCollection(owner);
    delivered.length = 0;
    const added = ok(await addItem(owner, c.id, bobAccount.id)).collection_item;
    expect(added).toMatchObject({ account_id: bobAccount.id, state: 'pending' });
    expect(sent()).toEqual([{ inbox: `${bob.doc.id}/inbox`, type: 'FeatureRequest' }]);
    const request = delivered[0]!.activity as Doc;
    expect(request).toMatchObject({ actor: apUrls.actor(owner.account.username), object: bob.doc.id, instrument: c.uri });
    expect(delivered[0]!.signer).toEqual({ accountId: owner.account.id });
    // Pending: shown to the owner, to nobody else, and not served to other servers.
    const other = await someone();
    expect((await showOf(c.id, owner)).collection.items).toEqual([expect.objectContaining({ state: 'pending' })]);
    expect((await showOf(c.id, other)).collection.items).toEqual([]);
    delivered.length = 0;

    const authUri = `${bob.doc.id}/feature_authorizations/${++n}`;
    // Forgeries: an authorization naming another collection; one on another server; the answer of another actor.
    server.serve(authorizationOf(authUri, `${c.uri}0`, bob.doc.id));
    expect(await receive(activity(bobAccount, 'Accept', request.id, { result: authUri }))).toBe('ignored');
    expect(await receive(activity(bobAccount, 'Accept', request.id, { result: `${elsewhere.origin}/auth/1` }))).toBe('ignored');
    expect(await receive(activity(carol, 'Accept', request.id, { result: `${carol.uri}/feature_authorizations/1` }))).toBe('ignored');
    expect(await receive(activity(carol, 'Reject', request.id))).toBe('ignored');
    expect((await showOf(c.id, owner)).collection.items).toEqual([expect.objectContaining({ state: 'pending' })]);

    server.serve(authorizationOf(authUri, c.uri, bob.doc.id));
    expect(await receive(activity(bobAccount, 'Accept', { id: request.id, type: 'FeatureRequest' }, { result: authUri }))).toBe('applied');
    expect((await showOf(c.id, other)).collection.items).toEqual([expect.objectContaining({ account_id: bobAccount.id, state: 'accepted' })]);
    expect(sent()).toEqual([{ inbox: 'https://followers.example/inbox', type: 'Add' }]);
    expect(delivered[0]!.activity).toMatchObject({ target: c.uri, object: { type: 'FeaturedItem', featuredObject: bob.doc.id, featureAuthorization: authUri } });
    const served = await call(collectionDoc, { path: new URL(c.uri).pathname, pathParameters: { username: owner.account.username, id: c.id }, headers: { accept: 'application/activity+json' } });
    expect(served.body.orderedItems).toEqual([expect.objectContaining({ featuredObject: bob.doc.id, featureAuthorization: authUri })]);
    // A second Accept changes nothing.
    expect(await receive(activity(bobAccount, 'Accept', request.id, { result: authUri }))).toBe('ignored');

    // Its account withdraws the authorization: revoked, and the followers are sent the Remove.
    delivered.length = 0;
    expect(await receive(activity(carol, 'Delete', authorizationOf(authUri, c.uri, bob.doc.id)))).toBe('ignored');
    expect(await receive(activity(bobAccount, 'Delete', authorizationOf(authUri, c.uri, bob.doc.id)))).toBe('applied');
    expect((await showOf(c.id, owner)).collection.items).toEqual([]);
    expect(sent()).toEqual([{ inbox: 'https://followers.example/inbox', type: 'Remove' }]);
  });

  it('a Reject takes the pending item out', async () => {
    const { account: dora } = await anActor(server, canFeature([], [AS_PUBLIC]));
    const c = await aLocalCollection(owner);
    ok(await addItem(owner, c.id, dora.id));
    const request = delivered.find((d) => (d.activity as Doc).type === 'FeatureRequest')!.activity as Doc;
    expect(await receive(activity(dora, 'Reject', request.id))).toBe('applied');
    expect((await showOf(c.id, owner)).collection.items).toEqual([]);
  });

  it('reads canFeature first: nothing asked of an account whose policy does not let the owner (403)', async () => {
    const c = await aLocalCollection(owner);
    const { account: nobody } = await anActor(server);
    const { account: unclear } = await anActor(server, canFeature([`${server.origin}/users/someone_else/followers`]));
    delivered.length = 0;
    // No policy, and a policy naming a collection we cannot tell (another actor's followers): neither is asked.
    for (const account of [nobody, unclear]) expect((await addItem(owner, c.id, account.id)).status).toBe(403);
    // Followers only: once the owner follows it, it may be asked.
    const followersOnly = await anActor(server);
    server.serve({ ...followersOnly.actor.doc, ...canFeature([followersOnly.actor.doc.followers]) });
    expect((await addItem(owner, c.id, followersOnly.account.id)).status).toBe(403);
    await aFollow(owner.account, followersOnly.account);
    expect((await addItem(owner, c.id, followersOnly.account.id)).status).toBe(200);
    expect(sent()).toEqual([{ inbox: `${followersOnly.actor.doc.id}/inbox`, type: 'FeatureRequest' }]);
  });

  it(`bounded: more than ${MAX_ITEMS} accounts are refused before any of their servers is asked`, async () => {
    const accounts = await Promise.all(Array.from({ length: MAX_ITEMS + 1 }, () => aRemoteAccount({ uri: `${server.origin}/users/never${++n}` })));
    const before = server.received.length;
    const res = await createRes(owner, { name: 'Too many', sensitive: false, discoverable: true, account_ids: accounts.map((a) => a.account.id) });
    expect(res.status).toBe(422);
    expect(server.received.length).toBe(before);
  });
});

describe('a received collection featuring a third server\'s account', () => {
  it('keeps the item only on an authorization from that account\'s server naming this collection and account, fetched once', async () => {
    const { actor: alice, account: aliceAccount } = await anActor(server);
    const { actor: zed } = await anActor(elsewhere);
    const { actor: yan } = await anActor(elsewhere);
    const viewer = await someone();
    const id = `${alice.doc.id}/collections/${++n}`;
    const good = `${elsewhere.origin}/auth/${++n}`;
    const wrongCollection = `${elsewhere.origin}/auth/${++n}`;
    const missing = `${elsewhere.origin}/auth/${++n}`;
    elsewhere.serve(authorizationOf(good, id, zed.doc.id));
    elsewhere.serve(authorizationOf(wrongCollection, `${id}/other`, yan.doc.id));
    const doc = {
      ...aCollection(server, alice, [], false),
      id,
      orderedItems: [
        { id: `${id}/items/1`, type: 'FeaturedItem', featuredObject: zed.doc.id, featureAuthorization: good },
        { id: `${id}/items/2`, type: 'FeaturedItem', featuredObject: yan.doc.id, featureAuthorization: wrongCollection },
        { id: `${id}/items/3`, type: 'FeaturedItem', featuredObject: yan.doc.id, featureAuthorization: missing },
        { id: `${id}/items/4`, type: 'FeaturedItem', featuredObject: yan.doc.id, featureAuthorization: `${server.origin}/auth/1` },
        { id: `${id}/items/5`, type: 'FeaturedItem', featuredObject: yan.doc.id },
      ],
    };
    expect(await receive(activity(aliceAccount, 'Add', doc, { target: `${alice.doc.id}/featured_collections` }))).toBe('applied');
    const zedAccount = (await remoteAccountByUri(zed.doc.id))!;
    const stored = await storedCollection(aliceAccount, id, viewer);
    expect(stored.items).toEqual([expect.objectContaining({ account_id: zedAccount.id, state: 'accepted' })]);
    expect(fetchesOf(elsewhere, new URL(good).pathname)).toBe(1);
    // The authorization on the collection owner's server was never asked for.
    expect(fetchesOf(server, '/auth/1')).toBe(0);

    // The same item with the same authorization is not fetched again; an authorization changed is.
    expect(await receive(activity(aliceAccount, 'Update', { ...doc, name: 'Again' }))).toBe('applied');
    expect(fetchesOf(elsewhere, new URL(good).pathname)).toBe(1);
    const forged = { ...doc, orderedItems: [{ id: `${id}/items/1`, type: 'FeaturedItem', featuredObject: zed.doc.id, featureAuthorization: wrongCollection }] };
    expect(await receive(activity(aliceAccount, 'Update', forged))).toBe('applied');
    expect((await showOf(stored.id, viewer)).collection.items).toEqual([]);
  });
});
