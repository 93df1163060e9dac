// Polls across servers, on the real table: a remote Question becomes a poll on
// the stored status; a local vote on it goes to its author as Create(Note) with
// `name`; the author's Update(Question) brings its counts and end; our polls
// take remote votes, render as Question, and go out as Update(Question) (sent
// by the sweeper, once a minute at most) when their counts change or they end.
// Every bad input is paired with its good twin, and writes nothing.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as showPoll } from '../../functions/polls/show';
import { handler as notifications } from '../../functions/notifications/index';
import { handler as votePoll } from '../../functions/polls/vote';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as showStatus } from '../../functions/statuses/show';
import { run as sweep } from '../../functions/sweeper/sweep';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import { createFollow } from '../../lib/db/follows';
import { changedPolls, clearPollChanged, pollById, pollVote } from '../../lib/db/polls';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById, type Status } from '../../lib/db/statuses';
import { renderNote } from '../../lib/federation/render';
import { sendChangedPolls } from '../../lib/federation/send_polls';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { activity, aNote, collectDeliveries, type Doc, receive } from '../support/activities';
import { aFollow, aRemoteAccount, aStoredPoll, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { storedItemCount } from '../support/items';
import * as keys from '../../lib/db/keys';
import { queryAll } from '../../lib/db/table';
import { notificationItem } from '../../lib/db/notifications';

const storedNotificationsOf = (account: Account) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.notificationsPartition(account.id) } }, notificationItem);

const delivered = collectDeliveries();
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));

type Remote = Account & { uri: string; followersUrl: string; inboxUrl: string };

async function aRemoteActor(host = 'polls.example'): Promise<Remote> {
  const { account } = await aRemoteAccount({ domain: host, keyless: true });
  return account as Remote;
}


/** `follower` (remote) follows `local`, as the inbox worker records an accepted Follow (with its server's inbox). */
async function aRemoteFollower(follower: Account, local: Account): Promise<void> {
  const edge = { id: newId(), followerId: follower.id, followedId: local.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
  expect(await createFollow(edge, { followerInbox: follower.sharedInboxUrl ?? undefined })).toBe(true);
}

const option = (name: string, votes: number) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: votes } });
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

/** A Question as Mastodon sends one: single choice unless `anyOf` is given. */
const aQuestion = (actor: Remote, overrides: Doc = {}): Doc & { id: string } =>
  aNote(actor, {
    type: 'Question',
    content: '<p>tea or coffee?</p>',
    endTime: inAnHour(),
    oneOf: [option('tea', 3), option('coffee', 5)],
    votersCount: 8,
    ...overrides,
  });

const statusOfUri = async (uri: string): Promise<Status | undefined> => {
  const id = await remoteStatusIdByUri(uri);
  return id ? statusById(id, true) : undefined;
};

const shownStatus = async (id: string, user?: UserFixture) =>
  (await call(showStatus, { path: `/api/v1/statuses/${id}`, pathParameters: { id }, token: user?.token })).body as { poll: Record<string, any> | null };

const vote = (user: UserFixture, pollId: string, choices: number[]) =>
  call(votePoll, { method: 'POST', path: `/api/v1/polls/${pollId}/votes`, pathParameters: { id: pollId }, json: { choices }, token: user.token });

/** A remote Question stored through Create, answered with its status. */
async function aRemotePoll(actor: Remote, overrides: Doc = {}): Promise<{ question: Doc & { id: string }; status: Status }> {
  const question = aQuestion(actor, overrides);
  expect(await receive(activity(actor, 'Create', question))).toBe('applied');
  const status = await statusOfUri(question.id);
  if (!status) throw new Error('the Question was not stored');
  return { question, status };
}

