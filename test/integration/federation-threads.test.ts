// Replies, threads and mentions across servers (lib/federation/threads.ts, mentions.ts,
// notes.ts, lib/statuses/create.ts): a remote reply whose parent we lack fetches its
// ancestors (bounded; a failure leaves the reply standing alone), stored without being
// distributed; mentions of accounts we do not know are resolved (a local post's handles
// through WebFinger, a remote post's actors by fetching them), bounded too; replies from
// here to remote statuses are addressed and delivered to those they answer and mention.
// The other server is a real HTTP server on loopback (test/support/remote-server.ts, the
// local stage with FEDERATION_ALLOW_PRIVATE=1); received activities go through
// processActivity, deliveries are recorded by an inline deliver worker.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as contextHandler } from '../../functions/statuses/context';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import { remoteAccountByUri, remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById, type Status } from '../../lib/db/statuses';
import { accountByActorUri } from '../../lib/federation/actors';
import { useRequestTimeout } from '../../lib/federation/fetch';
import { instanceSigner } from '../../lib/federation/keys';
import { MAX_FETCHED_MENTIONS, MAX_RESOLVED_HANDLES } from '../../lib/federation/mentions';
import { MAX_ANCESTORS } from '../../lib/federation/threads';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { processActivity } from '../../lib/inbox';
import { registerInlineWorker } from '../../lib/queue';
import { collectDeliveries } from '../support/activities';
import { aFollow, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { aRemoteActor, remoteServer, serveWebfinger, type RemoteActor, type RemoteServer } from '../support/remote-server';

const delivered = collectDeliveries();
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));

type Doc = Record<string, unknown> & { id: string };

let server: RemoteServer;
/** A second server: the home of actors a forged Note names. */
let elsewhere: RemoteServer;
let alice: RemoteActor;
let bob: RemoteActor;

beforeAll(async () => {
  // The instance actor's key pair, made on first need (it signs the fetches).
  await instanceSigner();
});

beforeEach(async () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  delivered.length = 0;
  server = await remoteServer();
  elsewhere = await remoteServer();
  alice = aRemoteActor(server.origin, 'alice');
  bob = aRemoteActor(server.origin, 'bob');
  server.serve(alice.doc);
  server.serve(bob.doc);
  serveWebfinger(server, { alice: alice.doc.id, bob: bob.doc.id });
});

afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  useRequestTimeout(undefined);
  await Promise.all([server.close(), elsewhere.close()]);
});

// ---- what the other server serves and sends ----

/** A public Note of `author` on `on` (its path under /notes/), served there unless `served: false`. */
function aNote(author: RemoteActor, name: string, overrides: Record<string, unknown> = {}, on = server): Doc {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${on.origin}/notes/${name}`,
    type: 'Note',
    attributedTo: author.doc.id,
    to: [AS_PUBLIC],
    cc: [`${author.doc.id}/followers`],
    content: `<p>${name}</p>`,
    published: new Date(Date.now() - 60_000).toISOString(),
    ...overrides,
  };
}

function served(doc: Doc, on = server): Doc {
  on.serve(doc);
  return doc;
}

/** `actor` (stored first, as the inbox endpoint's signature check stores it) sends the Create of `note`. */
async function receiveCreate(actor: RemoteActor, note: Doc) {
  await accountByActorUri(actor.doc.id);
  const activity = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor.doc.id}#creates/${randomUUID()}`, type: 'Create', actor: actor.doc.id, to: note.to, cc: note.cc, object: note };
  return processActivity({ activity, signer: actor.doc.id, receivedAt: new Date().toISOString() });
}

const statusOfNote = async (uri: string): Promise<Status | undefined> => {
  const id = await remoteStatusIdByUri(uri);
  return id ? statusById(id) : undefined;
};

const fetchesOf = (on: RemoteServer, prefix: string) => on.received.filter((r) => r.method === 'GET' && r.path.startsWith(prefix)).map((r) => r.path);

const contextOf = async (statusId: string, viewer?: UserFixture) =>
  (await call(contextHandler, { path: `/api/v1/statuses/${statusId}/context`, pathParameters: { id: statusId }, token: viewer?.token })).body as {
    ancestors: { id: string; uri: string }[];
    descendants: { id: string; uri: string }[];
  };

