// Favourites and reblogs across servers, both ways: Like, Announce and their Undo
// received (lib/inbox/like.ts, announce.ts, through processActivity with stored
// remote actors), and what a local favourite or reblog sends
// (lib/federation/send_interactions.ts, through the real endpoints, the deliver
// queue's messages recorded). The fan-out and notify queues run their real workers
// in-process; an announced status we lack is fetched from a real HTTP server on
// loopback (test/support/remote-server.ts, the local stage with FEDERATION_ALLOW_PRIVATE=1).
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as deleteStatusHandler } from '../../functions/statuses/delete';
import { handler as favouriteHandler } from '../../functions/statuses/favourite';
import { handler as favouritedByHandler } from '../../functions/statuses/favourited_by';
import { handler as reblogHandler } from '../../functions/statuses/reblog';
import { handler as rebloggedByHandler } from '../../functions/statuses/reblogged_by';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as unfavouriteHandler } from '../../functions/statuses/unfavourite';
import { handler as unreblogHandler } from '../../functions/statuses/unreblog';
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById, type Account } from '../../lib/db/accounts';
import { createFollow } from '../../lib/db/follows';
import { favouriteOf, reblogFlagOf } from '../../lib/db/interactions';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById, type Status } from '../../lib/db/statuses';
import { useRequestTimeout } from '../../lib/federation/fetch';
import { instanceSigner } from '../../lib/federation/keys';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { processActivity } from '../../lib/inbox';
import { announce } from '../../lib/inbox/announce';
import { registerInlineWorker } from '../../lib/queue';
import { activity, activityIdOf, collectDeliveries, receive, type Doc } from '../support/activities';
import { aFollow, aPostedStatus, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { storedItemCount } from '../support/items';
import { aRemoteActor as aServedActor, remoteServer, type RemoteServer } from '../support/remote-server';

const delivered = collectDeliveries(() => deliverDown);
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
/** When set, the deliver queue refuses every message (an SQS outage). */
let deliverDown = false;

beforeAll(async () => {
  // The instance actor's key pair, made on first need (it signs the fetches).
  await instanceSigner();
});
beforeEach(() => {
  delivered.length = 0;
  deliverDown = false;
});

// ---- remote actors and what they send ----

type Remote = Account & { uri: string; followersUrl: string; inboxUrl: string; sharedInboxUrl: string };
let seq = 0;

async function aRemote(host: string): Promise<Remote> {
  const { account } = await aRemoteAccount({ domain: host, username: `r${Date.now().toString(36)}${(seq++).toString(36)}`, keyless: true });
  return account as Remote;
}

/** `follower` (remote) follows `local`, as the inbox worker records an accepted Follow (its server's inbox counted). */
async function aRemoteFollower(follower: Remote, local: Account): Promise<void> {
  const edge = { id: newId(), followerId: follower.id, followedId: local.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
  expect(await createFollow(edge, { followerInbox: follower.sharedInboxUrl })).toBe(true);
}

const like = (actor: Remote, object: string) => activity(actor, 'Like', object);
/** A public Announce, as Mastodon addresses one. */
const announceOf = (actor: Remote, object: string, overrides: Doc = {}) =>
  activity(actor, 'Announce', object, { to: [AS_PUBLIC], cc: [actor.followersUrl], published: new Date(Date.now() - 1000).toISOString(), ...overrides });
/** The Undo of an activity, embedded, by `by` (its own unless it lies). */
const undoOf = (by: Remote, undone: Doc) => activity(by, 'Undo', undone);


/** A public Note of `author`, received as its Create: a remote status stored here. */
async function aRemoteStatus(author: Remote, overrides: Doc = {}): Promise<Status> {
  const note = { id: `${author.uri}/statuses/${randomUUID()}`, type: 'Note', attributedTo: author.uri, to: [AS_PUBLIC], cc: [author.followersUrl], content: '<p>far away</p>', ...overrides };
  expect(await receive(activity(author, 'Create', note))).toBe('applied');
  return (await statusById((await remoteStatusIdByUri(note.id))!))!;
}

// ---- what the API shows ----

const ourUrl = (author: UserFixture, status: Status) => apUrls.status(author.account.username, status.id);
const shown = async (id: string, token?: string) => (await call(showStatus, { path: `/api/v1/statuses/${id}`, pathParameters: { id }, token })).body;
const accountIdsOf = (body: { id: string }[]) => body.map((a) => a.id);
const favouritedBy = async (id: string) =>
  accountIdsOf((await call(favouritedByHandler, { path: `/api/v1/statuses/${id}/favourited_by`, pathParameters: { id } })).body);
const rebloggedBy = async (id: string) =>
  accountIdsOf((await call(rebloggedByHandler, { path: `/api/v1/statuses/${id}/reblogged_by`, pathParameters: { id } })).body);
const notificationsOf = async (user: UserFixture) =>
  (await call(notificationsHandler, { path: '/api/v1/notifications', token: user.token })).body as { type: string; account: { id: string }; status?: { id: string } }[];
const homeOf = async (user: UserFixture) =>
  ((await call(homeTimeline, { path: '/api/v1/timelines/home', token: user.token })).body as { id: string; reblog: { id: string } | null; account: { id: string } }[]);

const act = (handler: typeof favouriteHandler, verb: string, id: string, token: string, form?: Record<string, string>) =>
  call(handler, { method: 'POST', path: `/api/v1/statuses/${id}/${verb}`, pathParameters: { id }, token, form });
const ofType = (type: string) => delivered.filter((d) => d.activity.type === type);

// ---- receiving Like ----

describe('Like and Undo(Like) received', () => {
  let author: UserFixture;
  let alice: Remote;
  let mallory: Remote;
  let post: Status;

  beforeAll(async () => {
    [author, alice, mallory] = await Promise.all([aUser(), aRemote('likes-a.example'), aRemote('likes-m.example')]);
    post = await aPostedStatus(author.account);
  });

  it('records the favourite once (count, favourited_by), notifies the author once, and its Undo takes it back', async () => {
    const liked = like(alice, ourUrl(author, post));
    expect(await receive(liked)).toBe('applied');
    expect(await shown(post.id)).toMatchObject({ favourites_count: 1 });
    expect(await favouritedBy(post.id)).toEqual([alice.id]);
    const favourites = () => notificationsOf(author).then((ns) => ns.filter((n) => n.type === 'favourite' && n.account.id === alice.id));
    expect(await favourites()).toEqual([expect.objectContaining({ status: expect.objectContaining({ id: post.id }) })]);

    // The same activity again is a replay; another Like of the same status changes nothing more.
    const before = await storedItemCount();
    expect(await receive(liked)).toBe('replayed');
    expect(await receive(like(alice, apUrls.statusPage(author.account.username, post.id)))).toBe('applied');
    expect(await storedItemCount()).toBe(before + 1); // the second Like's marker only
    expect(await shown(post.id)).toMatchObject({ favourites_count: 1 });
    expect(await favourites()).toHaveLength(1);

    expect(await receive(undoOf(alice, liked))).toBe('applied');
    expect(await shown(post.id)).toMatchObject({ favourites_count: 0 });
    expect(await favouritedBy(post.id)).toEqual([]);
    // A second Undo finds nothing to take back, and writes nothing.
    const after = await storedItemCount();
    expect(await receive(undoOf(alice, liked))).toBe('ignored');
    expect(await storedItemCount()).toBe(after);
    expect(delivered).toEqual([]);
  });

  // Each bad Like beside its good twin: the first writes nothing, the second records the favourite.
  type Pair = [string, () => Promise<{ bad: Doc; good: Doc; target: Status }>];
  const pairs: Pair[] = [
    [
      "a Like of another server's status (not ours) / of ours",
      async () => {
        const theirs = await aRemoteStatus(mallory);
        const ours = await aPostedStatus(author.account);
        return { bad: like(alice, theirs.uri!), good: like(alice, ourUrl(author, ours)), target: ours };
      },
    ],
    [
      'a Like of a followers-only status by a non-follower / by a follower',
      async () => {
        const owner = await aUser();
        const hidden = await aPostedStatus(owner.account, { visibility: 'private' });
        const follower = await aRemote('likes-f.example');
        await aRemoteFollower(follower, owner.account);
        return { bad: like(alice, ourUrl(owner, hidden)), good: like(follower, ourUrl(owner, hidden)), target: hidden };
      },
    ],
    [
      'a Like of a direct status not addressed to the actor / addressed to it',
      async () => {
        const owner = await aUser();
        const dm = await aPostedStatus(owner.account, {
          visibility: 'direct',
          mentions: [{ id: alice.id, username: alice.username, acct: `${alice.username}@${alice.domain}`, url: alice.uri }],
        });
        return { bad: like(mallory, ourUrl(owner, dm)), good: like(alice, ourUrl(owner, dm)), target: dm };
      },
    ],
    [
      "a Like of our status's id under another account's name / under its author's",
      async () => {
        const other = await aUser();
        const ours = await aPostedStatus(author.account);
        return { bad: like(alice, apUrls.status(other.account.username, ours.id)), good: like(alice, ourUrl(author, ours)), target: ours };
      },
    ],
    [
      'a Like by an actor the author blocks / by another actor',
      async () => {
        const owner = await aUser();
        const blocked = await aRemote('likes-b.example');
        expect((await call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${blocked.id}/block`, pathParameters: { id: blocked.id }, token: owner.token })).status).toBe(200);
        delivered.length = 0; // the Block it sends
        const ours = await aPostedStatus(owner.account);
        return { bad: like(blocked, ourUrl(owner, ours)), good: like(alice, ourUrl(owner, ours)), target: ours };
      },
    ],
  ];

  it.each(pairs)('%s', async (_name, build) => {
    const { bad, good, target } = await build();
    const before = await storedItemCount();
    expect(await receive(bad)).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await receive(good)).toBe('applied');
    expect((await statusById(target.id))!.favouritesCount).toBe(1);
    expect(await favouriteOf(String((await accountIdOf(String(good.actor))).id), target.id)).toBeDefined();
    expect(delivered).toEqual([]);
  });

  it("an Undo of someone else's favourite leaves it; the liker's own Undo removes it", async () => {
    const ours = await aPostedStatus(author.account);
    const liked = like(alice, ourUrl(author, ours));
    expect(await receive(liked)).toBe('applied');
    const neighbour = await aRemote('likes-a.example');
    const before = await storedItemCount();
    // Mallory undoes a Like of its own making (it never liked the status), then claims alice's Like as hers.
    expect(await receive(undoOf(mallory, { ...liked, id: activityIdOf(mallory), actor: mallory.uri }))).toBe('ignored');
    expect(await receive(undoOf(mallory, liked))).toBe('ignored');
    // alice's neighbour, on her server, sends her Undo: not the signer's own.
    expect(await receive({ ...undoOf(alice, liked), id: activityIdOf(neighbour) }, neighbour.uri)).toBe('refused');
    expect(await storedItemCount()).toBe(before);
    expect((await statusById(ours.id))!.favouritesCount).toBe(1);
    expect(await receive(undoOf(alice, liked))).toBe('applied');
    expect((await statusById(ours.id))!.favouritesCount).toBe(0);
  });
});

/** The stored account of an actor URI (the factories store each under its own). */
async function accountIdOf(uri: string): Promise<Account> {
  const { remoteAccountByUri } = await import('../../lib/db/remote');
  return (await remoteAccountByUri(uri))!;
}

// ---- receiving Announce ----

describe('Announce and Undo(Announce) received', () => {
  let author: UserFixture;
  let bob: Remote;
  let mallory: Remote;
  /** Follows bob, reblogs shown. */
  let reader: UserFixture;
  /** Follows bob with reblogs: false. */
  let quiet: UserFixture;

  beforeAll(async () => {
    [author, bob, mallory, reader, quiet] = await Promise.all([aUser(), aRemote('boosts-b.example'), aRemote('boosts-m.example'), aUser(), aUser()]);
    await aFollow(reader.account, bob);
    await aFollow(quiet.account, bob, { showReblogs: false });
  });

  const reblogOfAnnounce = async (id: string) => {
    const statusId = await remoteStatusIdByUri(id);
    return statusId ? statusById(statusId) : undefined;
  };

  it("stores the reblog once (count, reblogged_by), notifies the author, enters the booster's followers' homes but not with reblogs: false; Undo takes it all back", async () => {
    const post = await aPostedStatus(author.account);
    const boosted = announceOf(bob, ourUrl(author, post));
    expect(await receive(boosted)).toBe('applied');
    const reblog = (await reblogOfAnnounce(boosted.id))!;
    expect(reblog).toMatchObject({ accountId: bob.id, reblogOfId: post.id, visibility: 'public', uri: boosted.id });
    expect(await shown(post.id)).toMatchObject({ reblogs_count: 1 });
    expect(await rebloggedBy(post.id)).toEqual([bob.id]);
    expect((await notificationsOf(author)).filter((n) => n.type === 'reblog' && n.account.id === bob.id)).toEqual([
      expect.objectContaining({ status: expect.objectContaining({ id: post.id }) }),
    ]);
    expect((await homeOf(reader)).find((s) => s.id === reblog.id)).toMatchObject({ account: { id: bob.id }, reblog: { id: post.id } });
    expect((await homeOf(quiet)).map((s) => s.id)).not.toContain(reblog.id);
    expect(await accountById(bob.id)).toMatchObject({ statusesCount: 1 });

    // A redelivery is a replay; the handler run again (a worker that died after storing) writes nothing more.
    const before = await storedItemCount();
    expect(await receive(boosted)).toBe('replayed');
    expect(await announce({ id: boosted.id, type: 'Announce', actor: bob, activity: boosted })).toBe('applied');
    // A second Announce of the same status by the same actor is not a second reblog.
    expect(await receive(announceOf(bob, ourUrl(author, post)))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await shown(post.id)).toMatchObject({ reblogs_count: 1 });
    expect((await notificationsOf(author)).filter((n) => n.type === 'reblog' && n.account.id === bob.id)).toHaveLength(1);

    expect(await receive(undoOf(bob, boosted))).toBe('applied');
    expect(await shown(post.id)).toMatchObject({ reblogs_count: 0 });
    expect(await rebloggedBy(post.id)).toEqual([]);
    expect(await statusById(reblog.id)).toBeUndefined();
    expect((await homeOf(reader)).map((s) => s.id)).not.toContain(reblog.id);
    expect(await reblogFlagOf(bob.id, post.id)).toBeUndefined();
    // Undone: a second Undo, and the same Announce delivered anew, change nothing.
    const after = await storedItemCount();
    expect(await receive(undoOf(bob, boosted))).toBe('ignored');
    expect(await announce({ id: boosted.id, type: 'Announce', actor: bob, activity: boosted })).toBe('ignored');
    expect(await storedItemCount()).toBe(after);
    expect(await accountById(bob.id)).toMatchObject({ statusesCount: 0 });
  });

  it('an unlisted or followers-only Announce is stored with that visibility; private ones stay out of reblogged_by', async () => {
    const post = await aPostedStatus(author.account);
    const booster = await aRemote('boosts-b.example');
    const unlisted = announceOf(bob, ourUrl(author, post), { to: [bob.followersUrl], cc: [AS_PUBLIC] });
    const privately = announceOf(booster, ourUrl(author, post), { to: [booster.followersUrl], cc: [] });
    expect(await receive(unlisted)).toBe('applied');
    expect(await receive(privately)).toBe('applied');
    expect(await reblogOfAnnounce(unlisted.id)).toMatchObject({ visibility: 'unlisted' });
    expect(await reblogOfAnnounce(privately.id)).toMatchObject({ visibility: 'private' });
    expect(await shown(post.id)).toMatchObject({ reblogs_count: 2 });
    expect(await rebloggedBy(post.id)).toEqual([bob.id]);
  });

  it("the Announce of a remote status stored here counts on it; a Delete of the Announce's id by its actor removes it", async () => {
    const carol = await aRemote('boosts-c.example');
    const theirs = await aRemoteStatus(carol);
    const boosted = announceOf(bob, theirs.uri!);
    expect(await receive(boosted)).toBe('applied');
    const reblog = (await reblogOfAnnounce(boosted.id))!;
    expect(reblog.reblogOfId).toBe(theirs.id);
    expect((await statusById(theirs.id))!.reblogsCount).toBe(1);
    expect((await homeOf(reader)).map((s) => s.id)).toContain(reblog.id);

    // Only the booster deletes its reblog.
    const neighbour = await aRemote('boosts-b.example');
    expect(await receive(activity(neighbour, 'Delete', boosted.id))).toBe('ignored');
    expect(await statusById(reblog.id)).toBeDefined();
    expect(await receive(activity(bob, 'Delete', boosted.id))).toBe('applied');
    expect(await statusById(reblog.id)).toBeUndefined();
    expect((await statusById(theirs.id))!.reblogsCount).toBe(0);
    expect((await homeOf(reader)).map((s) => s.id)).not.toContain(reblog.id);
  });

  // Each bad Announce beside its good twin: the first writes nothing, the second stores the reblog.
  type Pair = [string, () => Promise<{ bad: Doc; good: Doc & { id: string }; target: Status }>];
  const pairs: Pair[] = [
    [
      'an Announce of our followers-only status (the actor a follower) / of a public one',
      async () => {
        const owner = await aUser();
        await aRemoteFollower(bob, owner.account);
        const hidden = await aPostedStatus(owner.account, { visibility: 'private' });
        const open = await aPostedStatus(owner.account);
        return { bad: announceOf(bob, ourUrl(owner, hidden)), good: announceOf(bob, ourUrl(owner, open)), target: open };
      },
    ],
    [
      'an Announce of a direct status addressed to the actor / of an unlisted one',
      async () => {
        const owner = await aUser();
        const dm = await aPostedStatus(owner.account, {
          visibility: 'direct',
          mentions: [{ id: bob.id, username: bob.username, acct: `${bob.username}@${bob.domain}`, url: bob.uri }],
        });
        const unlisted = await aPostedStatus(owner.account, { visibility: 'unlisted' });
        return { bad: announceOf(bob, ourUrl(owner, dm)), good: announceOf(bob, ourUrl(owner, unlisted)), target: unlisted };
      },
    ],
    [
      "a followers-only remote status of someone else / the actor's own",
      async () => {
        const [carol, dan] = await Promise.all([aRemote('boosts-c.example'), aRemote('boosts-d.example')]);
        await aFollow(reader.account, dan);
        const carols = await aRemoteStatus(carol, { to: [carol.followersUrl], cc: [] });
        const own = await aRemoteStatus(dan, { to: [dan.followersUrl], cc: [] });
        return { bad: announceOf(dan, carols.uri!), good: announceOf(dan, own.uri!, { to: [dan.followersUrl], cc: [] }), target: own };
      },
    ],
    [
      'a remote status announced by an actor no one here follows / by one followed',
      async () => {
        const carol = await aRemote('boosts-c.example');
        const carols = await aRemoteStatus(carol);
        return { bad: announceOf(mallory, carols.uri!), good: announceOf(bob, carols.uri!), target: carols };
      },
    ],
    [
      'an Announce by an actor the author blocks / by another',
      async () => {
        const owner = await aUser();
        const blocked = await aRemote('boosts-k.example');
        expect((await call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${blocked.id}/block`, pathParameters: { id: blocked.id }, token: owner.token })).status).toBe(200);
        delivered.length = 0;
        const ours = await aPostedStatus(owner.account);
        return { bad: announceOf(blocked, ourUrl(owner, ours)), good: announceOf(mallory, ourUrl(owner, ours)), target: ours };
      },
    ],
    [
      'an Announce addressed to no one (direct) / to the public',
      async () => {
        const ours = await aPostedStatus(author.account);
        return { bad: announceOf(bob, ourUrl(author, ours), { to: [], cc: [] }), good: announceOf(bob, ourUrl(author, ours)), target: ours };
      },
    ],
    [
      'an Announce of a reblog (its Announce id) / of the status reblogged',
      async () => {
        const ours = await aPostedStatus(author.account);
        const first = announceOf(mallory, ourUrl(author, ours));
        expect(await receive(first)).toBe('applied');
        return { bad: announceOf(bob, first.id), good: announceOf(bob, ourUrl(author, ours)), target: ours };
      },
    ],
  ];

  it.each(pairs)('%s', async (_name, build) => {
    const { bad, good, target } = await build();
    const before = await storedItemCount();
    const reblogsBefore = (await statusById(target.id))!.reblogsCount;
    expect(await receive(bad)).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await receive(good)).toBe('applied');
    expect((await statusById(target.id))!.reblogsCount).toBe(reblogsBefore + 1);
    expect(await reblogOfAnnounce(good.id)).toMatchObject({ reblogOfId: target.id });
  });

  it("an Undo of someone else's Announce leaves the reblog; the booster's own removes it", async () => {
    const post = await aPostedStatus(author.account);
    const boosted = announceOf(bob, ourUrl(author, post));
    expect(await receive(boosted)).toBe('applied');
    const before = await storedItemCount();
    expect(await receive(undoOf(mallory, { ...boosted, actor: mallory.uri }))).toBe('ignored');
    expect(await receive(undoOf(mallory, boosted))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect((await statusById(post.id))!.reblogsCount).toBe(1);
    expect(await receive(undoOf(bob, boosted))).toBe('applied');
    expect((await statusById(post.id))!.reblogsCount).toBe(0);
  });

  describe('an announced status we lack is fetched from its own server', () => {
    let server: RemoteServer;
    let elsewhere: RemoteServer;

    beforeEach(async () => {
      process.env.STAGE = 'local';
      process.env.FEDERATION_ALLOW_PRIVATE = '1';
      [server, elsewhere] = await Promise.all([remoteServer(), remoteServer()]);
    });
    afterEach(async () => {
      process.env.STAGE = 'test';
      delete process.env.FEDERATION_ALLOW_PRIVATE;
      useRequestTimeout(undefined);
      await Promise.all([server.close(), elsewhere.close()]);
    });

    const aServedNote = (on: RemoteServer, attributedTo: string, overrides: Doc = {}) => {
      const note = { id: `${on.origin}/notes/${randomUUID()}`, type: 'Note', attributedTo, to: [AS_PUBLIC], cc: [], content: '<p>fetched</p>', ...overrides };
      on.serve(note);
      return note;
    };

    it('stored as its author\'s (not fanned out itself), the reblog of it fanned out; a forged one is not stored', async () => {
      const dana = aServedActor(server.origin, `dana${seq++}`);
      server.serve(dana.doc);
      const note = aServedNote(server, dana.doc.id);
      // Attributed to an actor of another server: a forgery, never stored (nor its actor fetched).
      const forged = aServedNote(server, `${elsewhere.origin}/users/eve`);
      const before = await storedItemCount();
      expect(await receive(announceOf(bob, forged.id))).toBe('ignored');
      expect(await storedItemCount()).toBe(before);
      expect(elsewhere.received).toEqual([]);
      // Not served at all: nothing either.
      expect(await receive(announceOf(bob, `${server.origin}/notes/missing`))).toBe('ignored');
      expect(await storedItemCount()).toBe(before);

      const boosted = announceOf(bob, note.id);
      expect(await receive(boosted)).toBe('applied');
      const original = (await statusById((await remoteStatusIdByUri(note.id))!))!;
      const author = (await accountById(original.accountId))!;
      expect(author).toMatchObject({ uri: dana.doc.id, domain: server.host });
      expect(original.reblogsCount).toBe(1);
      const reblog = (await reblogOfAnnounce(boosted.id))!;
      const home = (await homeOf(reader)).map((s) => s.id);
      expect(home).toContain(reblog.id);
      expect(home).not.toContain(original.id);
    });
  });
});

