// The inbox worker (lib/inbox, functions/workers/inbox.ts): what received activities do, through
// processActivity and the SQS handler, on the real table. Remote actors are stored first
// (createRemoteAccount), so nothing is fetched; the fan-out and notify queues run their real
// workers in-process; deliveries are recorded, not sent. Streams are heard through a stand-in
// for the Management API, as in streaming-publish.test.ts.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { SQSEvent } from 'aws-lambda';
import { handler as contextHandler } from '../../functions/statuses/context';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as tagTimeline } from '../../functions/timelines/tag';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as inboxWorker } from '../../functions/workers/inbox';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById, type Account } from '../../lib/db/accounts';
import { claimActivity } from '../../lib/db/activity_seen';
import { followEdge, graphStates } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { mediaById } from '../../lib/db/media';
import { remoteAccountByUri, remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById, type Status } from '../../lib/db/statuses';
import { writeRemoteStatus } from '../../lib/db/status_writes';
import { getItem } from '../../lib/db/table';
import { followerInboxesOf } from '../../lib/db/follower_inboxes';
import { instanceStats } from '../../lib/db/stats';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { follow } from '../../lib/graph/follow';
import { newId } from '../../lib/ids';
import { processActivity, type Processed } from '../../lib/inbox';
import { remoteRemovalLimits } from '../../lib/moderation/remote_removal';
import { registerInlineWorker, sqsEvent } from '../../lib/queue';
import type { DeliverMessage, InboxMessage } from '../../lib/queue/messages';
import { z } from 'zod';
import { activity, activityIdOf, aNote, collectDeliveries, type Doc } from '../support/activities';
import { call } from '../support/http';
import { storedItemCount } from '../support/items';
import { aFollow, aPostedStatus, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { connectThroughHandler, useManagementApi, type ManagementRequest } from '../support/management-api';

// ---- queues: the real fan-out, notify and inbox workers in-process; deliveries recorded ----

const delivered = collectDeliveries();
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
registerInlineWorker('inbox', inboxWorker);

// ---- streams: a stand-in for the Management API records every frame ----

type Frame = { stream: string[]; event: string; payload?: string };
const frames: { connectionId: string; frame: Frame }[] = [];
useManagementApi((req: ManagementRequest, res: ServerResponse) => {
  if (req.method === 'POST' && req.connectionId) frames.push({ connectionId: req.connectionId, frame: JSON.parse(req.body.toString('utf8')) as Frame });
  res.writeHead(200).end();
});
const eventsOf = (connectionId: string) => frames.filter((f) => f.connectionId === connectionId).map((f) => f.frame);

const listen = connectThroughHandler;

// ---- remote actors and what they send ----

let seq = 0;
type Remote = Account & { uri: string; followersUrl: string; inboxUrl: string };

/** A remote actor as lib/federation/actors.ts stores one (its key unused: the inbox endpoint verified what it sends). */
async function aRemoteActor(opts: { host?: string; username?: string; uri?: string; followersUrl?: string; inboxUrl?: string; sharedInboxUrl?: string | null } = {}): Promise<Remote> {
  const username = opts.username ?? `r${Date.now().toString(36)}${(seq++).toString(36)}`;
  const { host, ...rest } = opts;
  const { account } = await aRemoteAccount({ ...rest, domain: host, username, displayName: username, keyless: true });
  return account as Remote;
}



const createOf = (actor: Remote, object: unknown, overrides: Doc = {}): Doc => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: activityIdOf(actor),
  type: 'Create',
  actor: actor.uri,
  object,
  ...overrides,
});


const message = (body: Doc, signer: string): InboxMessage => ({ activity: body, signer, receivedAt: new Date().toISOString() });
/** What the inbox endpoint enqueues for `body`, signed by its actor unless told otherwise. */
const receive = (body: Doc, signer = String(body.actor)): Promise<Processed> => processActivity(message(body, signer));

const statusOfNote = async (noteId: string): Promise<Status | undefined> => {
  const id = await remoteStatusIdByUri(noteId);
  return id ? statusById(id, true) : undefined;
};

const idsOf = (body: { id: string }[]) => body.map((s) => s.id);
const homeOf = async (user: UserFixture) => idsOf((await call(homeTimeline, { path: '/api/v1/timelines/home', token: user.token })).body);
const publicOf = async (query: Record<string, string> = {}) => idsOf((await call(publicTimeline, { path: '/api/v1/timelines/public', query })).body);
const tagOf = async (tag: string, query: Record<string, string> = {}) =>
  idsOf((await call(tagTimeline, { path: `/api/v1/timelines/tag/${tag}`, pathParameters: { hashtag: tag }, query })).body);
