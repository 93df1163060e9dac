// Editing a status (PUT /api/v1/statuses/:id), its history and source, and the
// edit's fan-out: `status.update` to the streams that hold the status and an
// `update` notification to its boosters. Statuses are posted through the real
// endpoint; the fan-out and notify queues run their real workers in-process; a
// stand-in for the API Gateway Management API records every streamed frame.
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { handler as create } from '../../functions/statuses/create';
import { handler as history } from '../../functions/statuses/history';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as source } from '../../functions/statuses/source';
import { handler as update } from '../../functions/statuses/update';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import * as keys from '../../lib/db/keys';
import { mediaById } from '../../lib/db/media';
import { notificationsPage } from '../../lib/db/notifications';
import { castVote, pollById } from '../../lib/db/polls';
import { statusEditsOf } from '../../lib/db/status_edits';
import { statusById } from '../../lib/db/statuses';
import { getItem } from '../../lib/db/table';
import { registerInlineWorker, type QueueName } from '../../lib/queue';
import { aFollow, aMediaAttachment, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { connectThroughHandler, useManagementApi, type ManagementRequest } from '../support/management-api';

const sent: { queue: QueueName; body: Record<string, unknown> }[] = [];
for (const [queue, worker] of [['fanout', fanoutWorker], ['notify', notifyWorker]] as const) {
  registerInlineWorker(queue, async (event) => {
    for (const r of event.Records) sent.push({ queue, body: JSON.parse(r.body) as Record<string, unknown> });
    return worker(event);
  });
}

type Frame = { stream: string[]; event: string; payload?: string };
const frames: { connectionId: string; frame: Frame }[] = [];
useManagementApi((req: ManagementRequest, res: ServerResponse) => {
  if (req.method !== 'POST' || !req.connectionId) return res.writeHead(404).end();
  frames.push({ connectionId: req.connectionId, frame: JSON.parse(req.body.toString('utf8')) as Frame });
  res.writeHead(200).end();
});
const eventsOf = (connectionId: string) => frames.filter((f) => f.connectionId === connectionId).map((f) => f.frame.event);
const editsStreamedTo = (connectionId: string) =>
  frames.filter((f) => f.connectionId === connectionId && f.frame.event === 'status.update').map((f) => JSON.parse(f.frame.payload ?? 'null') as Record<string, unknown>);

const postStatus = (token: string, form: Record<string, string | string[]>) => call(create, { method: 'POST', path: '/api/v1/statuses', token, form });
const edit = (id: string, token: string | undefined, form: Record<string, string | string[]>) =>
  call(update, { method: 'PUT', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token, form });
const historyOf = (id: string, token?: string) => call(history, { method: 'GET', path: `/api/v1/statuses/${id}/history`, pathParameters: { id }, token });
const sourceOf = (id: string, token?: string) => call(source, { method: 'GET', path: `/api/v1/statuses/${id}/source`, pathParameters: { id }, token });
const anyItem = z.record(z.unknown());

let author: UserFixture;
let other: UserFixture;
beforeAll(async () => {
  [author, other] = await Promise.all([aUser(), aUser()]);
});
beforeEach(() => {
  sent.length = 0;
});

describe('PUT /api/v1/statuses/:id', () => {
  it('re-renders the text, sets edited_at and keeps every version, the original first', async () => {
    const mentioned = await aUser();
    const posted = await postStatus(author.token, { status: 'first #before', spoiler_text: '' });
    expect(posted.status).toBe(200);
    const id: string = posted.body.id;
    expect(posted.body.edited_at).toBeNull();

    const res = await edit(id, author.token, { status: `second @${mentioned.account.username} #after`, spoiler_text: 'cw', language: 'de' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, spoiler_text: 'cw', sensitive: true, language: 'de', tags: [{ name: 'after' }], mentions: [{ id: mentioned.account.id }] });
    expect(res.body.content).toContain('second');
    expect(res.body.content).toContain(`/@${mentioned.account.username}`);
    expect(res.body.edited_at).toEqual(expect.any(String));
    const stored = await statusById(id, true);
    expect(stored).toMatchObject({ text: `second @${mentioned.account.username} #after`, editedAt: res.body.edited_at, tags: ['after'] });
    // The tag timelines follow the tags.
    expect(await getItem(keys.tagEntry('before', id), anyItem)).toBeUndefined();
    expect(await getItem(keys.tagEntry('after', id), anyItem)).toBeDefined();

    const versions = await historyOf(id, other.token);
    expect(versions.status).toBe(200);
    expect(versions.body).toHaveLength(2);
    expect(versions.body[0]).toMatchObject({ spoiler_text: '', sensitive: false, created_at: posted.body.created_at, account: { id: author.account.id }, media_attachments: [], emojis: [], poll: null });
    expect(versions.body[0].content).toContain('first');
    expect(versions.body[1]).toMatchObject({ spoiler_text: 'cw', sensitive: true, created_at: res.body.edited_at });
    expect(versions.body[1].content).toContain('second');

    const third = await edit(id, author.token, { status: 'third' });
    expect(third.status).toBe(200);
    const three = await historyOf(id);
    expect(three.body.map((v: { content: string }) => v.content.replace(/<[^>]+>/g, '').slice(0, 5))).toEqual(['first', 'secon', 'third']);
    // The language stays when not given; the content warning goes (the body is the new version whole).
    expect(third.body).toMatchObject({ language: 'de', spoiler_text: '', sensitive: false });
  });

  it('answers the status unchanged, with no new version, when nothing changed', async () => {
    const posted = await postStatus(author.token, { status: 'same' });
    const id: string = posted.body.id;
    const res = await edit(id, author.token, { status: 'same' });
    expect(res.status).toBe(200);
    expect(res.body.edited_at).toBeNull();
    expect(await statusEditsOf(id)).toEqual([]);
    expect(sent.filter((m) => m.queue === 'fanout' && m.body.type === 'update')).toEqual([]);
    // A status never edited has one version: itself.
    const versions = await historyOf(id);
    expect(versions.body).toHaveLength(1);
    expect(versions.body[0].content).toContain('same');
  });

  it('is 404 for someone else\'s status or an unknown one, 401 without a token, and writes nothing', async () => {
    const posted = await postStatus(author.token, { status: 'mine' });
    const id: string = posted.body.id;
    const theirs = await edit(id, other.token, { status: 'hijacked' });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ error: expect.any(String) });
    expect((await edit('123456789', author.token, { status: 'x' })).status).toBe(404);
    expect((await edit('not-an-id', author.token, { status: 'x' })).status).toBe(404);
    expect((await edit(id, undefined, { status: 'x' })).status).toBe(401);
    expect(await statusById(id, true)).toMatchObject({ text: 'mine', editedAt: null });
    expect(await statusEditsOf(id)).toEqual([]);
    // The good twin: the author may.
    expect((await edit(id, author.token, { status: 'mine, edited' })).status).toBe(200);
  });

  it('refuses an invalid version with 422 and writes nothing', async () => {
    const posted = await postStatus(author.token, { status: 'valid' });
    const id: string = posted.body.id;
    const blank = await edit(id, author.token, { status: '   ' });
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({ error: expect.stringContaining("Text can't be blank") });
    const tooLong = await edit(id, author.token, { status: 'x'.repeat(501) });
    expect(tooLong.status).toBe(422);
    const othersMedia = await aMediaAttachment(other.account);
    const foreign = await edit(id, author.token, { status: 'with media', media_ids: [othersMedia.id] });
    expect(foreign.status).toBe(422);
    expect((await mediaById(othersMedia.id))?.statusId).toBeNull();
    expect(await statusById(id, true)).toMatchObject({ text: 'valid', editedAt: null });
    expect(await statusEditsOf(id)).toEqual([]);
  });

  it('attaches, describes and releases media, each version keeping the descriptions it had', async () => {
    const [a, b] = await Promise.all([aMediaAttachment(author.account, { description: 'old words' }), aMediaAttachment(author.account)]);
    const posted = await postStatus(author.token, { status: 'pictures', media_ids: [a.id] });
    const id: string = posted.body.id;
    const res = await call(update, {
      method: 'PUT',
      path: `/api/v1/statuses/${id}`,
      pathParameters: { id },
      token: author.token,
      json: { status: 'pictures', media_ids: [a.id, b.id], media_attributes: [{ id: a.id, description: 'new words', focus: '0.5,-0.5' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.media_attachments.map((m: { id: string }) => m.id)).toEqual([a.id, b.id]);
    expect(res.body.media_attachments[0]).toMatchObject({ description: 'new words', meta: { focus: { x: 0.5, y: -0.5 } } });
    expect((await mediaById(b.id))?.statusId).toBe(id);
    const versions = (await historyOf(id)).body;
    expect(versions[0].media_attachments).toEqual([expect.objectContaining({ id: a.id, description: 'old words' })]);
    expect(versions[1].media_attachments).toEqual([expect.objectContaining({ id: a.id, description: 'new words' }), expect.objectContaining({ id: b.id })]);

    // Left out of the next version: released, so it may be attached again.
    expect((await edit(id, author.token, { status: 'one picture', media_ids: [b.id] })).status).toBe(200);
    expect((await mediaById(a.id))?.statusId).toBeNull();
    expect((await mediaById(b.id))?.statusId).toBe(id);
  });

  it('keeps a poll\'s votes when its options stay, and resets them when they change', async () => {
    const posted = await postStatus(author.token, { status: 'vote', 'poll[options][]': ['a', 'b'], 'poll[expires_in]': '3600' });
    expect(posted.status).toBe(200);
    const id: string = posted.body.id;
    const pollId: string = posted.body.poll.id;
    expect((await castVote(pollId, other.account.id, [0])).ok).toBe(true);

    const same = await edit(id, author.token, { status: 'vote, please', 'poll[options][]': ['a', 'b'], 'poll[expires_in]': '3600' });
    expect(same.status).toBe(200);
    expect(same.body.poll).toMatchObject({ id: pollId, votes_count: 1 });

    const changed = await edit(id, author.token, { status: 'vote, please', 'poll[options][]': ['a', 'c'], 'poll[expires_in]': '3600' });
    expect(changed.status).toBe(200);
    expect(changed.body.poll.id).not.toBe(pollId);
    expect(changed.body.poll).toMatchObject({ votes_count: 0, options: [{ title: 'a', votes_count: 0 }, { title: 'c', votes_count: 0 }] });
    expect(await pollById(pollId, true)).toBeUndefined();
    const versions = (await historyOf(id)).body;
    expect(versions.map((v: { poll: unknown }) => v.poll)).toEqual([{ options: [{ title: 'a' }, { title: 'b' }] }, { options: [{ title: 'a' }, { title: 'b' }] }, { options: [{ title: 'a' }, { title: 'c' }] }]);
  });
});

describe('GET /api/v1/statuses/:id/source and history', () => {
  it('answers the source text to those who may see the status, 404 to others', async () => {
    const posted = await postStatus(author.token, { status: 'plain *source*', spoiler_text: 'careful', visibility: 'private' });
    const id: string = posted.body.id;
    const own = await sourceOf(id, author.token);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ id, text: 'plain *source*', spoiler_text: 'careful' });
    // A private status of an account one does not follow: not there, for its source and its history alike.
    expect((await sourceOf(id, other.token)).status).toBe(404);
    expect((await historyOf(id, other.token)).status).toBe(404);
    expect((await historyOf(id)).status).toBe(404);
    expect((await historyOf(id, author.token)).status).toBe(200);
  });
});

describe('the fan-out of an edit', () => {
  it('streams status.update to the homes holding it and the public streams, and notifies boosters', async () => {
    const [follower, stranger, booster] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    const posted = await postStatus(author.token, { status: 'before the edit' });
    const id: string = posted.body.id;
    expect((await call(reblog, { method: 'POST', path: `/api/v1/statuses/${id}/reblog`, pathParameters: { id }, token: booster.token })).status).toBe(200);
    const [followerConn, strangerConn, publicConn] = await Promise.all([
      connectThroughHandler(follower.token, { stream: 'user' }),
      connectThroughHandler(stranger.token, { stream: 'user' }),
      connectThroughHandler(undefined, { stream: 'public' }),
    ]);

    sent.length = 0;
    const res = await edit(id, author.token, { status: 'after the edit' });
    expect(res.status).toBe(200);
    expect(sent.filter((m) => m.queue === 'fanout')).toEqual([{ queue: 'fanout', body: { type: 'update', statusId: id } }]);

    for (const conn of [followerConn, publicConn]) {
      const got = editsStreamedTo(conn);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ id, edited_at: res.body.edited_at });
      expect(String(got[0]!.content)).toContain('after the edit');
    }
    // Not in the stranger's home: nothing for them.
    expect(eventsOf(strangerConn)).toEqual([]);
    // Home entries keep pointing at the one status.
    expect(await getItem(keys.homeEntry(follower.account.id, id), anyItem)).toMatchObject({ statusId: id });

    const notes = await notificationsPage(booster.account.id, { limit: 40 }, { types: ['update'] });
    expect(notes).toEqual([expect.objectContaining({ type: 'update', fromAccountId: author.account.id, statusId: id })]);
    // The follower did not boost it: not notified.
    expect(await notificationsPage(follower.account.id, { limit: 40 }, { types: ['update'] })).toEqual([]);
  });
});
