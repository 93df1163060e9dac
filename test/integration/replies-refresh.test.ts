// The replies of a remote thread, asked of its servers when a viewer opens it (Mastodon 4.5: lib/statuses/replies_refresh.ts,
// lib/federation/replies.ts): the context answer names an async refresh in `Mastodon-Async-Refresh`, the remoteMedia
// queue's worker reads the `replies` collections (bounded, each reply from its own server), and GET
// /api/v1_alpha/async_refreshes/:id tells a client when to read the context again. The other servers are real HTTP
// servers on loopback (test/support/remote-server.ts; the local stage with FEDERATION_ALLOW_PRIVATE=1).
import { randomUUID } from 'node:crypto';
import { handler as refreshHandler } from '../../functions/async_refreshes/show';
import { handler as contextHandler } from '../../functions/statuses/context';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as remoteMediaWorker } from '../../functions/workers/remote_media';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById, type Status } from '../../lib/db/statuses';
import { accountByActorUri } from '../../lib/federation/actors';
import { useRequestTimeout } from '../../lib/federation/fetch';
import { instanceSigner } from '../../lib/federation/keys';
import { MAX_REPLIES } from '../../lib/federation/replies';
import { AS_PUBLIC } from '../../lib/federation/urls';
import { processActivity } from '../../lib/inbox';
import { registerInlineQueue, registerInlineWorker, sqsEvent, type HeldMessage } from '../../lib/queue';
import { aFollow, anAppToken, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call, lambdaContext } from '../support/http';
import { aRemoteActor, remoteServer, type RemoteActor, type RemoteServer } from '../support/remote-server';

type Doc = Record<string, unknown> & { id: string };

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);
// The replies fetches are held, so a test sees the refresh running, then runs the worker as SQS would (the copies
// of avatars the same queue carries are not what this is about: dropped).
const held: HeldMessage[] = [];
registerInlineQueue('remoteMedia', (m) => {
  if ((m.body as { kind?: string }).kind === 'replies') held.push(m);
});
async function runHeldFetches(): Promise<void> {
  while (held.length > 0) {
    const batch = held.splice(0);
    const res = await remoteMediaWorker(sqsEvent('remoteMedia', batch.map((m) => m.body)), lambdaContext());
    expect(res?.batchItemFailures ?? []).toEqual([]);
  }
}

let server: RemoteServer;
let elsewhere: RemoteServer;
let alice: RemoteActor;
let bob: RemoteActor;
let carol: RemoteActor;
let viewer: UserFixture;

beforeAll(async () => {
  await instanceSigner();
  viewer = await aUser();
});

beforeEach(async () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  held.length = 0;
  server = await remoteServer();
  elsewhere = await remoteServer();
  alice = aRemoteActor(server.origin, 'alice');
  bob = aRemoteActor(server.origin, 'bob');
  carol = aRemoteActor(elsewhere.origin, 'carol');
  server.serve(alice.doc);
  server.serve(bob.doc);
  elsewhere.serve(carol.doc);
});

afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  useRequestTimeout(undefined);
  await Promise.all([server.close(), elsewhere.close()]);
});

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** A public Note of `author` on its server, ten minutes old unless told otherwise. */
function aNote(author: RemoteActor, on: RemoteServer, name: string, overrides: Record<string, unknown> = {}): Doc {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${on.origin}/notes/${name}`,
    type: 'Note',
    attributedTo: author.doc.id,
    to: [AS_PUBLIC],
    cc: [`${author.doc.id}/followers`],
    content: `<p>${name}</p>`,
    published: minutesAgo(10),
    ...overrides,
  };
}

/** Mastodon's shape: a Collection whose first page is embedded, its items ids, its next page served apart. */
const repliesOf = (note: string, on: RemoteServer, first: string[], next?: string) => ({
  id: `${on.origin}/notes/${note}/replies`,
  type: 'Collection',
  first: { type: 'CollectionPage', partOf: `${on.origin}/notes/${note}/replies`, items: first, ...(next ? { next } : {}) },
});

function served(doc: Doc, on: RemoteServer): Doc {
  on.serve(doc);
  return doc;
}

/** `actor` sends the Create of `note` (as a follower's server would deliver it here). */
async function receive(actor: RemoteActor, note: Doc): Promise<Status> {
  await accountByActorUri(actor.doc.id);
  const activity = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor.doc.id}#creates/${randomUUID()}`, type: 'Create', actor: actor.doc.id, to: note.to, cc: note.cc, object: note };
  expect(await processActivity({ activity, signer: actor.doc.id, receivedAt: new Date().toISOString() })).toBe('applied');
  return (await statusById((await remoteStatusIdByUri(note.id))!))!;
}