const notificationsOf = async (user: UserFixture) =>
  (await call(notificationsHandler, { path: '/api/v1/notifications', token: user.token })).body as { type: string; account: { id: string }; status?: { id: string } }[];

/** Runs `fn` with BASE_URL set to `base` (the fixture was recorded against another server's names). */
async function withBaseUrl<T>(base: string, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.BASE_URL;
  process.env.BASE_URL = base;
  try {
    return await fn();
  } finally {
    process.env.BASE_URL = previous;
  }
}

// ---- the recorded Create(Note) of a real peer ----

describe('Create(Note) as a Fedify server sends it (test/fixtures/activitypub)', () => {
  const fixture = JSON.parse(readFileSync(new URL('../fixtures/activitypub/outgoing-Create-Note-mention.json', import.meta.url), 'utf8')) as { body: Doc };
  const aliceDoc = JSON.parse(readFileSync(new URL('../fixtures/activitypub/actor-alice.json', import.meta.url), 'utf8')) as Doc;

  it('stores the Note once as alice@hollo-a.test\'s status, its mention of our account resolved and notified', async () => {
    // The Note mentions http://probe.test/users/probe: with BASE_URL http://probe.test that is our `probe`.
    await withBaseUrl('http://probe.test', async () => {
      const probe = await aUser({ username: 'probe' });
      const alice = await aRemoteActor({ host: 'hollo-a.test', username: 'alice', uri: String(aliceDoc.id), followersUrl: String(aliceDoc.followers), inboxUrl: String(aliceDoc.inbox) });
      const follower = await aUser();
      await aFollow(follower.account, alice);

      expect(await receive(fixture.body)).toBe('applied');

      const note = fixture.body.object as Doc;
      const status = await statusOfNote(String(note.id));
      expect(status).toMatchObject({
        accountId: alice.id,
        uri: note.id,
        url: note.url,
        visibility: 'public',
        language: 'en',
        createdAt: note.published,
        mentions: [{ id: probe.account.id, username: 'probe', acct: 'probe' }],
        inReplyToId: null,
      });
      // Sanitised to Mastodon's tags: the data-* attributes and `translate` are gone, the mention link stays.
      expect(status!.contentHtml).toContain('class="h-card u-url mention"');
      expect(status!.contentHtml).not.toMatch(/data-account|translate=/);
      expect(status!.text).toBe('hello @probe from a fixture');
      // Its local id is minted from `published`, so it sorts where it was posted.
      expect(Number(BigInt(status!.id) >> 16n)).toBe(Date.parse(String(note.published)));

      const shown = await call(showStatus, { path: `/api/v1/statuses/${status!.id}`, pathParameters: { id: status!.id }, token: probe.token });
      expect(shown.body).toMatchObject({ uri: note.id, url: note.url, account: { acct: 'alice@hollo-a.test' }, mentions: [{ id: probe.account.id, acct: 'probe' }] });

      const notes = await notificationsOf(probe);
      expect(notes.map((n) => [n.type, n.account.id, n.status?.id])).toEqual([['mention', alice.id, status!.id]]);
      expect(await homeOf(follower)).toEqual([status!.id]);
      expect((await accountById(alice.id))?.statusesCount).toBe(1);
      // The instance counts its own statuses only.
      expect((await instanceStats()).statusCount).toBe(0);
    });
  });
});

// ---- bad federation input: refused or ignored, nothing written ----