const homeOf = async (user: UserFixture) => ((await call(homeTimeline, { path: '/api/v1/timelines/home', token: user.token })).body as { id: string }[]).map((s) => s.id);

const notificationsOf = async (user: UserFixture) =>
  ((await call(notificationsHandler, { path: '/api/v1/notifications', token: user.token })).body as { type: string; status?: { id: string } }[]).map((n) => [n.type, n.status?.id]);

const stored = async (account: RemoteActor): Promise<Account> => (await remoteAccountByUri(account.doc.id))!;

// ---- remote replies: the missing ancestors ----

describe('a remote reply whose parent we lack', () => {
  it('fetches the thread above it, stores it undistributed, and shows it whole in context', async () => {
    const root = served(aNote(alice, 'root'));
    const middle = served(aNote(bob, 'middle', { inReplyTo: root.id }));
    const reply = aNote(alice, 'reply', { inReplyTo: middle.id });
    await accountByActorUri(alice.doc.id);
    await accountByActorUri(bob.doc.id);
    // Following both: the reply (to someone followed) enters home, and so would the ancestors if they were distributed.
    const follower = await aUser();
    await aFollow(follower.account, await stored(alice));
    await aFollow(follower.account, await stored(bob));

    expect(await receiveCreate(alice, reply)).toBe('applied');

    const [r, m, t] = await Promise.all([statusOfNote(reply.id), statusOfNote(middle.id), statusOfNote(root.id)]);
    expect(t).toMatchObject({ accountId: (await stored(alice)).id, inReplyToId: null });
    expect(m).toMatchObject({ accountId: (await stored(bob)).id, inReplyToId: t!.id, conversationId: t!.conversationId });
    expect(r).toMatchObject({ inReplyToId: m!.id, inReplyToAccountId: m!.accountId, conversationId: t!.conversationId });
    // Each fetched once, signed.
    expect(fetchesOf(server, '/notes/')).toEqual(['/notes/middle', '/notes/root']);
    expect(server.received.find((q) => q.path === '/notes/middle')!.headers.signature).toBeDefined();

    const context = await contextOf(r!.id, follower);
    expect(context.ancestors.map((s) => s.uri)).toEqual([root.id, middle.id]);
    expect((await contextOf(t!.id)).descendants.map((s) => s.uri)).toEqual([middle.id, reply.id]);
    // The reply counts under its parent: the ancestors were linked before it.
    expect((await statusById(m!.id))?.repliesCount).toBe(1);
    expect((await statusById(t!.id))?.repliesCount).toBe(1);

    // Only what was delivered is distributed: the reply reaches the follower's home, the fetched ancestors do not.
    expect(await homeOf(follower)).toEqual([r!.id]);
  });

  it('notifies a local account mentioned in the reply, but not one mentioned only in a fetched ancestor', async () => {
    const mentionedAbove = await aUser();
    const mentionedBelow = await aUser();
    const mentionOf = (u: UserFixture) => ({ type: 'Mention', href: apUrls.actor(u.account.username), name: `@${u.account.username}` });
    const root = served(aNote(bob, 'root', { tag: [mentionOf(mentionedAbove)] }));
    const reply = aNote(alice, 'reply', { inReplyTo: root.id, tag: [mentionOf(mentionedBelow)] });

    expect(await receiveCreate(alice, reply)).toBe('applied');

    const [r, t] = await Promise.all([statusOfNote(reply.id), statusOfNote(root.id)]);
    expect(t!.mentions.map((m) => m.id)).toEqual([mentionedAbove.account.id]);
    expect(r!.inReplyToId).toBe(t!.id);
    expect(await notificationsOf(mentionedBelow)).toEqual([['mention', r!.id]]);
    expect(await notificationsOf(mentionedAbove)).toEqual([]);
  });

  it('distributes a fetched ancestor when its own Create is delivered later (to a follower of its author)', async () => {
    const root = served(aNote(bob, 'root'));
    await accountByActorUri(bob.doc.id);
    const follower = await aUser();
    await aFollow(follower.account, await stored(bob));
    await receiveCreate(alice, aNote(alice, 'reply', { inReplyTo: root.id }));
    const t = await statusOfNote(root.id);
    expect(await homeOf(follower)).toEqual([]);

    expect(await receiveCreate(bob, root)).toBe('applied');
    expect(await statusOfNote(root.id)).toMatchObject({ id: t!.id });
    expect(await homeOf(follower)).toEqual([t!.id]);
  });

  it('does not fetch a parent it has, and links a second reply to the ancestors stored for the first', async () => {
    const root = served(aNote(bob, 'root'));
    await receiveCreate(alice, aNote(alice, 'first', { inReplyTo: root.id }));
    await receiveCreate(alice, aNote(alice, 'second', { inReplyTo: root.id }));
    expect(fetchesOf(server, '/notes/')).toEqual(['/notes/root']);
    const t = await statusOfNote(root.id);
    expect((await statusOfNote(`${server.origin}/notes/second`))?.inReplyToId).toBe(t!.id);
    expect((await statusById(t!.id))?.repliesCount).toBe(2);
  });

  it(`stops an endless thread after ${MAX_ANCESTORS} ancestors: the last one fetched stands alone`, async () => {
    // Every note answers one more above it, for ever.
    server.route('GET', '/notes/endless', (req) => {
      const n = Number(new URL(req.path, server.origin).searchParams.get('n'));
      return { body: aNote(bob, `endless?n=${n}`, { inReplyTo: `${server.origin}/notes/endless?n=${n + 1}` }) };
    });
    const reply = aNote(alice, 'reply', { inReplyTo: `${server.origin}/notes/endless?n=0` });

    expect(await receiveCreate(alice, reply)).toBe('applied');

    expect(fetchesOf(server, '/notes/endless')).toHaveLength(MAX_ANCESTORS);
    const chain = await Promise.all(Array.from({ length: MAX_ANCESTORS + 1 }, (_, n) => statusOfNote(`${server.origin}/notes/endless?n=${n}`)));
    expect(chain.slice(0, MAX_ANCESTORS).every(Boolean)).toBe(true);
    expect(chain[MAX_ANCESTORS]).toBeUndefined();
    expect(chain[MAX_ANCESTORS - 1]!.inReplyToId).toBeNull();
    expect(chain[0]!.inReplyToId).toBe(chain[1]!.id);
    const r = await statusOfNote(reply.id);
    expect(r!.inReplyToId).toBe(chain[0]!.id);
    expect((await contextOf(r!.id)).ancestors).toHaveLength(MAX_ANCESTORS);
  });

  it('asks each note of a thread that loops once, and stores each', async () => {
    const a = served(aNote(bob, 'a', { inReplyTo: `${server.origin}/notes/b` }));
    const b = served(aNote(bob, 'b', { inReplyTo: a.id }));
    const reply = aNote(alice, 'reply', { inReplyTo: a.id });

    expect(await receiveCreate(alice, reply)).toBe('applied');

    expect(fetchesOf(server, '/notes/')).toEqual(['/notes/a', '/notes/b']);
    const [sa, sb, r] = await Promise.all([statusOfNote(a.id), statusOfNote(b.id), statusOfNote(reply.id)]);
    expect(sb!.inReplyToId).toBeNull();
    expect(sa!.inReplyToId).toBe(sb!.id);
    expect(r!.inReplyToId).toBe(sa!.id);
  });

  it('leaves the reply standing alone when its parent is on an address the guard refuses (nothing is asked)', async () => {
    // The metadata address is never reached, whatever the stage allows; the twin below fetches the same shape.
    const reply = aNote(alice, 'reply', { inReplyTo: 'http://169.254.169.254/notes/root' });
    expect(await receiveCreate(alice, reply)).toBe('applied');
    expect(await statusOfNote(reply.id)).toMatchObject({ inReplyToId: null, inReplyToAccountId: null });
    expect(await remoteStatusIdByUri('http://169.254.169.254/notes/root')).toBeUndefined();

    const twin = served(aNote(bob, 'root'));
    await receiveCreate(alice, aNote(alice, 'twin', { inReplyTo: twin.id }));
    expect((await statusOfNote(`${server.origin}/notes/twin`))?.inReplyToId).toBe((await statusOfNote(twin.id))!.id);
  });

  it('refuses an ancestor attributed to an actor of another server (never fetching that actor): the reply stands alone', async () => {
    const mallory = aRemoteActor(elsewhere.origin, 'mallory');
    elsewhere.serve(mallory.doc);
    const forged = served(aNote(mallory, 'forged'));
    const reply = aNote(alice, 'reply', { inReplyTo: forged.id });

    expect(await receiveCreate(alice, reply)).toBe('applied');

    expect(await statusOfNote(reply.id)).toMatchObject({ inReplyToId: null });
    expect(await remoteStatusIdByUri(forged.id)).toBeUndefined();
    expect(elsewhere.received).toEqual([]);
    expect(await remoteAccountByUri(mallory.doc.id)).toBeUndefined();
  });

  it('refuses an ancestor whose document carries another id, or names a stranger on its own server as author', async () => {
    // Served at /notes/swapped, it says it is /notes/other.
    server.route('GET', '/notes/swapped', { body: aNote(bob, 'other') });
    // Attributed to an actor of the same server that does not exist.
    const ghostly = served(aNote(aRemoteActor(server.origin, 'ghost'), 'ghostly'));
    for (const [name, parent] of [['r1', `${server.origin}/notes/swapped`], ['r2', ghostly.id]] as const) {
      expect(await receiveCreate(alice, aNote(alice, name, { inReplyTo: parent }))).toBe('applied');
      expect(await statusOfNote(`${server.origin}/notes/${name}`)).toMatchObject({ inReplyToId: null });
    }
    expect(await remoteStatusIdByUri(`${server.origin}/notes/other`)).toBeUndefined();
    expect(await remoteStatusIdByUri(`${server.origin}/notes/swapped`)).toBeUndefined();
    expect(await remoteStatusIdByUri(ghostly.id)).toBeUndefined();
  });

  it('stores the reply alone when the parent cannot be fetched (an error, a server that does not answer), never failing the message', async () => {
    server.route('GET', '/notes/broken', { status: 500, body: 'oops' });
    server.route('GET', '/notes/silent', { hang: true });
    useRequestTimeout(300);
    for (const [name, parent] of [['r1', 'broken'], ['r2', 'silent']] as const) {
      expect(await receiveCreate(alice, aNote(alice, name, { inReplyTo: `${server.origin}/notes/${parent}` }))).toBe('applied');
      expect(await statusOfNote(`${server.origin}/notes/${name}`)).toMatchObject({ inReplyToId: null });
    }
  });

  it('keeps the part of the thread it could fetch when an ancestor further up fails', async () => {
    const middle = served(aNote(bob, 'middle', { inReplyTo: `${server.origin}/notes/missing` }));
    const reply = aNote(alice, 'reply', { inReplyTo: middle.id });
    expect(await receiveCreate(alice, reply)).toBe('applied');
    const m = await statusOfNote(middle.id);
    expect(m).toMatchObject({ inReplyToId: null });
    expect((await statusOfNote(reply.id))?.inReplyToId).toBe(m!.id);
  });
});

