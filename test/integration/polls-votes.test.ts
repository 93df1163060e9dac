import { handler as showPoll } from '../../functions/polls/show';
import { handler as votePoll } from '../../functions/polls/vote';
import { followRecord } from '../../lib/db/follows';
import { pollById, pollRecord, pollVote } from '../../lib/db/polls';
import { putItem } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { aStoredPoll, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call, type Call } from '../support/http';

const show = (id: string, token?: string) => call(showPoll, { path: `/api/v1/polls/${id}`, pathParameters: { id }, token });
const vote = (id: string, token: string | undefined, body: Pick<Call, 'json' | 'form' | 'body'>) =>
  call(votePoll, { method: 'POST', path: `/api/v1/polls/${id}/votes`, pathParameters: { id }, token, ...body });

const inAnHour = () => new Date(Date.now() + 3600_000);

/** A poll with three options (multiple or not) on a status of `author`. */
async function aPoll(author: UserFixture, opts: { multiple?: boolean; hideTotals?: boolean; visibility?: 'public' | 'private' } = {}) {
  const pollId = newId();
  const status = await aStoredStatus(author.account, { pollId, visibility: opts.visibility ?? 'public' });
  const poll = pollRecord({
    id: pollId,
    statusId: status.id,
    accountId: author.account.id,
    options: ['red', 'green', 'blue'].map((title) => ({ title, votesCount: 0 })),
    multiple: opts.multiple ?? false,
    hideTotals: opts.hideTotals ?? false,
    expiresAt: inAnHour().toISOString(),
    votesCount: 0,
    votersCount: 0,
    createdAt: new Date().toISOString(),
  });
  await putItem(poll);
  return poll;
}

let author: UserFixture;
beforeAll(async () => {
  author = await aUser();
});