/** One of our poll statuses, posted through the API. */
async function aLocalPoll(author: UserFixture, poll: Doc = {}, visibility = 'public'): Promise<Status> {
  const res = await call(createStatus, {
    method: 'POST',
    path: '/api/v1/statuses',
    json: { status: 'pick one', visibility, poll: { options: ['yes', 'no', 'maybe'], expires_in: 3600, ...poll } },
    token: author.token,
  });
  expect(res.status).toBe(200);
  return (await statusById(String(res.body.id), true))!;
}

/** A remote actor's vote: Create of a Note named as the option, in reply to our poll status. */
const aVote = (actor: Remote, status: Status, author: Account, name: string, overrides: Doc = {}) =>
  activity(actor, 'Create', {
    id: `${actor.uri}#votes/${randomUUID()}`,
    type: 'Note',
    name,
    attributedTo: actor.uri,
    to: [apUrls.actor(author.username)],
    inReplyTo: apUrls.status(author.username, status.id),
    ...overrides,
  });

const countsOf = async (pollId: string) => {
  const poll = await pollById(pollId, true);
  return { options: poll?.options.map((o) => o.votesCount), votes: poll?.votesCount, voters: poll?.votersCount };
};

describe('a remote Question becomes a poll', () => {
  let viewer: UserFixture;
  let actor: Remote;
  beforeAll(async () => {
    [viewer, actor] = await Promise.all([aUser(), aRemoteActor()]);
  });

  it('single choice: options with their counts, voters, end; shown as a local poll is', async () => {
    const { status } = await aRemotePoll(actor);
    expect(status.pollId).toBe(status.id);
    const { poll } = await shownStatus(status.id, viewer);
    expect(poll).toMatchObject({
      id: status.pollId,
      expired: false,
      multiple: false,
      votes_count: 8,
      voters_count: 8,
      voted: false,
      own_votes: [],
      options: [{ title: 'tea', votes_count: 3 }, { title: 'coffee', votes_count: 5 }],
    });
  });

  it('anyOf is a multiple-choice poll; `closed` ends it (a closing time still ahead is read as now)', async () => {
    const { status } = await aRemotePoll(actor, { oneOf: undefined, anyOf: [option('a', 2), option('b', 1)], votersCount: 2, closed: inAnHour() });
    const { poll } = await shownStatus(status.id, viewer);
    expect(poll).toMatchObject({ multiple: true, expired: true, voters_count: 2, votes_count: 3 });
    expect(Date.parse(poll!.expires_at)).toBeLessThanOrEqual(Date.now());
  });

  it('a Note is not a poll, and a Question without options is a plain status', async () => {
    const { status } = await aRemotePoll(actor, { oneOf: undefined });
    expect(status.pollId).toBeNull();
    expect((await shownStatus(status.id, viewer)).poll).toBeNull();
  });

  it.each([
    ['more options than we store', { oneOf: Array.from({ length: 21 }, (_, i) => option(`o${i}`, 0)) }, { oneOf: Array.from({ length: 20 }, (_, i) => option(`o${i}`, 0)) }],
    ['two options of one name', { oneOf: [option('same', 1), option('same', 2)] }, { oneOf: [option('same', 1), option('other', 2)] }],
    ['an option without a name', { oneOf: [option('tea', 1), { type: 'Note', replies: { totalItems: 1 } }] }, { oneOf: [option('tea', 1), option('milk', 1)] }],
    ['an option title beyond the limit', { oneOf: [option('x'.repeat(501), 0), option('y', 0)] }, { oneOf: [option('x'.repeat(500), 0), option('y', 0)] }],
  ])('refuses a Question with %s (nothing written); its good twin is stored', async (_what, bad, good) => {
    const before = await storedItemCount();
    const badQuestion = aQuestion(actor, bad);
    expect(await receive(activity(actor, 'Create', badQuestion))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await statusOfUri(badQuestion.id)).toBeUndefined();
    const { status } = await aRemotePoll(actor, good);
    expect((await pollById(status.pollId!))?.options).toHaveLength((good.oneOf as unknown[]).length);
  });
});