describe('bad input at the worker writes nothing', () => {
  let alice: Remote;
  let mallory: Remote;
  let neighbour: Remote;
  let local: UserFixture;
  let alicesNote: Doc & { id: string };

  let alicesFollow: Doc;

  beforeAll(async () => {
    [alice, mallory, local] = await Promise.all([aRemoteActor({ host: 'alice.example' }), aRemoteActor({ host: 'mallory.example' }), aUser()]);
    neighbour = await aRemoteActor({ host: 'alice.example' });
    alicesNote = aNote(alice);
    expect(await receive(createOf(alice, alicesNote))).toBe('applied');
    // What the bad input below must leave alone: alice follows our account, and our account asked to follow alice.
    alicesFollow = activity(alice, 'Follow', apUrls.actor(local.account.username));
    expect(await receive(alicesFollow)).toBe('applied');
    await follow(local.account, alice.id, {});
  });

  /** Every case leaves alice, her note, her follow of our account and our pending request to her as they were. */
  async function expectUntouched() {
    expect(await accountById(alice.id)).toMatchObject({ displayName: alice.displayName, statusesCount: 1 });
    expect(await statusOfNote(alicesNote.id)).toBeDefined();
    const state = (await graphStates(local.account.id, [alice.id])).get(alice.id)!;
    expect(state.followedBy).toMatchObject({ activityId: alicesFollow.id });
    expect(state.requested).toBeDefined();
    expect(state.following).toBeUndefined();
  }

  const cases: [string, () => [Doc, string?], Processed][] = [
    ['an actor that is not the signer', () => [createOf(mallory, aNote(mallory)), alice.uri], 'refused'],
    ["an id on another server than the actor's", () => [createOf(mallory, aNote(mallory), { id: `https://alice.example/activities/${randomUUID()}` })], 'refused'],
    ['no id', () => [createOf(mallory, aNote(mallory), { id: undefined })], 'refused'],
    ['no type', () => [createOf(mallory, aNote(mallory), { type: undefined })], 'refused'],
    ['an actor given as a number', () => [createOf(mallory, aNote(mallory), { actor: 42 }), mallory.uri], 'refused'],
    ['an unknown activity type', () => [activity(mallory, 'EmojiReact', alicesNote.id)], 'ignored'],
    ['a Like of a status that is not ours', () => [activity(mallory, 'Like', alicesNote.id)], 'ignored'],
    ['a Note attributed to someone else', () => [createOf(mallory, aNote(mallory, { attributedTo: alice.uri }))], 'ignored'],
    ['a Note attributed to several, someone else first', () => [createOf(mallory, aNote(mallory, { attributedTo: [alice.uri, mallory.uri] }))], 'ignored'],
    ["a Note on another server than the actor's", () => [createOf(mallory, aNote(mallory, { id: `https://alice.example/notes/${randomUUID()}` }))], 'ignored'],
    ['a Note by URI on another server (never fetched)', () => [createOf(mallory, `https://alice.example/notes/${randomUUID()}`)], 'ignored'],
    ['a Create of something that is not a note', () => [createOf(mallory, { ...aNote(mallory), type: 'Event' })], 'ignored'],
    ["a Delete of another server's note", () => [activity(mallory, 'Delete', alicesNote.id)], 'ignored'],
    ["a Delete of another actor's note on the same server", () => [activity(neighbour, 'Delete', { id: alicesNote.id, type: 'Tombstone' }), neighbour.uri], 'ignored'],
    ['a Delete of a note never stored', () => [activity(mallory, 'Delete', `${mallory.uri}/statuses/unknown`)], 'ignored'],
    ['a Delete of another actor', () => [activity(neighbour, 'Delete', alice.uri), neighbour.uri], 'ignored'],
    ['an Update of another actor', () => [activity(mallory, 'Update', { id: alice.uri, type: 'Person', preferredUsername: alice.username, name: 'pwned', inbox: `${alice.uri}/inbox` })], 'ignored'],
    ['a Follow of an account that is not ours', () => [activity(mallory, 'Follow', alice.uri)], 'ignored'],
    ['a Follow of an unknown local username', () => [activity(mallory, 'Follow', apUrls.actor('nobody_here'))], 'ignored'],
    ["an Undo of someone else's Follow", () => [activity(mallory, 'Undo', { id: alicesFollow.id, type: 'Follow', actor: alice.uri, object: apUrls.actor(local.account.username) })], 'ignored'],
    ["an Undo of alice's Follow by her neighbour", () => [activity(neighbour, 'Undo', { ...alicesFollow, actor: alice.uri }), neighbour.uri], 'ignored'],
    ['an Undo by id only', () => [activity(mallory, 'Undo', `${mallory.uri}#follows/1`)], 'ignored'],
    ['an Accept of a Follow we never sent', () => [activity(mallory, 'Accept', { type: 'Follow', actor: apUrls.actor(local.account.username), object: mallory.uri })], 'ignored'],
    ["an Accept of our Follow of alice, by someone else", () => [activity(mallory, 'Accept', { type: 'Follow', actor: apUrls.actor(local.account.username), object: alice.uri })], 'ignored'],
    ["an Accept of our Follow of alice, by her neighbour", () => [activity(neighbour, 'Accept', { type: 'Follow', actor: apUrls.actor(local.account.username), object: alice.uri }), neighbour.uri], 'ignored'],
    ["a Reject of our Follow of alice, by someone else", () => [activity(mallory, 'Reject', { type: 'Follow', actor: apUrls.actor(local.account.username), object: alice.uri })], 'ignored'],
    ['a Reject naming no Follow of ours', () => [activity(mallory, 'Reject', 'https://elsewhere.example/follows/1')], 'ignored'],
  ];

  it.each(cases)('%s', async (_name, build, expected) => {
    const [body, signer] = build();
    const before = await storedItemCount();
    expect(await receive(body, signer ?? mallory.uri)).toBe(expected);
    expect(await storedItemCount()).toBe(before);
    expect(delivered).toEqual([]);
    await expectUntouched();
  });

  it('an activity from an actor that is not stored is refused', async () => {
    const stranger = 'https://nowhere.example/users/x';
    const before = await storedItemCount();
    expect(await receive({ id: `${stranger}#a`, type: 'Create', actor: stranger, object: { id: `${stranger}/n`, type: 'Note', attributedTo: stranger } })).toBe('refused');
    expect(await storedItemCount()).toBe(before);
  });

  it('a replayed activity id changes nothing the second time', async () => {
    const body = createOf(neighbour, aNote(neighbour, { content: '<p>once</p>' }));
    expect(await receive(body)).toBe('applied');
    const before = await storedItemCount();
    expect(await receive(body)).toBe('replayed');
    // The same Note in a new activity (a Create sent again) is stored once all the same.
    expect(await receive({ ...body, id: activityIdOf(neighbour) })).toBe('applied');
    expect(await storedItemCount()).toBe(before + 1); // only the new activity's marker
  });

  it("someone else's Delete leaves the note where it was, and its author's Delete removes it", async () => {
    await expectUntouched();
    const status = await statusOfNote(alicesNote.id);
    expect(status).toBeDefined();
    expect(await receive(activity(neighbour, 'Delete', alicesNote.id))).toBe('ignored');
    expect(await statusById(status!.id)).toBeDefined();
    expect(await receive(activity(alice, 'Delete', { id: alicesNote.id, type: 'Tombstone' }))).toBe('applied');
    expect(await statusById(status!.id)).toBeUndefined();
  });
});