describe('GET /api/v1/polls/:id', () => {
  it('answers the poll without a token for a public status, with own_votes for a voter', async () => {
    const voter = await aUser();
    const { poll } = await aStoredPoll(author.account, { expiresAt: inAnHour(), voters: [voter.account] });
    const anonymous = await show(poll.id);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toMatchObject({ id: poll.id, expired: false, multiple: false, votes_count: 1, voted: false, own_votes: [] });
    const mine = await show(poll.id, voter.token);
    expect(mine.body).toMatchObject({ voted: true, own_votes: [0] });
  });

  it('hides polls of statuses the viewer cannot see', async () => {
    const poll = await aPoll(author, { visibility: 'private' });
    expect((await show(poll.id)).status).toBe(404);
    expect((await show(poll.id, (await aUser()).token)).status).toBe(404);
    const follower = await aUser();
    await putItem(followRecord({ id: newId(), followerId: follower.account.id, followedId: author.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() }));
    expect((await show(poll.id, follower.token)).status).toBe(200);
  });

  it.each([
    ['an unknown id', () => newId(), undefined, 404],
    ['a malformed id', () => 'poll', undefined, 404],
    ['an invalid token', () => 'POLL', 'nope', 401],
  ])('answers %s with an error', async (_n, id, token, status) => {
    const poll = await aPoll(author);
    const res = await show(id() === 'POLL' ? poll.id : id(), token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('refuses a token without read:statuses', async () => {
    const poll = await aPoll(author);
    expect((await show(poll.id, (await aUser({ scopes: ['write'] })).token)).status).toBe(403);
  });
});

describe('POST /api/v1/polls/:id/votes', () => {
  it('records a single choice once and answers the poll with own_votes', async () => {
    const voter = await aUser();
    const poll = await aPoll(author);
    const res = await vote(poll.id, voter.token, { form: { 'choices[]': '1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: poll.id, voted: true, own_votes: [1], votes_count: 1, voters_count: 1 });
    expect(res.body.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([0, 1, 0]);

    const again = await vote(poll.id, voter.token, { json: { choices: [2] } });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ error: 'Validation failed: You have already voted on this poll' });
    expect(await pollById(poll.id)).toMatchObject({ votesCount: 1, votersCount: 1 });
    expect((await show(poll.id, voter.token)).body.own_votes).toEqual([1]);
  });

  it('records several choices on a multiple-choice poll', async () => {
    const voter = await aUser();
    const poll = await aPoll(author, { multiple: true });
    const res = await vote(poll.id, voter.token, { json: { choices: [0, 2] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ multiple: true, own_votes: [0, 2], votes_count: 2, voters_count: 1 });
    const other = await aUser();
    const second = await vote(poll.id, other.token, { body: { data: 'choices[]=2', contentType: 'application/x-www-form-urlencoded' } });
    expect(second.body).toMatchObject({ votes_count: 3, voters_count: 2 });
    expect(second.body.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([1, 0, 2]);
  });

  it('refuses votes on an ended poll', async () => {
    const voter = await aUser();
    const { poll } = await aStoredPoll(author.account, { expiresAt: new Date(Date.now() - 60_000) });
    const res = await vote(poll.id, voter.token, { json: { choices: [0] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Validation failed: The poll has already ended' });
    expect(await pollVote(poll.id, voter.account.id)).toBeUndefined();
  });

  it.each([
    ['no choices', {}, /choices can't be blank/],
    ['an empty list', { choices: [] }, /choices can't be blank/],
    ['a choice out of range', { choices: [3] }, /The chosen vote option does not exist/],
    ['a negative choice', { choices: [-1] }, /The chosen vote option does not exist/],
    ['a non-numeric choice', { choices: ['red'] }, /choices/],
    ['a fractional choice', { choices: [0.5] }, /choices/],
    ['an object', { choices: { a: 1 } }, /choices/],
    ['two choices on a single-choice poll', { choices: [0, 1] }, /You have already voted on this poll/],
    ['the same choice twice', { choices: [1, 1] }, /You have already voted on this poll/],
    ['too many choices', { choices: Array.from({ length: 101 }, () => 0) }, /choices/],
  ])('rejects %s with 422 and records nothing', async (_n, json, message) => {
    const voter = await aUser();
    const poll = await aPoll(author);
    const res = await vote(poll.id, voter.token, { json });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
    expect(await pollVote(poll.id, voter.account.id)).toBeUndefined();
    expect(await pollById(poll.id)).toMatchObject({ votesCount: 0, votersCount: 0 });
  });

  it('refuses a vote on your own poll', async () => {
    const poll = await aPoll(author);
    const res = await vote(poll.id, author.token, { json: { choices: [0] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Validation failed: You cannot vote in your own polls' });
    expect(await pollById(poll.id)).toMatchObject({ votesCount: 0 });
  });

  it.each([
    ['an unknown poll', 'UNKNOWN', 'TOKEN', 404],
    ['a malformed id', 'BAD', 'TOKEN', 404],
    ['a poll on a private status of someone not followed', 'PRIVATE', 'TOKEN', 404],
    ['no token', 'OPEN', undefined, 401],
    ['a read token', 'OPEN', 'read', 403],
    ['a write:favourites token', 'OPEN', 'write:favourites', 403],
  ])('answers %s with an error and records nothing', async (_n, kind, token, status) => {
    const voter = await aUser();
    const open = await aPoll(author);
    const priv = await aPoll(author, { visibility: 'private' });
    const id = kind === 'OPEN' ? open.id : kind === 'PRIVATE' ? priv.id : kind === 'BAD' ? 'x'.repeat(3000) : newId();
    const auth = token === 'TOKEN' ? voter.token : token ? (await aUser({ scopes: [token] })).token : undefined;
    const res = await vote(id, auth, { json: { choices: [0] } });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    for (const p of [open, priv]) expect(await pollById(p.id)).toMatchObject({ votesCount: 0, votersCount: 0 });
  });

  it('rejects malformed JSON with 400', async () => {
    const poll = await aPoll(author);
    const res = await vote(poll.id, (await aUser()).token, { body: { data: '{"choices":[', contentType: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});