describe('a remote reply to a local status', () => {
  it('counts in replies_count, is linked, and asks nothing', async () => {
    const author = await aUser();
    const ours = await aPostedStatus(author.account, { visibility: 'public' });
    const reply = aNote(alice, 'reply', { inReplyTo: apUrls.status(author.account.username, ours.id) });
    expect(await receiveCreate(alice, reply)).toBe('applied');
    expect(await statusOfNote(reply.id)).toMatchObject({ inReplyToId: ours.id, inReplyToAccountId: author.account.id });
    expect((await statusById(ours.id))?.repliesCount).toBe(1);
    expect(fetchesOf(server, '/notes/')).toEqual([]);
    // A reply to one of our statuses that does not exist is not fetched from ourselves.
    const stray = aNote(alice, 'stray', { inReplyTo: apUrls.status(author.account.username, '1') });
    expect(await receiveCreate(alice, stray)).toBe('applied');
    expect(await statusOfNote(stray.id)).toMatchObject({ inReplyToId: null });
  });
});

// ---- mentions in remote posts ----

describe('a remote status mentioning actors we do not know', () => {
  it('fetches them so the mention is kept; one that does not exist is left out', async () => {
    const carol = aRemoteActor(server.origin, 'carol');
    server.serve(carol.doc);
    const note = aNote(alice, 'hello', {
      tag: [
        { type: 'Mention', href: carol.doc.id, name: `@carol@${server.host}` },
        { type: 'Mention', href: `${server.origin}/users/nobody`, name: `@nobody@${server.host}` },
      ],
    });
    expect(await receiveCreate(alice, note)).toBe('applied');
    const carolAccount = await remoteAccountByUri(carol.doc.id);
    expect(carolAccount).toBeDefined();
    expect((await statusOfNote(note.id))?.mentions).toEqual([{ id: carolAccount!.id, username: 'carol', acct: `carol@${server.host}`, url: `${server.origin}/@carol` }]);
    expect(await remoteAccountByUri(`${server.origin}/users/nobody`)).toBeUndefined();
  });

  it('fetches at most a few of them', async () => {
    const many = Array.from({ length: 8 }, (_, i) => aRemoteActor(server.origin, `m${i}`));
    for (const a of many) server.serve(a.doc);
    const note = aNote(alice, 'crowd', { tag: many.map((a) => ({ type: 'Mention', href: a.doc.id })) });
    expect(await receiveCreate(alice, note)).toBe('applied');
    expect(fetchesOf(server, '/users/m')).toHaveLength(MAX_FETCHED_MENTIONS);
    expect((await statusOfNote(note.id))?.mentions).toHaveLength(MAX_FETCHED_MENTIONS);
  });
});

