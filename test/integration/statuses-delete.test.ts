import { z } from 'zod';
import { handler as create } from '../../functions/statuses/create';
import { handler as remove } from '../../functions/statuses/delete';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById } from '../../lib/db/accounts';
import { addReblog } from '../../lib/db/interactions';
import * as keys from '../../lib/db/keys';
import { mediaById } from '../../lib/db/media';
import { castVote, pollById } from '../../lib/db/polls';
import { statusById, statusItem } from '../../lib/db/statuses';
import { getItem } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { registerInlineWorker, type QueueName } from '../../lib/queue';
import { renderPoll } from '../../lib/render/poll';
import { call } from '../support/http';
import { aFollow, aMediaAttachment, anAppToken, aUser, type UserFixture } from '../support/factories';

const sent: { queue: QueueName; body: Record<string, unknown> }[] = [];
for (const [queue, worker] of [['fanout', fanoutWorker], ['notify', notifyWorker]] as const) {
  registerInlineWorker(queue, async (event) => {
    for (const r of event.Records) sent.push({ queue, body: JSON.parse(r.body) });
    return worker(event);
  });
}
beforeEach(() => {
  sent.length = 0;
});

const post = async (user: UserFixture, body: Record<string, unknown>) => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: body, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string; poll: { id: string } | null };
};
const del = (id: string, token?: string) => call(remove, { method: 'DELETE', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token });
const exists = async (key: { PK: string; SK: string }) => (await getItem(key, z.unknown())) !== undefined;

describe('DELETE /api/v1/statuses/:id', () => {
  it('deletes the status everywhere and answers its source for delete-and-redraft', async () => {
    const author = await aUser();
    const follower = await aUser();
    await aFollow(follower.account, author.account);
    const media = await aMediaAttachment(author.account);
    const status = await post(author, { status: 'pics #tag', media_ids: [media.id], spoiler_text: 'cw' });
    expect(await exists(keys.homeEntry(follower.account.id, status.id))).toBe(true);
    sent.length = 0;

    const res = await del(status.id, author.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: status.id, text: 'pics #tag', spoiler_text: 'cw', media_attachments: [{ id: media.id }] });
    expect(res.body).not.toHaveProperty('content');

    expect(await statusById(status.id)).toBeUndefined();
    for (const key of [keys.homeEntry(author.account.id, status.id), keys.homeEntry(follower.account.id, status.id), keys.publicEntry('all', status.id), keys.publicEntry('local', status.id), keys.tagEntry('tag', status.id)]) {
      expect(await exists(key)).toBe(false);
    }
    expect((await accountById(author.account.id))?.statusesCount).toBe(0);
    expect((await mediaById(media.id))?.statusId).toBeNull();
    expect(sent).toContainEqual({ queue: 'fanout', body: { type: 'delete', statusId: status.id, accountId: author.account.id, mentionIds: [], deleted: { visibility: 'public', tags: ['tag'], hasMedia: true } } });

    // Redraft: the released attachment can be attached again.
    const redraft = await post(author, { status: res.body.text, media_ids: [media.id] });
    expect((await mediaById(media.id))?.statusId).toBe(redraft.id);
  });

  it('answers the poll with the source and deletes the poll', async () => {
    const author = await aUser();
    const status = await post(author, { status: 'vote', poll: { options: ['a', 'b'], expires_in: 600, multiple: true } });
    const pollId = status.poll!.id;
    const res = await del(status.id, author.token);
    expect(res.body.poll).toMatchObject({ id: pollId, multiple: true, options: [{ title: 'a' }, { title: 'b' }] });
    expect(await pollById(pollId)).toBeUndefined();
  });

  it('decrements the parent\'s replies and removes the reply from its thread', async () => {
    const author = await aUser();
    const parent = await post(author, { status: 'parent' });
    const reply = await post(author, { status: 'reply', in_reply_to_id: parent.id });
    expect((await statusById(parent.id))?.repliesCount).toBe(1);
    expect((await del(reply.id, author.token)).status).toBe(200);
    expect((await statusById(parent.id))?.repliesCount).toBe(0);
    expect(await exists(keys.reply(parent.id, reply.id))).toBe(false);
    // A reply whose parent is gone deletes too.
    const orphan = await post(author, { status: 'reply', in_reply_to_id: parent.id });
    expect((await del(parent.id, author.token)).status).toBe(200);
    expect((await del(orphan.id, author.token)).status).toBe(200);
    expect(await exists(keys.status(parent.id))).toBe(false);
  });

  it('removes the reblogs of a deleted status', async () => {
    const author = await aUser();
    const fan = await aUser();
    const status = await post(author, { status: 'boost me' });
    const original = (await statusById(status.id))!;
    const reblog = statusItem.parse({ id: newId(), accountId: fan.account.id, createdAt: new Date().toISOString(), reblogOfId: original.id, visibility: 'public', conversationId: original.conversationId });
    expect(await addReblog(reblog, original)).toBe('changed');
    sent.length = 0;
    expect((await del(status.id, author.token)).status).toBe(200);
    expect(await statusById(reblog.id)).toBeUndefined();
    expect(await exists(keys.reblogFlag(fan.account.id, original.id))).toBe(false);
    expect((await accountById(fan.account.id))?.statusesCount).toBe(0);
    expect(sent).toContainEqual({ queue: 'fanout', body: { type: 'delete', statusId: reblog.id, accountId: fan.account.id, mentionIds: [], deleted: { visibility: 'unlisted', tags: [], hasMedia: false } } });
  });

  it.each([
    ['someone else\'s status', async (_me: UserFixture, other: UserFixture) => (await post(other, { status: 'theirs' })).id, 404],
    ['an unknown status', async () => '123456789', 404],
    ['a malformed id', async () => 'abc', 404],
  ])('answers 404 for %s and deletes nothing', async (_name, target, status) => {
    const [me, other] = await Promise.all([aUser(), aUser()]);
    const id = await target(me, other);
    const res = await del(id, me.token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: 'Record not found' });
    if (/^\d+$/.test(id) && id !== '123456789') expect(await statusById(id)).toBeDefined();
  });

  it('answers 404 for a status already deleted', async () => {
    const me = await aUser();
    const status = await post(me, { status: 'once' });
    expect((await del(status.id, me.token)).status).toBe(200);
    expect((await del(status.id, me.token)).status).toBe(404);
    expect((await accountById(me.account.id))?.statusesCount).toBe(0);
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['an app token', async () => (await anAppToken(['write'])).token, 422],
    ['a read-only token', async () => (await aUser({ scopes: ['read'] })).token, 403],
  ])('refuses %s', async (_name, token, code) => {
    const me = await aUser();
    const status = await post(me, { status: 'keep' });
    const res = await del(status.id, await token());
    expect(res.status).toBe(code);
    expect(await statusById(status.id)).toBeDefined();
  });
});