// ---- what each activity does ----

describe('Follow, Undo(Follow)', () => {
  it('an unlocked account is followed at once, notified, and the Follow accepted', async () => {
    const [target, remote] = await Promise.all([aUser(), aRemoteActor({ host: 'follows.example' })]);
    const body = activity(remote, 'Follow', apUrls.actor(target.account.username));
    expect(await receive(body)).toBe('applied');

    const edge = await followEdge(remote.id, target.account.id);
    expect(edge).toMatchObject({ activityId: body.id, followerRemote: true, followerInbox: 'https://follows.example/inbox' });
    expect((await accountById(target.account.id))?.followersCount).toBe(1);
    expect((await followerInboxesOf(target.account.id)).map((f) => f.inbox)).toEqual(['https://follows.example/inbox']);
    expect((await notificationsOf(target)).map((n) => [n.type, n.account.id])).toEqual([['follow', remote.id]]);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ inbox: remote.inboxUrl, signer: { accountId: target.account.id }, activity: { type: 'Accept', actor: apUrls.actor(target.account.username) } });
    expect((delivered[0]!.activity as { object: unknown }).object).toMatchObject({ id: body.id, type: 'Follow' });

    // Following again (its server missed our Accept): accepted again, nothing doubled.
    delivered.length = 0;
    expect(await receive(activity(remote, 'Follow', apUrls.actor(target.account.username)))).toBe('applied');
    expect(delivered.map((d) => d.activity.type)).toEqual(['Accept']);
    expect((await accountById(target.account.id))?.followersCount).toBe(1);

    // Undo(Follow), with the Follow embedded as Mastodon and Fedify send it.
    expect(await receive(activity(remote, 'Undo', { id: body.id, type: 'Follow', actor: remote.uri, object: apUrls.actor(target.account.username) }))).toBe('applied');
    expect(await followEdge(remote.id, target.account.id)).toBeUndefined();
    expect((await accountById(target.account.id))?.followersCount).toBe(0);
    expect((await accountById(remote.id))?.followingCount).toBe(0);
  });

  it('a locked account gets a follow request (notified), answered later by its owner', async () => {
    const [target, remote] = await Promise.all([aUser({ locked: true }), aRemoteActor()]);
    const { updateAccount } = await import('../../lib/db/accounts');
    await updateAccount(target.account.id, { locked: true });
    const body = activity(remote, 'Follow', apUrls.actor(target.account.username));
    expect(await receive(body)).toBe('applied');
    const state = (await graphStates(target.account.id, [remote.id])).get(remote.id)!;
    expect(state.followedBy).toBeUndefined();
    expect(state.requestedBy).toMatchObject({ activityId: body.id });
    expect((await notificationsOf(target)).map((n) => n.type)).toEqual(['follow_request']);
    expect(delivered).toEqual([]);

    // Undo before the owner decides withdraws the request.
    expect(await receive(activity(remote, 'Undo', { id: body.id, type: 'Follow', actor: remote.uri, object: apUrls.actor(target.account.username) }))).toBe('applied');
    expect((await graphStates(target.account.id, [remote.id])).get(remote.id)!.requestedBy).toBeUndefined();
    expect((await accountById(target.account.id))?.followRequestsCount).toBe(0);
  });
});