// ---- from here: mentions of unknown handles, replies to remote statuses ----

type Posted = { id: string; content: string; mentions: { id: string; acct: string; url: string }[]; in_reply_to_id: string | null };

async function post(user: UserFixture, body: Record<string, unknown>): Promise<Posted> {
  const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', token: user.token, json: body });
  expect(res.status).toBe(200);
  return res.body as Posted;
}

/** The deliveries of the Create of our status `statusId`. */
const createsFor = (statusId: string) => delivered.filter((d) => d.activity.type === 'Create' && String(d.activity.id).includes(statusId));
const inboxesOf = (statusId: string) => createsFor(statusId).map((d) => d.inbox).sort();
const noteIn = (statusId: string) => createsFor(statusId)[0]?.activity.object as Record<string, unknown> | undefined;

describe('a local post mentioning @user@domain never seen here', () => {
  it('resolves it through WebFinger and its actor, links it, and delivers the post to its inbox', async () => {
    const poster = await aUser();
    const posted = await post(poster, { status: `hello @bob@${server.host}`, visibility: 'public' });

    const bobAccount = await remoteAccountByUri(bob.doc.id);
    expect(bobAccount).toBeDefined();
    expect(posted.mentions).toEqual([{ id: bobAccount!.id, username: 'bob', acct: `bob@${server.host}`, url: `${server.origin}/@bob` }]);
    expect(posted.content).toBe(`<p>hello <span class="h-card"><a href="${server.origin}/@bob" class="u-url mention">@<span>bob</span></a></span></p>`);
    expect(inboxesOf(posted.id)).toEqual([`${server.origin}/inbox`]);
    expect(noteIn(posted.id)).toMatchObject({ cc: expect.arrayContaining([bob.doc.id]), tag: [{ type: 'Mention', href: bob.doc.id, name: `@bob@${server.host}` }] });
  });

  it('sends a direct post to the mentioned account alone', async () => {
    const poster = await aUser();
    const follower = await aRemoteFollowerOf(poster);
    const posted = await post(poster, { status: `psst @alice@${server.host}`, visibility: 'direct' });
    expect(inboxesOf(posted.id)).toEqual([`${server.origin}/inbox`]);
    expect(noteIn(posted.id)).toMatchObject({ to: [alice.doc.id], cc: [] });
    // The twin: the same post in public reaches the follower's server too.
    const open = await post(poster, { status: `hear ye @alice@${server.host}`, visibility: 'public' });
    expect(inboxesOf(open.id)).toEqual([follower, `${server.origin}/inbox`].sort());
  });

  it('leaves a handle that does not resolve as plain text, and the post stands', async () => {
    const poster = await aUser();
    const deadHost = `127.0.0.1:1`;
    const posted = await post(poster, { status: `hi @nobody@${server.host} and @x@${deadHost}` });
    expect(posted.mentions).toEqual([]);
    expect(posted.content).toBe(`<p>hi @nobody@${server.host} and @x@${deadHost}</p>`);
    expect(fetchesOf(server, '/.well-known/webfinger')).toHaveLength(1);
  });

  it('gives up on a handle whose server does not answer: it stays plain text, the post stands', async () => {
    server.route('GET', '/.well-known/webfinger', { hang: true });
    const poster = await aUser();
    const posted = await post(poster, { status: `anyone there, @carol@${server.host}?` });
    expect(posted.mentions).toEqual([]);
    expect(posted.content).toBe(`<p>anyone there, @carol@${server.host}?</p>`);
    expect(fetchesOf(server, '/.well-known/webfinger')).toHaveLength(1);
  }, 20_000);

  it(`resolves at most ${MAX_RESOLVED_HANDLES} unknown handles in one post`, async () => {
    const names = ['c1', 'c2', 'c3', 'c4', 'c5'];
    const actors = names.map((n) => aRemoteActor(server.origin, n));
    for (const a of actors) server.serve(a.doc);
    serveWebfinger(server, Object.fromEntries(actors.map((a, i) => [names[i]!, a.doc.id])));
    const poster = await aUser();
    const posted = await post(poster, { status: names.map((n) => `@${n}@${server.host}`).join(' ') });
    expect(posted.mentions).toHaveLength(MAX_RESOLVED_HANDLES);
    expect(fetchesOf(server, '/.well-known/webfinger')).toHaveLength(MAX_RESOLVED_HANDLES);
  });
});

