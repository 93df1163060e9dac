// Finding remote accounts and posts: GET /api/v2/search?resolve=true (and
// /api/v1/accounts/search) with `@user@domain`, `user@domain` or a URL asks a
// remote server, here a real HTTP server on loopback (its domain 127.0.0.1:<port>,
// the local stage with FEDERATION_ALLOW_PRIVATE=1), through WebFinger and a
// signed GET; stores what it finds, and answers it as Mastodon entities.
// GET /api/v1/accounts/lookup finds known remote accounts without asking anyone.
import { handler as lookup } from '../../functions/accounts/lookup';
import { handler as accountsSearch } from '../../functions/accounts/search';
import { handler as search } from '../../functions/search/v2';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { remoteAccountByUri } from '../../lib/db/remote';
import { instanceSigner } from '../../lib/federation/keys';
import { AS_PUBLIC } from '../../lib/federation/urls';
import { registerInlineWorker } from '../../lib/queue';
import { anAppToken, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { storedItemCount } from '../support/items';
import { aRemoteActor, remoteServer, serveWebfinger, type RemoteActor, type RemoteServer } from '../support/remote-server';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

let server: RemoteServer;
let searcher: UserFixture;
let bob: RemoteActor;

beforeAll(async () => {
  searcher = await aUser();
  // The instance actor's key pair, made on first need, exists before any test counts items.
  await instanceSigner();
});

beforeEach(async () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  server = await remoteServer();
  bob = aRemoteActor(server.origin, 'bob', { name: 'Bob Remote', summary: '<p>Hi <script>x()</script>there</p>' });
  server.serve(bob.doc);
  serveWebfinger(server, { bob: bob.doc.id });
});
afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  await server.close();
});

const find = (q: string, extra: Record<string, string> = {}, token = searcher.token) =>
  call(search, { path: '/api/v2/search', query: { q, ...extra }, token });