// ---- what local favourites and reblogs send ----

describe('a local favourite or reblog, sent', () => {
  let local: UserFixture;
  let alice: Remote;
  let follower: Remote;

  beforeAll(async () => {
    [local, alice, follower] = await Promise.all([aUser(), aRemote('send-a.example'), aRemote('send-f.example')]);
    await aRemoteFollower(follower, local.account);
  });

  it("favouriting a remote status sends a Like to its author's inbox; unfavouriting, the Undo of the same Like; again, a new Like", async () => {
    const theirs = await aRemoteStatus(alice);
    delivered.length = 0;
    expect((await act(favouriteHandler, 'favourite', theirs.id, local.token)).status).toBe(200);
    const fav = (await favouriteOf(local.account.id, theirs.id))!;
    const likeId = apUrls.like(local.account.username, theirs.id, fav.id);
    expect(delivered).toEqual([
      expect.objectContaining({ inbox: alice.inboxUrl, signer: { accountId: local.account.id }, activity: expect.objectContaining({ id: likeId, type: 'Like', actor: apUrls.actor(local.account.username), object: theirs.uri }) }),
    ]);
    // Favouriting again changes nothing, and sends nothing.
    expect((await act(favouriteHandler, 'favourite', theirs.id, local.token)).status).toBe(200);
    expect(delivered).toHaveLength(1);

    expect((await act(unfavouriteHandler, 'unfavourite', theirs.id, local.token)).status).toBe(200);
    const [undo] = ofType('Undo');
    expect(undo).toMatchObject({ inbox: alice.inboxUrl, activity: { actor: apUrls.actor(local.account.username), object: { id: likeId, type: 'Like', object: theirs.uri } } });
    expect(await act(unfavouriteHandler, 'unfavourite', theirs.id, local.token)).toMatchObject({ status: 200 });
    expect(ofType('Undo')).toHaveLength(1);

    expect((await act(favouriteHandler, 'favourite', theirs.id, local.token)).status).toBe(200);
    const likes = ofType('Like');
    expect(likes).toHaveLength(2);
    expect(likes[1]!.activity.id).not.toBe(likeId);
  });

  it('favouriting our own statuses sends nothing; a deliver queue down does not fail the favourite', async () => {
    const ours = await aPostedStatus((await aUser()).account);
    expect((await act(favouriteHandler, 'favourite', ours.id, local.token)).status).toBe(200);
    expect(delivered).toEqual([]);
    const theirs = await aRemoteStatus(alice);
    deliverDown = true;
    expect((await act(favouriteHandler, 'favourite', theirs.id, local.token)).status).toBe(200);
    expect((await statusById(theirs.id))!.favouritesCount).toBe(1);
  });

  it("reblogging a remote status sends an Announce to our followers' servers and its author's; unreblogging, its Undo to the same", async () => {
    const theirs = await aRemoteStatus(alice);
    delivered.length = 0;
    const res = await act(reblogHandler, 'reblog', theirs.id, local.token);
    expect(res.status).toBe(200);
    const reblogId = String(res.body.id);
    const announces = ofType('Announce');
    expect(announces.map((d) => d.inbox).sort()).toEqual([alice.sharedInboxUrl, follower.sharedInboxUrl].sort());
    const announceId = apUrls.activity(local.account.username, reblogId);
    for (const d of announces) {
      expect(d.signer).toEqual({ accountId: local.account.id });
      expect(d.activity).toMatchObject({
        id: announceId,
        type: 'Announce',
        actor: apUrls.actor(local.account.username),
        object: theirs.uri,
        to: [AS_PUBLIC],
        cc: [alice.uri, apUrls.followers(local.account.username)],
      });
    }

    expect((await act(unreblogHandler, 'unreblog', theirs.id, local.token)).status).toBe(200);
    const undos = ofType('Undo');
    expect(undos.map((d) => d.inbox).sort()).toEqual([alice.sharedInboxUrl, follower.sharedInboxUrl].sort());
    for (const d of undos) expect(d.activity).toMatchObject({ actor: apUrls.actor(local.account.username), object: { id: announceId, type: 'Announce', object: theirs.uri } });
  });

  it('an unlisted reblog is addressed as unlisted; a followers-only reblog of our own status never names the public; DELETE of a reblog sends its Undo', async () => {
    const theirs = await aRemoteStatus(alice);
    delivered.length = 0;
    const unlisted = await act(reblogHandler, 'reblog', theirs.id, local.token, { visibility: 'unlisted' });
    expect(ofType('Announce')[0]!.activity).toMatchObject({ to: [apUrls.followers(local.account.username)], cc: [alice.uri, AS_PUBLIC] });

    const own = await aPostedStatus(local.account, { visibility: 'private' });
    delivered.length = 0;
    expect((await act(reblogHandler, 'reblog', own.id, local.token)).status).toBe(200);
    const [privateAnnounce, ...more] = ofType('Announce');
    expect(more).toEqual([]);
    expect(privateAnnounce!.inbox).toBe(follower.sharedInboxUrl);
    expect(privateAnnounce!.activity).toMatchObject({ to: [apUrls.followers(local.account.username)], cc: [apUrls.actor(local.account.username)], object: ourUrl(local, own) });

    delivered.length = 0;
    const id = String(unlisted.body.id);
    expect((await call(deleteStatusHandler, { method: 'DELETE', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token: local.token })).status).toBe(200);
    const undos = ofType('Undo');
    expect(undos.map((d) => d.inbox).sort()).toEqual([alice.sharedInboxUrl, follower.sharedInboxUrl].sort());
    expect(undos[0]!.activity).toMatchObject({ object: { id: apUrls.activity(local.account.username, id), type: 'Announce' } });
  });

  it('reblogging our own public status sends the Announce to remote followers only; nothing without any', async () => {
    const author = await aUser();
    const post = await aPostedStatus(author.account);
    const lonely = await aUser();
    expect((await act(reblogHandler, 'reblog', post.id, lonely.token)).status).toBe(200);
    expect(delivered).toEqual([]);
    expect((await act(reblogHandler, 'reblog', post.id, local.token)).status).toBe(200);
    expect(ofType('Announce').map((d) => d.inbox)).toEqual([follower.sharedInboxUrl]);
    expect(ofType('Announce')[0]!.activity).toMatchObject({ object: ourUrl(author, post), cc: [apUrls.actor(author.account.username), apUrls.followers(local.account.username)] });
  });
});