describe('a local vote on a remote poll', () => {
  let voter: UserFixture;
  let actor: Remote;
  beforeAll(async () => {
    [voter, actor] = await Promise.all([aUser(), aRemoteActor()]);
  });

  it('is recorded here (voted, own_votes, counts) and sent to the author as one Create(Note) per choice', async () => {
    const { question, status } = await aRemotePoll(actor, { oneOf: undefined, anyOf: [option('red', 0), option('green', 0), option('blue', 0)], votersCount: 0 });
    const res = await vote(voter, status.pollId!, [0, 2]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ voted: true, own_votes: [0, 2], votes_count: 2, voters_count: 1 });
    const shown = await call(showPoll, { path: `/api/v1/polls/${status.pollId}`, pathParameters: { id: status.pollId! }, token: voter.token });
    expect(shown.body).toMatchObject({ voted: true, own_votes: [0, 2] });

    const voterUri = apUrls.actor(voter.account.username);
    expect(delivered.map((d) => d.inbox)).toEqual([actor.inboxUrl, actor.inboxUrl]);
    expect(delivered.every((d) => JSON.stringify(d.signer) === JSON.stringify({ accountId: voter.account.id }))).toBe(true);
    const notes = delivered.map((d) => d.activity as Doc & { object: Doc });
    expect(notes.map((a) => a.object.name)).toEqual(['red', 'blue']);
    for (const a of notes) {
      expect(a).toMatchObject({ type: 'Create', actor: voterUri, to: [actor.uri] });
      expect(a.object).toMatchObject({ type: 'Note', attributedTo: voterUri, inReplyTo: question.id, to: [actor.uri] });
      expect(String(a.object.id).startsWith(`${voterUri}#votes/`)).toBe(true);
    }
    expect(new Set(notes.map((a) => a.id)).size).toBe(2);
  });

  it('a vote the poll refuses (already voted, ended) sends nothing', async () => {
    const { status } = await aRemotePoll(actor);
    expect((await vote(voter, status.pollId!, [1])).status).toBe(200);
    expect(delivered).toHaveLength(1);
    expect((await vote(voter, status.pollId!, [0])).status).toBe(422);
    const ended = await aRemotePoll(actor, { closed: true });
    expect((await vote(voter, ended.status.pollId!, [0])).status).toBe(422);
    expect(delivered).toHaveLength(1);
  });
});

describe('Update(Question) from the poll\'s author', () => {
  let viewer: UserFixture;
  let actor: Remote;
  let sameServer: Remote;
  let elsewhere: Remote;
  beforeAll(async () => {
    [viewer, actor, sameServer, elsewhere] = await Promise.all([aUser(), aRemoteActor(), aRemoteActor(), aRemoteActor('elsewhere.example')]);
  });

  const updated = (question: Doc, counts: [number, number], extra: Doc = {}) => ({
    ...question,
    oneOf: [option('tea', counts[0]), option('coffee', counts[1])],
    votersCount: counts[0] + counts[1],
    ...extra,
  });

  it('brings the counts; a later one the end (closed)', async () => {
    const { question, status } = await aRemotePoll(actor);
    expect(await receive(activity(actor, 'Update', updated(question, [4, 6])))).toBe('applied');
    expect((await shownStatus(status.id, viewer)).poll).toMatchObject({ expired: false, votes_count: 10, voters_count: 10, options: [{ votes_count: 4 }, { votes_count: 6 }] });
    const closedAt = new Date(Date.now() - 1000).toISOString();
    expect(await receive(activity(actor, 'Update', updated(question, [5, 6], { closed: closedAt })))).toBe('applied');
    expect((await shownStatus(status.id, viewer)).poll).toMatchObject({ expired: true, expires_at: closedAt, votes_count: 11 });
  });

  it.each([
    ['sent by another actor of the same server (attributedTo forged)', 'sameServer', {}],
    ['sent by an actor of another server', 'elsewhere', {}],
    ['with options the poll does not have (an edit, not counts)', 'author', { oneOf: [option('tea', 9), option('juice', 9)] }],
    ['attributed to someone else by its author', 'author', { attributedTo: 'https://polls.example/users/someone' }],
  ])('is ignored %s: nothing written; the author\'s own is applied', async (_what, who, extra) => {
    const { question, status } = await aRemotePoll(actor);
    const sender = who === 'sameServer' ? sameServer : who === 'elsewhere' ? elsewhere : actor;
    const before = await storedItemCount();
    expect(await receive(activity(sender, 'Update', updated(question, [7, 7], extra)))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await countsOf(status.pollId!)).toEqual({ options: [3, 5], votes: 8, voters: 8 });
    expect(await receive(activity(actor, 'Update', updated(question, [7, 7])))).toBe('applied');
    expect(await countsOf(status.pollId!)).toEqual({ options: [7, 7], votes: 14, voters: 14 });
  });
});