describe('Accept / Reject of our Follow', () => {
  it('an Accept turns our request into a follow and brings the account\'s statuses home', async () => {
    const [local, remote] = await Promise.all([aUser(), aRemoteActor({ host: 'accepts.example' })]);
    expect(await receive(createOf(remote, aNote(remote, { content: '<p>before the follow</p>' })))).toBe('applied');
    await follow(local.account, remote.id, {});
    const sent = delivered.find((d) => d.activity.type === 'Follow');
    expect(sent).toBeDefined();
    expect((await graphStates(local.account.id, [remote.id])).get(remote.id)!.requested).toBeDefined();

    // Fedify embeds our Follow (its id, actor and object).
    expect(await receive(activity(remote, 'Accept', { id: sent!.activity.id, type: 'Follow', actor: apUrls.actor(local.account.username), object: remote.uri }))).toBe('applied');
    const state = (await graphStates(local.account.id, [remote.id])).get(remote.id)!;
    expect(state.requested).toBeUndefined();
    expect(state.following).toMatchObject({ activityId: sent!.activity.id });
    expect((await accountById(local.account.id))?.followingCount).toBe(1);
    expect((await accountById(remote.id))).toMatchObject({ followersCount: 1, followRequestsCount: 0 });
    expect(await homeOf(local)).toHaveLength(1);

    // The next post reaches the new follower's home.
    const next = aNote(remote, { content: '<p>after</p>' });
    expect(await receive(createOf(remote, next))).toBe('applied');
    expect((await homeOf(local))[0]).toBe((await statusOfNote(next.id))!.id);
  });

  it('an Accept naming our Follow by its id alone works too; a Reject drops the request', async () => {
    const [local, other, remote] = await Promise.all([aUser(), aUser(), aRemoteActor()]);
    await follow(local.account, remote.id, {});
    await follow(other.account, remote.id, {});
    const [mine, theirs] = delivered.filter((d) => d.activity.type === 'Follow').map((d) => String(d.activity.id));
    expect(await receive(activity(remote, 'Accept', mine))).toBe('applied');
    expect((await graphStates(local.account.id, [remote.id])).get(remote.id)!.following).toBeDefined();

    expect(await receive(activity(remote, 'Reject', { id: theirs, type: 'Follow', actor: apUrls.actor(other.account.username), object: remote.uri }))).toBe('applied');
    const state = (await graphStates(other.account.id, [remote.id])).get(remote.id)!;
    expect(state.requested).toBeUndefined();
    expect(state.following).toBeUndefined();
    expect((await accountById(remote.id))?.followRequestsCount).toBe(0);

    // A Reject of a Follow accepted earlier removes the follow (the remote account removed its follower).
    expect(await receive(activity(remote, 'Reject', mine))).toBe('applied');
    expect((await graphStates(local.account.id, [remote.id])).get(remote.id)!.following).toBeUndefined();
    expect((await accountById(local.account.id))?.followingCount).toBe(0);
  });
});