describe('polls: castVote and renderPoll', () => {
  it('counts one vote per account, honours single choice and expiry, hides totals until the end', async () => {
    const author = await aUser();
    const [v1, v2] = await Promise.all([aUser(), aUser()]);
    const status = await post(author, { status: 'q', poll: { options: ['a', 'b', 'c'], expires_in: 600, hide_totals: true } });
    const pollId = status.poll!.id;
    expect(await castVote(pollId, v1.account.id, [0, 1])).toEqual({ ok: false, reason: 'invalid' });
    expect(await castVote(pollId, v1.account.id, [3])).toEqual({ ok: false, reason: 'invalid' });
    const first = await castVote(pollId, v1.account.id, [1]);
    expect(first.ok).toBe(true);
    expect(await castVote(pollId, v1.account.id, [2])).toEqual({ ok: false, reason: 'voted' });
    const both = await Promise.all([castVote(pollId, v2.account.id, [2]), castVote(pollId, v2.account.id, [0])]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(await castVote('123', v2.account.id, [0])).toEqual({ ok: false, reason: 'missing' });

    const poll = (await pollById(pollId))!;
    expect(poll.votersCount).toBe(2);
    expect(poll.votesCount).toBe(2);
    expect(poll.options[1]!.votesCount).toBe(1);
    expect(renderPoll(poll, [1], v1.account.id)).toMatchObject({ voted: true, own_votes: [1], votes_count: 2, options: [{ votes_count: null }, { votes_count: null }, { votes_count: null }] });
    expect(renderPoll(poll, undefined, undefined)).toMatchObject({ voted: false, own_votes: [] });
    const ended = { ...poll, expiresAt: new Date(Date.now() - 1000).toISOString() };
    expect(renderPoll(ended, undefined)).toMatchObject({ expired: true, options: [{ votes_count: expect.any(Number) }, { votes_count: 1 }, { votes_count: expect.any(Number) }] });
  });

  it('refuses a vote on an expired poll', async () => {
    const author = await aUser();
    const voter = await aUser();
    const status = await post(author, { status: 'q', poll: { options: ['a', 'b'], expires_in: 300 } });
    const { putItem } = await import('../../lib/db/table');
    const { pollRecord } = await import('../../lib/db/polls');
    const poll = (await pollById(status.poll!.id))!;
    await putItem(pollRecord({ ...poll, expiresAt: new Date(Date.now() - 1000).toISOString() }));
    expect(await castVote(poll.id, voter.account.id, [0])).toEqual({ ok: false, reason: 'expired' });
    expect((await pollById(poll.id))?.votesCount).toBe(0);
  });
});