const context = (statusId: string, token?: string) => call(contextHandler, { path: `/api/v1/statuses/${statusId}/context`, pathParameters: { id: statusId }, token });
const refreshOf = (id: string, token: string | undefined) => call(refreshHandler, { path: `/api/v1_alpha/async_refreshes/${id}`, pathParameters: { id }, token });
const refreshIdIn = (header: string | undefined) => /^id="([^"]+)", retry=3, result_count=(\d+)$/.exec(header ?? '')?.[1];
const descendantUris = async (statusId: string) => ((await context(statusId, viewer.token)).body as { descendants: { uri: string }[] }).descendants.map((s) => s.uri);
const fetchesOf = (on: RemoteServer) => on.received.filter((r) => r.method === 'GET' && r.path.startsWith('/notes/')).map((r) => r.path);

describe('opening the thread of a remote status', () => {
  it('fetches the replies we lack, through every page and the replies of replies, and tells the viewer to read again', async () => {
    const page2 = `${server.origin}/notes/root/replies?page=2`;
    const root = aNote(alice, server, 'root', { replies: repliesOf('root', server, [`${server.origin}/notes/r1`, `${elsewhere.origin}/notes/r2`], page2) });
    served(root, server);
    server.route('GET', '/notes/root/replies', { body: { id: page2, type: 'CollectionPage', partOf: `${server.origin}/notes/root/replies`, items: [`${server.origin}/notes/r3`] } });
    served(aNote(bob, server, 'r1', { inReplyTo: root.id, replies: repliesOf('r1', server, [`${server.origin}/notes/r1a`]) }), server);
    served(aNote(alice, server, 'r1a', { inReplyTo: `${server.origin}/notes/r1` }), server);
    served(aNote(carol, elsewhere, 'r2', { inReplyTo: root.id }), elsewhere);
    served(aNote(alice, server, 'r3', { inReplyTo: root.id }), server);
    const status = await receive(alice, root);

    const first = await context(status.id, viewer.token);
    expect(first.status).toBe(200);
    expect(first.headers['mastodon-async-refresh']).toMatch(/^id="[^"]+", retry=3, result_count=0$/);
    const id = refreshIdIn(first.headers['mastodon-async-refresh'])!;
    expect((await refreshOf(id, viewer.token)).body).toEqual({ async_refresh: { id, status: 'running', result_count: 0 } });
    // Another viewer meanwhile is told of the same refresh, and starts none.
    const other = await aUser();
    expect(refreshIdIn((await context(status.id, other.token)).headers['mastodon-async-refresh'])).toBe(id);
    expect(held).toHaveLength(1);

    await runHeldFetches();

    expect((await refreshOf(id, viewer.token)).body).toEqual({ async_refresh: { id, status: 'finished', result_count: 4 } });
    expect(await descendantUris(status.id)).toEqual(expect.arrayContaining([`${server.origin}/notes/r1`, `${server.origin}/notes/r1a`, `${elsewhere.origin}/notes/r2`, `${server.origin}/notes/r3`]));
    const r1a = (await statusById((await remoteStatusIdByUri(`${server.origin}/notes/r1a`))!))!;
    expect(r1a.inReplyToId).toBe(await remoteStatusIdByUri(`${server.origin}/notes/r1`));
    // Within the cooldown, a finished refresh is no longer named and nothing is asked again.
    const again = await context(status.id, viewer.token);
    expect(again.headers['mastodon-async-refresh']).toBeUndefined();
    expect(held).toHaveLength(0);
  });

  it('asks nothing for a viewer who is not logged in, a status under five minutes old, a private one, or one of ours', async () => {
    const fresh = await receive(alice, served(aNote(alice, server, 'fresh', { published: minutesAgo(1), replies: repliesOf('fresh', server, []) }), server));
    const followersOnly = await receive(alice, served(aNote(alice, server, 'private', { cc: [], to: [`${alice.doc.id}/followers`], replies: repliesOf('private', server, []) }), server));
    const old = await receive(alice, served(aNote(alice, server, 'old', { replies: repliesOf('old', server, []) }), server));
    const ours = await aPostedStatus(viewer.account, { text: 'ours' });
    const before = server.received.length;

    expect((await context(old.id)).headers['mastodon-async-refresh']).toBeUndefined();
    expect((await context(fresh.id, viewer.token)).headers['mastodon-async-refresh']).toBeUndefined();
    expect((await context(ours.id, viewer.token)).headers['mastodon-async-refresh']).toBeUndefined();
    // A follower of its author sees the followers-only status; its replies are not asked for all the same.
    const follower = await aUser();
    await aFollow(follower.account, (await accountByActorUri(alice.doc.id))!);
    const ofPrivate = await context(followersOnly.id, follower.token);
    expect(ofPrivate.status).toBe(200);
    expect(ofPrivate.headers['mastodon-async-refresh']).toBeUndefined();
    expect(held).toEqual([]);
    expect(server.received.length).toBe(before);
  });

  it('reads collections only on the status\'s own server and keeps only replies attributed on their own server', async () => {
    const root = aNote(alice, server, 'root', {
      // A collection claimed on another server is not read.
      replies: `${elsewhere.origin}/notes/root/replies`,
    });
    const status = await receive(alice, served(root, server));
    elsewhere.route('GET', '/notes/root/replies', { body: repliesOf('root', elsewhere, [`${elsewhere.origin}/notes/planted`]) });

    const id = refreshIdIn((await context(status.id, viewer.token)).headers['mastodon-async-refresh'])!;
    await runHeldFetches();
    expect(elsewhere.received.filter((r) => r.path.startsWith('/notes/'))).toEqual([]);
    expect((await refreshOf(id, viewer.token)).body).toMatchObject({ async_refresh: { status: 'finished', result_count: 0 } });

    // A reply served by this server but attributed to an actor of another one is a forgery: not stored, that actor never asked.
    const second = aNote(alice, server, 'second', { replies: repliesOf('second', server, [`${server.origin}/notes/forged`]) });
    served(aNote(carol, server, 'forged', { inReplyTo: second.id }), server);
    const secondStatus = await receive(alice, served(second, server));
    await context(secondStatus.id, viewer.token);
    await runHeldFetches();
    expect(await remoteStatusIdByUri(`${server.origin}/notes/forged`)).toBeUndefined();
    expect(elsewhere.received.filter((r) => r.path.startsWith('/users/'))).toEqual([]);
  });

  it(`fetches at most ${MAX_REPLIES} replies however long the collection, and ends a page chain that loops`, async () => {
    const many = Array.from({ length: MAX_REPLIES + 50 }, (_, i) => `${server.origin}/notes/missing${i}`);
    const loop = `${server.origin}/notes/root/replies?page=loop`;
    const root = aNote(alice, server, 'root', { replies: repliesOf('root', server, many, loop) });
    server.route('GET', '/notes/root/replies', { body: { id: loop, type: 'CollectionPage', items: [], next: loop } });
    const status = await receive(alice, served(root, server));
    await context(status.id, viewer.token);
    await runHeldFetches();
    const asked = fetchesOf(server).filter((p) => p.startsWith('/notes/missing'));
    expect(asked.length).toBe(MAX_REPLIES);
    expect(fetchesOf(server).filter((p) => p.includes('page=loop')).length).toBeLessThanOrEqual(1);
  });

  it('ends the refresh when the server cannot be read, and asks again only after the cooldown', async () => {
    useRequestTimeout(500);
    const root = aNote(alice, server, 'root', { replies: repliesOf('root', server, []) });
    const status = await receive(alice, served(root, server));
    server.route('GET', '/notes/root', { status: 503, body: 'down' });
    const id = refreshIdIn((await context(status.id, viewer.token)).headers['mastodon-async-refresh'])!;
    await runHeldFetches();
    expect((await refreshOf(id, viewer.token)).body).toMatchObject({ async_refresh: { status: 'finished', result_count: 0 } });
    expect((await context(status.id, viewer.token)).headers['mastodon-async-refresh']).toBeUndefined();
    expect(held).toEqual([]);
  });
});

describe('GET /api/v1_alpha/async_refreshes/:id', () => {
  it('answers 404 for an id it does not know, 401 without a token, 403 without the read scope', async () => {
    expect((await refreshOf('nothing-here', viewer.token)).status).toBe(404);
    expect((await refreshOf('nothing-here', viewer.token)).body).toEqual({ error: 'Record not found' });
    expect((await refreshOf('nothing-here', undefined)).status).toBe(401);
    const { token } = await anAppToken(['read']);
    expect((await refreshOf('nothing-here', token)).status).toBe(422);
    const narrow = await aUser({ scopes: ['read:statuses'] });
    expect((await refreshOf('nothing-here', narrow.token)).status).toBe(403);
  });
});