describe('Create(Note): a remote status in every read path', () => {
  let remote: Remote;
  let follower: UserFixture;
  let mentioned: UserFixture;
  let bystander: UserFixture;

  beforeAll(async () => {
    [remote, follower, mentioned, bystander] = await Promise.all([aRemoteActor({ host: 'posts.example' }), aUser(), aUser(), aUser()]);
    await aFollow(follower.account, remote);
  });

  it('a public status with a hashtag, an image and a mention: home, public (not local=true), remote=true, the tag, the notification, the streams', async () => {
    const conns = {
      public: await listen(undefined, { stream: 'public' }),
      remote: await listen(undefined, { stream: 'public:remote' }),
      remoteMedia: await listen(undefined, { stream: 'public:remote:media' }),
      local: await listen(undefined, { stream: 'public:local' }),
      tag: await listen(undefined, { stream: 'hashtag', tag: 'Fediverse' }),
      tagLocal: await listen(undefined, { stream: 'hashtag:local', tag: 'fediverse' }),
      user: await listen(follower.token, { stream: 'user' }),
      bystander: await listen(bystander.token, { stream: 'user' }),
    };
    const note = aNote(remote, {
      to: 'as:Public',
      content: `<p>Look <a href="${apUrls.actor(mentioned.account.username)}" class="u-url mention">@${mentioned.account.username}</a> #Fediverse <script>alert(1)</script></p>`,
      tag: [
        { type: 'Mention', href: apUrls.actor(mentioned.account.username), name: `@${mentioned.account.username}` },
        { type: 'Hashtag', name: '#Fediverse', href: 'https://posts.example/tags/fediverse' },
        { type: 'Emoji', name: ':blob:', icon: { url: 'https://posts.example/blob.png' } },
      ],
      attachment: { type: 'Document', mediaType: 'image/png', url: 'https://posts.example/files/cat.png', name: 'a cat', blurhash: 'UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH', focalPoint: [0.5, -0.25], width: 640, height: 480 },
      summary: 'cw',
      contentMap: { 'de-DE': 'x' },
    });
    expect(await receive(createOf(remote, note))).toBe('applied');
    const status = (await statusOfNote(note.id))!;
    expect(status).toMatchObject({ visibility: 'public', tags: ['fediverse'], spoilerText: 'cw', sensitive: true, language: 'de' });
    expect(status.contentHtml).not.toContain('script');

    expect(await homeOf(follower)).toEqual([status.id]);
    expect(await homeOf(bystander)).toEqual([]);
    expect(await publicOf()).toContain(status.id);
    expect(await publicOf({ remote: 'true' })).toContain(status.id);
    expect(await publicOf({ local: 'true' })).not.toContain(status.id);
    expect(await publicOf({ remote: 'true', only_media: 'true' })).toContain(status.id);
    expect(await tagOf('fediverse')).toEqual([status.id]);
    expect(await tagOf('fediverse', { local: 'true' })).toEqual([]);
    const notes = await notificationsOf(mentioned);
    expect(notes.map((n) => [n.type, n.status?.id])).toEqual([['mention', status.id]]);

    const [rendered] = (await call(publicTimeline, { path: '/api/v1/timelines/public', query: { remote: 'true' } })).body as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(rendered).toMatchObject({
      id: status.id,
      uri: note.id,
      url: note.id,
      account: { id: remote.id, acct: `${remote.username}@posts.example` },
      tags: [{ name: 'fediverse' }],
      media_attachments: [
        {
          type: 'image',
          url: 'https://posts.example/files/cat.png',
          remote_url: 'https://posts.example/files/cat.png',
          preview_url: 'https://posts.example/files/cat.png',
          description: 'a cat',
          blurhash: 'UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH',
          meta: { original: { width: 640, height: 480 }, focus: { x: 0.5, y: -0.25 } },
        },
      ],
    });
    const media = await mediaById(status.mediaIds[0]!);
    expect(media).toMatchObject({ accountId: remote.id, statusId: status.id, remoteUrl: 'https://posts.example/files/cat.png', fileKey: null });

    const updates = (c: string) => eventsOf(c).filter((f) => f.event === 'update').map((f) => (JSON.parse(f.payload!) as { id: string }).id);
    expect(updates(conns.public)).toEqual([status.id]);
    expect(updates(conns.remote)).toEqual([status.id]);
    expect(updates(conns.remoteMedia)).toEqual([status.id]);
    expect(updates(conns.tag)).toEqual([status.id]);
    expect(updates(conns.user)).toEqual([status.id]);
    expect(updates(conns.local)).toEqual([]);
    expect(updates(conns.tagLocal)).toEqual([]);
    expect(updates(conns.bystander)).toEqual([]);

    // Its author deletes it: gone from every timeline, `delete` on the streams that had it.
    expect(await receive(activity(remote, 'Delete', { id: note.id, type: 'Tombstone' }))).toBe('applied');
    expect(await statusById(status.id)).toBeUndefined();
    expect(await mediaById(status.mediaIds[0]!)).toBeUndefined();
    expect(await homeOf(follower)).toEqual([]);
    expect(await publicOf({ remote: 'true' })).not.toContain(status.id);
    expect(await tagOf('fediverse')).toEqual([]);
    const deletes = (c: string) => eventsOf(c).filter((f) => f.event === 'delete').map((f) => f.payload);
    for (const c of [conns.public, conns.remote, conns.remoteMedia, conns.tag, conns.user]) expect(deletes(c)).toEqual([status.id]);
    expect(deletes(conns.local)).toEqual([]);
    expect((await accountById(remote.id))?.statusesCount).toBe(0);

    // The deleted Note delivered again (a late Create) is not stored again: its id is a tombstone.
    expect(await receive(createOf(remote, note))).toBe('ignored');
    expect(await remoteStatusIdByUri(note.id)).toBe(status.id);
    expect(await statusById(status.id)).toBeUndefined();
  });

  it('unlisted, followers-only and direct statuses by their addressing, each where Mastodon shows it', async () => {
    const unlisted = aNote(remote, { to: [remote.followersUrl], cc: ['Public'] });
    const priv = aNote(remote, { to: [remote.followersUrl], cc: [], tag: { type: 'Mention', href: apUrls.actor(mentioned.account.username) } });
    // Addressed to our account without a Mention tag: a silent mention, as Mastodon reads a limited status.
    const direct = aNote(remote, { to: apUrls.actor(bystander.account.username), cc: [] });
    for (const n of [unlisted, priv, direct]) expect(await receive(createOf(remote, n))).toBe('applied');
    const [u, p, d] = await Promise.all([unlisted, priv, direct].map((n) => statusOfNote(n.id)));
    expect([u, p, d].map((s) => s?.visibility)).toEqual(['unlisted', 'private', 'direct']);
    expect(await publicOf()).not.toEqual(expect.arrayContaining([u!.id]));
    expect(await publicOf()).not.toEqual(expect.arrayContaining([p!.id]));
    expect(await homeOf(follower)).toEqual(expect.arrayContaining([u!.id, p!.id]));
    expect(await homeOf(follower)).not.toContain(d!.id);
    expect(await homeOf(mentioned)).toEqual([p!.id]);
    expect(await homeOf(bystander)).toEqual([d!.id]);
    expect((await notificationsOf(bystander)).map((n) => [n.type, n.status?.id])).toEqual([['mention', d!.id]]);
    // Private and direct statuses are not shown to someone they are not for.
    const hidden = await call(showStatus, { path: `/api/v1/statuses/${p!.id}`, pathParameters: { id: p!.id }, token: bystander.token });
    expect(hidden.status).toBe(404);
  });

  it('a reply to our status threads into its context and counts on it', async () => {
    const author = await aUser();
    const ours = await aPostedStatus(author.account);
    const reply = aNote(remote, { inReplyTo: apUrls.status(author.account.username, ours.id), tag: [{ type: 'Mention', href: apUrls.actor(author.account.username) }] });
    expect(await receive(createOf(remote, reply))).toBe('applied');
    const stored = (await statusOfNote(reply.id))!;
    expect(stored).toMatchObject({ inReplyToId: ours.id, inReplyToAccountId: author.account.id, conversationId: ours.conversationId });
    expect((await statusById(ours.id))?.repliesCount).toBe(1);
    const ctx = await call(contextHandler, { path: `/api/v1/statuses/${ours.id}/context`, pathParameters: { id: ours.id }, token: author.token });
    expect(idsOf(ctx.body.descendants)).toEqual([stored.id]);
    // A reply to another account stays off the public timelines, as Mastodon keeps it.
    expect(await publicOf()).not.toContain(stored.id);
    expect((await notificationsOf(author)).map((n) => [n.type, n.status?.id])).toEqual([['mention', stored.id]]);

    // A remote reply to a remote status, by its id.
    const answer = aNote(remote, { inReplyTo: reply.id });
    expect(await receive(createOf(remote, answer))).toBe('applied');
    expect(await statusOfNote(answer.id)).toMatchObject({ inReplyToId: stored.id, conversationId: ours.conversationId });
  });

  it('the loose shapes real peers send: cc as a string, tag and attachment as one object, attributedTo as an object', async () => {
    const note = aNote(remote, {
      to: remote.followersUrl,
      cc: AS_PUBLIC,
      attributedTo: { type: 'Person', id: remote.uri },
      tag: { type: 'Hashtag', name: 'Loose' },
      attachment: { type: 'Video', url: [{ type: 'Link', href: 'https://posts.example/v.mp4', mediaType: 'video/mp4' }] },
      url: { type: 'Link', href: 'https://posts.example/@someone/1' },
      published: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(await receive(createOf(remote, note))).toBe('applied');
    const status = (await statusOfNote(note.id))!;
    expect(status).toMatchObject({ visibility: 'unlisted', tags: ['loose'], url: 'https://posts.example/@someone/1' });
    // Published in the future: stored as now.
    expect(Date.parse(status.createdAt)).toBeLessThanOrEqual(Date.now());
    expect(await mediaById(status.mediaIds[0]!)).toMatchObject({ type: 'video', remoteUrl: 'https://posts.example/v.mp4' });

    // Addressed on the activity only: its audience is the Note's.
    const bare = aNote(remote, { to: undefined, cc: undefined });
    expect(await receive(createOf(remote, bare, { to: [remote.followersUrl], cc: ['as:Public'] }))).toBe('applied');
    expect((await statusOfNote(bare.id))?.visibility).toBe('unlisted');
  });
});

describe('at most once, and finishing what a dead worker left', () => {
  it('a Create whose worker died after storing the Note is fanned out by the redelivery', async () => {
    const [remote, follower] = await Promise.all([aRemoteActor(), aUser()]);
    await aFollow(follower.account, remote);
    const note = aNote(remote);
    // What the dead worker did: the status stored, its claim left (older than CLAIM_STALE_MS), nothing enqueued.
    const body = createOf(remote, note);
    const id = newId();
    const status = { ...(await import('../../lib/db/statuses')).statusItem.parse({ id, accountId: remote.id, createdAt: new Date().toISOString(), visibility: 'public', conversationId: id, uri: note.id }) };
    expect(await writeRemoteStatus({ status, media: [], listed: true })).toEqual({ ok: true });
    expect((await claimActivity(String(body.id), 120_000, Date.now() - 10 * 60_000)).claimed).toBe(true);
    expect(await homeOf(follower)).toEqual([]);

    expect(await receive(body)).toBe('applied');
    expect(await homeOf(follower)).toEqual([id]);
    expect(await receive(body)).toBe('replayed');
  });

  it('a delivery while another is processing the same activity is retried (the SQS handler reports it)', async () => {
    const remote = await aRemoteActor();
    const body = createOf(remote, aNote(remote));
    expect((await claimActivity(String(body.id), 120_000)).claimed).toBe(true);
    const res = await inboxWorker(sqsEvent('inbox', [message(body, remote.uri)]));
    expect(res.batchItemFailures).toHaveLength(1);
  });

  it('the SQS handler processes a batch, a malformed message dropped without failing the others', async () => {
    const remote = await aRemoteActor();
    const notes = [aNote(remote), aNote(remote)];
    const res = await inboxWorker(sqsEvent('inbox', [message(createOf(remote, notes[0]), remote.uri), { signer: 'not a url' }, message(createOf(remote, notes[1]), remote.uri)]));
    expect(res.batchItemFailures).toEqual([]);
    for (const n of notes) expect(await statusOfNote(n.id)).toBeDefined();
  });
});

describe('Update(Person), Delete(Person)', () => {
  it('an Update of the actor refreshes its account', async () => {
    const remote = await aRemoteActor({ host: 'updates.example' });
    const person = {
      id: remote.uri,
      type: 'Person',
      preferredUsername: remote.username,
      name: 'New Name',
      summary: '<p>new bio<script>x</script></p>',
      inbox: remote.inboxUrl,
      followers: remote.followersUrl,
      publicKey: { id: `${remote.uri}#main-key`, owner: remote.uri, publicKeyPem: remote.publicKeyPem },
    };
    expect(await receive(activity(remote, 'Update', person))).toBe('applied');
    const updated = await accountById(remote.id);
    expect(updated).toMatchObject({ displayName: 'New Name' });
    expect(updated?.noteHtml).not.toContain('script');
  });

  it('a Delete of the actor removes its statuses, follows and account, in bounded runs', async () => {
    const remote = await aRemoteActor({ host: 'leaving.example' });
    const [fan, followed] = await Promise.all([aUser(), aUser()]);
    await aFollow(fan.account, remote);
    expect(await receive(activity(remote, 'Follow', apUrls.actor(followed.account.username)))).toBe('applied');
    const notes = Array.from({ length: 5 }, () => aNote(remote));
    for (const n of notes) expect(await receive(createOf(remote, n))).toBe('applied');
    expect(await homeOf(fan)).toHaveLength(5);

    const limits = { ...remoteRemovalLimits };
    remoteRemovalLimits.statusesPerRun = 2;
    try {
      // Each run removes two and enqueues the activity again (run in-process here), until all is gone.
      expect(await receive(activity(remote, 'Delete', remote.uri))).toBe('continued');
    } finally {
      Object.assign(remoteRemovalLimits, limits);
    }
    for (const n of notes) expect(await statusById((await remoteStatusIdByUri(n.id))!)).toBeUndefined();
    expect(await accountById(remote.id)).toBeUndefined();
    expect(await remoteAccountByUri(remote.uri)).toBeUndefined();
    expect(await homeOf(fan)).toEqual([]);
    expect(await followEdge(fan.account.id, remote.id)).toBeUndefined();
    expect(await accountById(followed.account.id)).toMatchObject({ followersCount: 0 });
    expect(await followerInboxesOf(followed.account.id)).toEqual([]);
    expect(await getItem(keys.remoteAcct(remote.username, 'leaving.example'), z.unknown())).toBeUndefined();
  });
});