/** A remote follower of `user` on the other server whose shared inbox differs; answers its inbox. */
async function aRemoteFollowerOf(user: UserFixture): Promise<string> {
  const dave = aRemoteActor(elsewhere.origin, 'dave');
  elsewhere.serve(dave.doc);
  const account = (await accountByActorUri(dave.doc.id))!;
  const { createFollow } = await import('../../lib/db/follows');
  const { newId } = await import('../../lib/ids');
  await createFollow(
    { id: newId(), followerId: account.id, followedId: user.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() },
    { followerInbox: account.sharedInboxUrl ?? undefined },
  );
  return account.sharedInboxUrl!;
}

describe('a local reply to a remote status', () => {
  it('names the remote Note in inReplyTo and reaches its author (mentioned or not) and everyone mentioned', async () => {
    const root = aNote(bob, 'root');
    await receiveCreate(bob, root);
    const parent = (await statusOfNote(root.id))!;
    const carol = aRemoteActor(elsewhere.origin, 'carol');
    elsewhere.serve(carol.doc);
    serveWebfinger(elsewhere, { carol: carol.doc.id });
    const replier = await aUser();

    const mentioning = await post(replier, { status: `@bob@${server.host} @carol@${elsewhere.host} indeed`, in_reply_to_id: parent.id, visibility: 'public' });
    expect(mentioning.in_reply_to_id).toBe(parent.id);
    expect(noteIn(mentioning.id)).toMatchObject({ inReplyTo: root.id, cc: expect.arrayContaining([bob.doc.id, carol.doc.id]) });
    expect(inboxesOf(mentioning.id)).toEqual([`${elsewhere.origin}/inbox`, `${server.origin}/inbox`].sort());
    expect((await statusById(parent.id))?.repliesCount).toBe(1);

    // Public and unmentioned: the author replied to still hears of it (Mastodon's reach of a reply).
    const plain = await post(replier, { status: 'no names', in_reply_to_id: parent.id, visibility: 'public' });
    expect(noteIn(plain.id)).toMatchObject({ inReplyTo: root.id });
    expect(inboxesOf(plain.id)).toEqual([`${server.origin}/inbox`]);

    // Followers-only and unmentioned: not to the author replied to (the twin of the case above).
    const limited = await post(replier, { status: 'only mine', in_reply_to_id: parent.id, visibility: 'private' });
    expect(inboxesOf(limited.id)).toEqual([]);
  });
});