describe('GET /api/v2/search with resolve=true', () => {
  it('finds @user@domain through WebFinger, stores it, and answers it as a remote account', async () => {
    const res = await find(`@bob@${server.host}`, { resolve: 'true' });
    expect(res.status).toBe(200);
    expect(res.body.accounts).toHaveLength(1);
    expect(res.body.accounts[0]).toMatchObject({
      username: 'bob',
      acct: `bob@${server.host}`,
      display_name: 'Bob Remote',
      note: '<p>Hi there</p>',
      url: `${server.origin}/@bob`,
      avatar: `${server.origin}/avatars/bob.png`,
      locked: false,
      bot: false,
    });
    expect(server.received.map((r) => r.path)).toEqual([`/.well-known/webfinger?resource=${encodeURIComponent(`acct:bob@${server.host}`)}`, '/users/bob']);
    expect(server.received[1]!.headers.signature).toBeDefined();
    const stored = await remoteAccountByUri(bob.doc.id);
    expect(stored!.id).toBe(res.body.accounts[0].id);
  });

  it('answers a known account from storage, with or without resolve, and user@domain without the @', async () => {
    const first = await find(`bob@${server.host}`, { resolve: 'true' });
    const again = await find(`@bob@${server.host}`);
    const resolvedAgain = await find(`bob@${server.host}`, { resolve: 'true', type: 'accounts' });
    expect(again.body.accounts.map((a: { id: string }) => a.id)).toEqual([first.body.accounts[0].id]);
    expect(resolvedAgain.body.accounts.map((a: { id: string }) => a.id)).toEqual([first.body.accounts[0].id]);
    expect(server.received).toHaveLength(2);
  });

  it('asks no one without resolve=true', async () => {
    const res = await find(`@bob@${server.host}`);
    expect(res.body).toEqual({ accounts: [], statuses: [], hashtags: [] });
    expect(server.received).toHaveLength(0);
  });

  it('finds a profile URL by fetching the actor', async () => {
    const carol = aRemoteActor(server.origin, 'carol', { type: 'Service' });
    server.serve(carol.doc);
    const res = await find(carol.doc.id, { resolve: 'true' });
    expect(res.body.accounts).toEqual([expect.objectContaining({ acct: `carol@${server.host}`, bot: true })]);
    expect(res.body.statuses).toEqual([]);
    expect(server.received.map((r) => r.path)).toEqual(['/users/carol']);
  });

  it("finds a post URL: its author fetched, the post stored as theirs and shown as a remote status", async () => {
    const note = {
      id: `${server.origin}/users/bob/statuses/1`,
      type: 'Note',
      attributedTo: bob.doc.id,
      content: '<p>Hello from <b>afar</b><script>x</script></p>',
      published: '2024-05-06T07:08:09Z',
      to: [AS_PUBLIC],
      cc: [`${bob.doc.id}/followers`],
      url: `${server.origin}/@bob/1`,
    };
    server.serve(note);
    const res = await find(note.id, { resolve: 'true' });
    expect(res.status).toBe(200);
    expect(res.body.accounts).toEqual([]);
    expect(res.body.statuses).toHaveLength(1);
    expect(res.body.statuses[0]).toMatchObject({
      uri: note.id,
      url: note.url,
      content: '<p>Hello from <b>afar</b></p>',
      visibility: 'public',
      account: { acct: `bob@${server.host}` },
    });
    // Found again from storage, without a request.
    const again = await find(note.id, { resolve: 'true' });
    expect(again.body.statuses.map((s: { id: string }) => s.id)).toEqual([res.body.statuses[0].id]);
    expect(server.received.map((r) => r.path)).toEqual(['/users/bob/statuses/1', '/users/bob']);
  });

  it('finds nothing, and writes nothing, for an unknown account, a server that is down, or an address it may not reach', async () => {
    const before = await storedItemCount();
    expect((await find(`@nobody@${server.host}`, { resolve: 'true' })).body.accounts).toEqual([]);
    server.route('GET', '/users/bob', { status: 500, body: '' });
    expect((await find(`@bob@${server.host}`, { resolve: 'true' })).body.accounts).toEqual([]);
    server.route('GET', '/users/odd', { body: { id: `${server.origin}/users/odd`, type: 'Collection' } });
    expect(await find(`${server.origin}/users/odd`, { resolve: 'true' })).toMatchObject({ status: 200, body: { accounts: [], statuses: [] } });
    const gone = await remoteServer();
    await gone.close();
    const down = await find(`@bob@${gone.host}`, { resolve: 'true' });
    expect(down).toMatchObject({ status: 200, body: { accounts: [] } });
    process.env.STAGE = 'test';
    const seen = server.received.length;
    expect((await find(`@bob@${server.host}`, { resolve: 'true' })).body.accounts).toEqual([]);
    expect((await find(`${server.origin}/users/bob`, { resolve: 'true' })).body.accounts).toEqual([]);
    expect(server.received).toHaveLength(seen);
    expect(await storedItemCount()).toBe(before);
  });

  it('resolves for users only (Mastodon asks for a user token), and not for a hashtag search', async () => {
    const { token } = await anAppToken(['read']);
    const res = await find(`@bob@${server.host}`, { resolve: 'true' }, token);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'This method requires an authenticated user' });
    expect((await find(`@bob@${server.host}`, { resolve: 'true', type: 'hashtags' })).body.accounts).toEqual([]);
    expect(server.received).toHaveLength(0);
  });
});

describe('GET /api/v1/accounts/search with resolve=true', () => {
  it('finds @user@domain through WebFinger', async () => {
    const res = await call(accountsSearch, { path: '/api/v1/accounts/search', query: { q: `@bob@${server.host}`, resolve: 'true' }, token: searcher.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([expect.objectContaining({ acct: `bob@${server.host}` })]);
    const without = await call(accountsSearch, { path: '/api/v1/accounts/search', query: { q: `@bob@${server.host}`, following: 'true' }, token: searcher.token });
    expect(without.body).toEqual([]);
  });
});

describe('GET /api/v1/accounts/lookup', () => {
  it('answers a known remote account by user@domain, without asking its server', async () => {
    await find(`@bob@${server.host}`, { resolve: 'true' });
    const seen = server.received.length;
    const res = await call(lookup, { path: '/api/v1/accounts/lookup', query: { acct: `bob@${server.host.toUpperCase()}` } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ acct: `bob@${server.host}`, display_name: 'Bob Remote' });
    expect((await call(lookup, { path: '/api/v1/accounts/lookup', query: { acct: `@bob@${server.host}` } })).status).toBe(200);
    const unknown = await call(lookup, { path: '/api/v1/accounts/lookup', query: { acct: `carol@${server.host}` } });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    expect(server.received).toHaveLength(seen);
  });

  it('still answers local accounts by user and user@our.domain', async () => {
    const res = await call(lookup, { path: '/api/v1/accounts/lookup', query: { acct: `${searcher.account.username}@social.example` } });
    expect(res.body).toMatchObject({ id: searcher.account.id, acct: searcher.account.username });
  });
});