describe('our poll receives remote votes', () => {
  let author: UserFixture;
  let actor: Remote;
  let other: Remote;
  beforeAll(async () => {
    [author, actor, other] = await Promise.all([aUser(), aRemoteActor(), aRemoteActor('voters.example')]);
  });

  it('a vote is counted, never stored as a status, and marks the poll for an Update', async () => {
    const status = await aLocalPoll(author);
    const body = aVote(actor, status, author.account, 'no');
    expect(await receive(body)).toBe('applied');
    expect(await countsOf(status.pollId!)).toEqual({ options: [0, 1, 0], votes: 1, voters: 1 });
    expect((await pollVote(status.pollId!, actor.id))?.choices).toEqual([1]);
    expect(await statusOfUri(String((body.object as Doc).id))).toBeUndefined();
    expect((await changedPolls()).map((c) => c.pollId)).toContain(status.pollId);
    expect((await shownStatus(status.id, author)).poll).toMatchObject({ votes_count: 1, options: [{ votes_count: 0 }, { votes_count: 1 }, { votes_count: 0 }] });
  });

  it('a multiple-choice poll takes one Create per choice: two votes, one voter', async () => {
    const status = await aLocalPoll(author, { multiple: true });
    expect(await receive(aVote(actor, status, author.account, 'yes'))).toBe('applied');
    expect(await receive(aVote(actor, status, author.account, 'maybe'))).toBe('applied');
    expect(await countsOf(status.pollId!)).toEqual({ options: [1, 0, 1], votes: 2, voters: 1 });
    // The same choice again (a redelivery after a crash) counts nothing, and asks again for the Update.
    await clearPollChanged(status.pollId!);
    expect(await receive(aVote(actor, status, author.account, 'yes'))).toBe('applied');
    expect(await countsOf(status.pollId!)).toEqual({ options: [1, 0, 1], votes: 2, voters: 1 });
    expect((await pollVote(status.pollId!, actor.id))?.choices).toEqual([0, 2]);
    expect((await changedPolls()).map((c) => c.pollId)).toContain(status.pollId);
  });

  type Case = { what: string; bad: (s: { status: Status; poll?: Status }) => Promise<Doc>; good: (s: { status: Status }) => Promise<Doc> };
  const cases: Case[] = [
    {
      what: 'an option the poll does not have',
      bad: async ({ status }) => aVote(actor, status, author.account, 'perhaps'),
      good: async ({ status }) => aVote(actor, status, author.account, 'maybe'),
    },
    {
      what: 'a second choice on a single-choice poll',
      bad: async ({ status }) => {
        expect(await receive(aVote(other, status, author.account, 'yes'))).toBe('applied');
        return aVote(other, status, author.account, 'no');
      },
      good: async ({ status }) => aVote(actor, status, author.account, 'no'),
    },
    {
      what: 'a vote attributed to someone else',
      bad: async ({ status }) => aVote(actor, status, author.account, 'yes', { attributedTo: other.uri }),
      good: async ({ status }) => aVote(actor, status, author.account, 'yes'),
    },
  ];

  it.each(cases)('ignores $what: nothing written; its good twin is counted', async ({ bad, good }) => {
    const status = await aLocalPoll(author);
    const badVote = await bad({ status });
    const countsBefore = await countsOf(status.pollId!);
    const before = await storedItemCount();
    expect(await receive(badVote)).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await countsOf(status.pollId!)).toEqual(countsBefore);
    expect(await receive(await good({ status }))).toBe('applied');
    expect((await countsOf(status.pollId!)).votes).toBe(countsBefore.votes! + 1);
  });

  it('ignores a vote after the poll ended (nothing written); a running poll counts it', async () => {
    const ended = await aStoredPoll(author.account, { expiresAt: new Date(Date.now() - 60_000) });
    const running = await aStoredPoll(author.account, { expiresAt: new Date(Date.now() + 3600_000) });
    const before = await storedItemCount();
    expect(await receive(aVote(actor, ended.status, author.account, 'yes'))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await countsOf(ended.poll.id)).toEqual({ options: [0, 0], votes: 0, voters: 0 });
    expect(await receive(aVote(actor, running.status, author.account, 'yes'))).toBe('applied');
    expect(await countsOf(running.poll.id)).toEqual({ options: [1, 0], votes: 1, voters: 1 });
  });

  it('ignores a vote on a followers-only poll from a non-follower (nothing written); a follower\'s counts', async () => {
    const status = await aLocalPoll(author, {}, 'private');
    const before = await storedItemCount();
    expect(await receive(aVote(other, status, author.account, 'yes'))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    await aFollow(actor, author.account);
    expect(await receive(aVote(actor, status, author.account, 'yes'))).toBe('applied');
    expect(await countsOf(status.pollId!)).toEqual({ options: [1, 0, 0], votes: 1, voters: 1 });
  });

  it('a reply with a `name` to a status without a poll is a status, not a vote', async () => {
    const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: 'no poll here' }, token: author.token });
    const plain = (await statusById(String(res.body.id), true))!;
    const body = aVote(actor, plain, author.account, 'yes', { content: '<p>a reply</p>', to: [AS_PUBLIC] });
    expect(await receive(body)).toBe('applied');
    expect((await statusOfUri(String((body.object as Doc).id)))?.inReplyToId).toBe(plain.id);
  });
});

describe('our polls as Question, and their Update(Question)', () => {
  let author: UserFixture;
  let follower: Remote;
  let voterElsewhere: Remote;
  beforeAll(async () => {
    [author, follower, voterElsewhere] = await Promise.all([aUser(), aRemoteActor('followers.example'), aRemoteActor('voters2.example')]);
    await aRemoteFollower(follower, author.account);
  });

  it('renders a poll status as a Question with its counts (none while totals are hidden)', async () => {
    const status = await aLocalPoll(author);
    expect(await receive(aVote(voterElsewhere, status, author.account, 'maybe'))).toBe('applied');
    const question = await renderNote((await statusById(status.id, true))!, author.account);
    expect(question).toMatchObject({
      type: 'Question',
      endTime: (await pollById(status.pollId!))!.expiresAt,
      votersCount: 1,
      oneOf: [
        { type: 'Note', name: 'yes', replies: { type: 'Collection', totalItems: 0 } },
        { type: 'Note', name: 'no', replies: { totalItems: 0 } },
        { type: 'Note', name: 'maybe', replies: { totalItems: 1 } },
      ],
    });
    expect(question).not.toHaveProperty('closed');
    expect(question).not.toHaveProperty('anyOf');

    const hidden = await aLocalPoll(author, { multiple: true, hide_totals: true });
    expect(await receive(aVote(voterElsewhere, hidden, author.account, 'yes'))).toBe('applied');
    const hiddenQuestion = await renderNote((await statusById(hidden.id, true))!, author.account);
    expect(hiddenQuestion.anyOf).toEqual([0, 1, 2].map(() => expect.objectContaining({ replies: { type: 'Collection', totalItems: 0 } })));
  });

  it('after votes, one Update(Question) per poll goes to the followers and the remote voters; then nothing until the next change', async () => {
    await sendChangedPolls(); // what earlier tests marked
    delivered.length = 0;
    const status = await aLocalPoll(author);
    expect(await receive(aVote(voterElsewhere, status, author.account, 'yes'))).toBe('applied');
    const local = await aUser();
    expect((await vote(local, status.pollId!, [2])).status).toBe(200);

    // Posting sent the Create to the follower; the Question itself goes out as an Update.
    expect(delivered.map((d) => d.activity.type)).toEqual(['Create']);
    delivered.length = 0;
    expect(await sendChangedPolls()).toEqual({ updated: 1 });
    expect(delivered.map((d) => d.inbox).sort()).toEqual([follower.sharedInboxUrl, voterElsewhere.sharedInboxUrl].sort());
    const update = delivered[0]!.activity as Doc & { object: Doc };
    expect(update).toMatchObject({ type: 'Update', actor: apUrls.actor(author.account.username) });
    expect(update.object).toMatchObject({
      id: apUrls.status(author.account.username, status.id),
      type: 'Question',
      votersCount: 2,
      oneOf: [{ name: 'yes', replies: { totalItems: 1 } }, { name: 'no', replies: { totalItems: 0 } }, { name: 'maybe', replies: { totalItems: 1 } }],
    });
    expect(update.object).not.toHaveProperty('closed');

    delivered.length = 0;
    expect(await sendChangedPolls()).toEqual({ updated: 0 });
    expect(delivered).toEqual([]);
  });

  it('a poll that ends goes out once more, closed, when the sweeper closes it', async () => {
    await sendChangedPolls();
    delivered.length = 0;
    const status = await aLocalPoll(author, { expires_in: 300 });
    const poll = (await pollById(status.pollId!))!;
    const result = await sweep(Date.parse(poll.expiresAt) + 60_000);
    expect(result.pollUpdates.updated).toBeGreaterThanOrEqual(1);
    const ours = delivered.filter((d) => d.activity.type === 'Update' && (d.activity as { object: Doc }).object.id === apUrls.status(author.account.username, status.id));
    expect(ours.map((d) => d.inbox)).toEqual([follower.sharedInboxUrl]);
    expect((ours[0]!.activity as { object: Doc }).object).toMatchObject({ type: 'Question', closed: poll.expiresAt, endTime: poll.expiresAt });
  });

  it('a remote poll that ends: its local voters are notified, its remote author is not, and nothing is sent', async () => {
    const remoteAuthor = await aRemoteActor();
    // Later than the earlier test's moved sweep (the watermark it left): the sweeper reads no minute twice.
    const { status } = await aRemotePoll(remoteAuthor, { endTime: new Date(Date.now() + 10 * 60_000).toISOString() });
    const local = await aUser();
    expect((await vote(local, status.pollId!, [0])).status).toBe(200);
    delivered.length = 0;
    await sweep(Date.now() + 12 * 60_000);
    expect(delivered.filter((d) => d.activity.type === 'Update' && (d.activity as { object: Doc }).object.id === status.uri)).toEqual([]);
    const notified = await call(notifications, { path: '/api/v1/notifications', token: local.token });
    expect((notified.body as { type: string; status?: { id: string } }[]).filter((n) => n.type === 'poll').map((n) => n.status?.id)).toEqual([status.id]);
    expect(await storedNotificationsOf(remoteAuthor)).toEqual([]);
  });

  it('a remote poll marks nothing, and a local vote on it is not an Update of ours', async () => {
    const remoteAuthor = await aRemoteActor();
    const { status } = await aRemotePoll(remoteAuthor);
    const local = await aUser();
    expect((await vote(local, status.pollId!, [0])).status).toBe(200);
    expect((await changedPolls()).map((c) => c.pollId)).not.toContain(status.pollId);
  });
});
