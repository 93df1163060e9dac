import { handler as create } from '../../functions/statuses/create';
import { handler as index } from '../../functions/scheduled_statuses/index';
import { handler as show } from '../../functions/scheduled_statuses/show';
import { handler as update } from '../../functions/scheduled_statuses/update';
import { handler as remove } from '../../functions/scheduled_statuses/delete';
import { run as sweep } from '../../functions/sweeper/sweep';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { dynamo } from '../../lib/aws';
import { accountById } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { mediaById } from '../../lib/db/media';
import { pollById } from '../../lib/db/polls';
import { scheduledById } from '../../lib/db/scheduled';
import { statusItem } from '../../lib/db/statuses';
import { putItem, queryAll } from '../../lib/db/table';
import { registerInlineWorker } from '../../lib/queue';
import { publishDueScheduled, publishScheduled } from '../../lib/statuses/scheduled_posting';
import { aFollow, aMediaAttachment, anAppToken, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { z } from 'zod';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const MINUTE = 60_000;
const inMinutes = (n: number) => new Date(Date.now() + n * MINUTE).toISOString();

const post = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(create, { method: 'POST', path: '/api/v1/statuses', json: body, token, headers });
const list = (token: string, query: Record<string, string> = {}) => call(index, { method: 'GET', path: '/api/v1/scheduled_statuses', query, token });
const get = (token: string, id: string) => call(show, { method: 'GET', path: `/api/v1/scheduled_statuses/${id}`, pathParameters: { id }, token });
const put = (token: string | undefined, id: string, json: Record<string, unknown>) =>
  call(update, { method: 'PUT', path: `/api/v1/scheduled_statuses/${id}`, pathParameters: { id }, json, token });
const cancel = (token: string | undefined, id: string) => call(remove, { method: 'DELETE', path: `/api/v1/scheduled_statuses/${id}`, pathParameters: { id }, token });

const statusesOf = (accountId: string) =>
  queryAll(
    { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :p', ExpressionAttributeValues: { ':p': `ACCOUNT_STATUSES#${accountId.padStart(20, '0')}` } },
    statusItem,
  );

/** Items a scheduling or a post writes (scheduled items and due entries, statuses, polls, home entries). */
async function writtenCount(): Promise<number> {
  const out = await dynamo().scan({
      TableName: process.env.TABLE_NAME!,
      FilterExpression: 'begins_with(PK, :sc) OR begins_with(PK, :s) OR begins_with(PK, :p) OR begins_with(PK, :h)',
      ExpressionAttributeValues: { ':sc': 'SCHEDULED', ':s': 'STATUS#', ':p': 'POLL#', ':h': 'HOME#' },
      Select: 'COUNT',
    });
  return out.Count ?? 0;
}

describe('scheduled statuses', () => {
  let author: UserFixture;
  let follower: UserFixture;
  beforeAll(async () => {
    [author, follower] = await Promise.all([aUser(), aUser()]);
    await aFollow(follower.account, author.account);
  });

  it('POST /api/v1/statuses with scheduled_at stores a ScheduledStatus, reserves its media and posts nothing yet', async () => {
    const media = await aMediaAttachment(author.account, { description: 'a cat' });
    const at = inMinutes(6);
    const res = await post(author.token, { status: 'later', media_ids: [media.id], scheduled_at: at, spoiler_text: 'cw', visibility: 'unlisted' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      scheduled_at: at,
      params: {
        poll: null,
        text: 'later',
        media_ids: [media.id],
        sensitive: true,
        visibility: 'unlisted',
        idempotency: null,
        scheduled_at: null,
        spoiler_text: 'cw',
        application_id: Number(author.app.id),
        in_reply_to_id: null,
        quoted_status_id: null,
        quote_approval_policy: null,
      },
      media_attachments: [expect.objectContaining({ id: media.id, type: 'image', description: 'a cat' })],
    });
    const id = String(res.body.id);
    expect((await mediaById(media.id))?.statusId).toBe(id);
    expect(await statusesOf(author.account.id)).toEqual([]);
    expect((await accountById(author.account.id))?.statusesCount).toBe(0);

    // The reserved attachment cannot go on another status meanwhile.
    const other = await post(author.token, { status: 'now', media_ids: [media.id] });
    expect(other.status).toBe(422);

    expect((await get(author.token, id)).body).toEqual(res.body);
    await cancel(author.token, id);
  });

  it('keeps the poll, the reply target and the defaults in params', async () => {
    const parent = await aStoredStatus(follower.account);
    const res = await post(author.token, { status: 'vote', poll: { options: ['a', 'b'], expires_in: 600, multiple: true }, in_reply_to_id: parent.id, scheduled_at: inMinutes(10) }, { 'Idempotency-Key': 'k1' });
    expect(res.status).toBe(200);
    expect(res.body.params).toMatchObject({
      poll: { options: ['a', 'b'], expires_in: 600, multiple: true, hide_totals: false },
      in_reply_to_id: parent.id,
      sensitive: false,
      visibility: 'public',
      spoiler_text: null,
      idempotency: 'k1',
    });
    expect(res.body.media_attachments).toEqual([]);
    await cancel(author.token, String(res.body.id));
  });

  it('lists the caller\'s scheduled statuses newest first with paging (default 20) and a Link header', async () => {
    const user = await aUser();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(String((await post(user.token, { status: `s${i}`, scheduled_at: inMinutes(10 + i) })).body.id));
    await post(author.token, { status: 'not theirs', scheduled_at: inMinutes(10) });

    const all = await list(user.token);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([ids[2], ids[1], ids[0]].map((id) => expect.objectContaining({ id })));
    const first = await list(user.token, { limit: '2' });
    expect((first.body as { id: string }[]).map((s) => s.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers.link).toContain(`max_id=${ids[1]}`);
    const next = await list(user.token, { limit: '2', max_id: `${ids[1]}` });
    expect((next.body as { id: string }[]).map((s) => s.id)).toEqual([ids[0]]);
    const newer = await list(user.token, { min_id: `${ids[0]}`, limit: '1' });
    expect((newer.body as { id: string }[]).map((s) => s.id)).toEqual([ids[1]]);
    const since = await list(user.token, { since_id: `${ids[0]}` });
    expect((since.body as { id: string }[]).map((s) => s.id)).toEqual([ids[2], ids[1]]);
  });

  it('reschedules with PUT under the same five-minute rule', async () => {
    const first = inMinutes(10);
    const created = await post(author.token, { status: 'move me', scheduled_at: first });
    const id = String(created.body.id);
    const later = inMinutes(60);
    const res = await put(author.token, id, { scheduled_at: later });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, scheduled_at: later, params: { text: 'move me' } });
    expect((await scheduledById(author.account.id, id))?.scheduledAt).toBe(later);

    const tooSoon = await put(author.token, id, { scheduled_at: inMinutes(4) });
    expect(tooSoon.status).toBe(422);
    expect(tooSoon.body).toEqual({ error: 'Validation failed: Scheduled at The scheduled date must be in the future' });
    expect((await scheduledById(author.account.id, id))?.scheduledAt).toBe(later);

    // The old time no longer publishes it; the new one does.
    expect(await publishScheduled({ id, accountId: author.account.id, scheduledAt: first }, Date.now() + 20 * MINUTE)).toBe('gone');
    expect(await scheduledById(author.account.id, id)).toBeDefined();
    expect(await statusesOf(author.account.id)).toEqual([]);
    await cancel(author.token, id);
  });

  it('cancels with DELETE, answering {} and freeing the attachments', async () => {
    const media = await aMediaAttachment(author.account);
    const created = await post(author.token, { media_ids: [media.id], scheduled_at: inMinutes(10) });
    const id = String(created.body.id);
    const res = await cancel(author.token, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await get(author.token, id)).status).toBe(404);
    expect((await mediaById(media.id))?.statusId).toBeNull();
    expect((await cancel(author.token, id)).status).toBe(404);
    expect((await post(author.token, { media_ids: [media.id] })).status).toBe(200);
  });

  it('is invisible to anyone but its owner (404)', async () => {
    const created = await post(author.token, { status: 'mine', scheduled_at: inMinutes(10) });
    const id = String(created.body.id);
    expect((await get(follower.token, id)).status).toBe(404);
    expect((await put(follower.token, id, { scheduled_at: inMinutes(30) })).status).toBe(404);
    expect((await cancel(follower.token, id)).status).toBe(404);
    expect((await list(follower.token)).body).toEqual([]);
    expect((await get(author.token, id)).status).toBe(200);
    await cancel(author.token, id);
  });

  it('the sweeper publishes a due status through the normal path: counted, fanned out, media and poll attached, mentions notified', async () => {
    const user = await aUser();
    const fan = await aUser();
    await aFollow(fan.account, user.account);
    const media = await aMediaAttachment(user.account);
    const withMedia = await post(user.token, { status: `hi @${fan.account.username}`, media_ids: [media.id], scheduled_at: inMinutes(6), visibility: 'private' });
    const withPoll = await post(user.token, { status: 'poll', poll: { options: ['x', 'y'], expires_in: 3600 }, scheduled_at: inMinutes(7) });
    const notDue = await post(user.token, { status: 'tomorrow', scheduled_at: inMinutes(24 * 60) });

    const now = Date.now() + 8 * MINUTE;
    // The poll job of the same sweeper would otherwise read a whole day of minute buckets on its first run.
    await putItem({ ...keys.sweeperWatermark('POLLS'), lastMinute: new Date(now - 2 * MINUTE).toISOString().slice(0, 16) });
    const result = await sweep(now);
    expect(result.scheduled.published).toBeGreaterThanOrEqual(2);

    const posted = await statusesOf(user.account.id);
    expect(posted.map((s) => s.text).sort()).toEqual([`hi @${fan.account.username}`, 'poll']);
    const mediaStatus = posted.find((s) => s.mediaIds.length > 0)!;
    expect(mediaStatus).toMatchObject({ visibility: 'private', mediaIds: [media.id], applicationName: expect.any(String) });
    expect((await mediaById(media.id))?.statusId).toBe(mediaStatus.id);
    const pollStatus = posted.find((s) => s.pollId)!;
    expect((await pollById(pollStatus.pollId!))?.options.map((o) => o.title)).toEqual(['x', 'y']);
    expect((await accountById(user.account.id))?.statusesCount).toBe(2);

    const home = await queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.homePartition(fan.account.id) } }, z.object({ SK: z.string() }));
    expect(home.length).toBe(2);
    const notes = await queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.notificationsPartition(fan.account.id) } }, z.object({ type: z.string() }));
    expect(notes.map((n) => n.type)).toEqual(['mention']);

    expect(await scheduledById(user.account.id, String(withMedia.body.id))).toBeUndefined();
    expect(await scheduledById(user.account.id, String(withPoll.body.id))).toBeUndefined();
    expect((await list(user.token)).body).toEqual([expect.objectContaining({ id: notDue.body.id })]);

    // A later run publishes nothing again.
    await sweep(now + MINUTE);
    expect((await statusesOf(user.account.id)).length).toBe(2);
    await cancel(user.token, String(notDue.body.id));
  });

  it('two overlapping sweeps publish each due status exactly once', async () => {
    const user = await aUser();
    const media = await aMediaAttachment(user.account);
    await post(user.token, { status: 'once', media_ids: [media.id], scheduled_at: inMinutes(6) });
    for (let i = 0; i < 4; i++) await post(user.token, { status: `once ${i}`, scheduled_at: inMinutes(6) });
    const now = Date.now() + 7 * MINUTE;
    const [a, b, c] = await Promise.all([publishDueScheduled(now), publishDueScheduled(now), publishDueScheduled(now)]);
    expect(a.published + b.published + c.published).toBe(5);
    const posted = await statusesOf(user.account.id);
    expect(posted.map((s) => s.text).sort()).toEqual(['once', 'once 0', 'once 1', 'once 2', 'once 3']);
    expect((await accountById(user.account.id))?.statusesCount).toBe(5);
    expect((await list(user.token)).body).toEqual([]);
  });

  it('the same due entry raced by two publishers is posted once', async () => {
    const user = await aUser();
    const created = await post(user.token, { status: 'race', scheduled_at: inMinutes(6) });
    const stored = (await scheduledById(user.account.id, String(created.body.id)))!;
    const due = { id: stored.id, accountId: user.account.id, scheduledAt: stored.scheduledAt };
    const now = Date.now() + 7 * MINUTE;
    const outcomes = await Promise.all([publishScheduled(due, now), publishScheduled(due, now)]);
    expect(outcomes.filter((o) => o === 'published')).toHaveLength(1);
    expect((await statusesOf(user.account.id)).length).toBe(1);
  });

  it('a due status that can no longer be posted (reply target deleted) is discarded and its media freed', async () => {
    const user = await aUser();
    const parent = await aStoredStatus(user.account);
    const media = await aMediaAttachment(user.account);
    const created = await post(user.token, { status: 'reply', media_ids: [media.id], in_reply_to_id: parent.id, scheduled_at: inMinutes(6) });
    expect(created.status).toBe(200);
    const { deleteItem } = await import('../../lib/db/table');
    await deleteItem(keys.status(parent.id), z.unknown());
    await publishDueScheduled(Date.now() + 7 * MINUTE);
    expect(await statusesOf(user.account.id)).toEqual([]);
    expect(await scheduledById(user.account.id, String(created.body.id))).toBeUndefined();
    expect((await mediaById(media.id))?.statusId).toBeNull();
  });

  describe('rejects bad input with 4xx and writes nothing', () => {
    let user: UserFixture;
    let stranger: UserFixture;
    beforeAll(async () => {
      [user, stranger] = await Promise.all([aUser(), aUser()]);
    });

    const postCases: [string, () => Promise<Record<string, unknown>>, number, RegExp][] = [
      ['scheduled_at now', async () => ({ status: 'x', scheduled_at: new Date().toISOString() }), 422, /^Validation failed: Scheduled at The scheduled date must be in the future$/],
      ['scheduled_at 4 minutes ahead', async () => ({ status: 'x', scheduled_at: inMinutes(4) }), 422, /The scheduled date must be in the future/],
      ['scheduled_at in the past', async () => ({ status: 'x', scheduled_at: inMinutes(-60) }), 422, /The scheduled date must be in the future/],
      ['scheduled_at not a date', async () => ({ status: 'x', scheduled_at: 'tomorrow' }), 422, /Scheduled at is invalid/],
      ['scheduled_at a number', async () => ({ status: 'x', scheduled_at: 12 }), 422, /scheduled_at must be a string/],
      ['no text and no media', async () => ({ status: ' ', scheduled_at: inMinutes(10) }), 422, /Text can't be blank/],
      ['text over 500', async () => ({ status: 'x'.repeat(501), scheduled_at: inMinutes(10) }), 422, /character limit/],
      ['a bad poll', async () => ({ status: 'x', poll: { options: ['a'], expires_in: 600 }, scheduled_at: inMinutes(10) }), 422, /more than one item/],
      ['another user\'s attachment', async () => ({ media_ids: [(await aMediaAttachment(stranger.account)).id], scheduled_at: inMinutes(10) }), 422, /media_ids/],
      ['an attached attachment', async () => ({ media_ids: [(await aMediaAttachment(user.account, { statusId: '1' })).id], scheduled_at: inMinutes(10) }), 422, /media_ids/],
      ['a reply to an unknown status', async () => ({ status: 'x', in_reply_to_id: '123456789', scheduled_at: inMinutes(10) }), 404, /Record not found/],
    ];
    it.each(postCases)('POST %s', async (_name, body, status, message) => {
      const input = await body();
      const before = await writtenCount();
      const res = await post(user.token, input);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
      expect(await writtenCount()).toBe(before);
    });

    it.each([
      ['a missing scheduled_at', {}, 422],
      ['a malformed scheduled_at', { scheduled_at: 'soon' }, 422],
      ['a number', { scheduled_at: 5 }, 422],
      ['an oversized string', { scheduled_at: 'x'.repeat(1000) }, 422],
      ['a time 4 minutes ahead', { scheduled_at: inMinutes(4) }, 422],
    ])('PUT with %s', async (_name, body, status) => {
      const created = await post(user.token, { status: 'x', scheduled_at: inMinutes(30) });
      const id = String(created.body.id);
      const res = await put(user.token, id, body);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await get(user.token, id)).body).toEqual(created.body);
      await cancel(user.token, id);
    });

    it.each([
      ['an unknown id', '123456789'],
      ['a malformed id', 'abc'],
    ])('GET, PUT and DELETE of %s answer 404', async (_name, id) => {
      expect((await get(user.token, id)).status).toBe(404);
      expect((await put(user.token, id, { scheduled_at: inMinutes(30) })).status).toBe(404);
      expect((await cancel(user.token, id)).status).toBe(404);
    });

    it('malformed JSON answers 400', async () => {
      const res = await call(update, { method: 'PUT', path: '/api/v1/scheduled_statuses/1', pathParameters: { id: '1' }, body: { data: '{"scheduled_at":', contentType: 'application/json' }, token: user.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it.each([
      ['no token', async () => undefined, 401],
      ['an app token', async () => (await anAppToken(['read', 'write'])).token, 422],
      ['a token without statuses scopes', async () => (await aUser({ scopes: ['read:accounts', 'write:media'] })).token, 403],
    ])('refuses %s on every endpoint', async (_name, token, status) => {
      const created = await post(user.token, { status: 'x', scheduled_at: inMinutes(30) });
      const id = String(created.body.id);
      const t = await token();
      const before = await writtenCount();
      for (const res of [await list(t as string), await get(t as string, id), await put(t, id, { scheduled_at: inMinutes(40) }), await cancel(t, id)]) {
        expect(res.status).toBe(status);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      expect(await writtenCount()).toBe(before);
      expect((await get(user.token, id)).body).toEqual(created.body);
      await cancel(user.token, id);
    });
  });
});

describe('scheduled statuses bad input (audit)', () => {
  let owner: UserFixture;
  let id: string;
  let created: Record<string, unknown>;
  beforeAll(async () => {
    owner = await aUser();
    const res = await post(owner.token, { status: 'audited', scheduled_at: inMinutes(90) });
    expect(res.status).toBe(200);
    created = res.body;
    id = String(res.body.id);
  });
  /** The audited scheduled status is the owner's only one, as created, and nothing else was written. */
  async function expectUnchanged(before: number) {
    expect(await writtenCount()).toBe(before);
    expect((await list(owner.token)).body).toEqual([created]);
  }

  it.each([
    ['GET /api/v1/scheduled_statuses', (t: string) => list(t)],
    ['GET /api/v1/scheduled_statuses/:id', (t: string) => get(t, id)],
    ['PUT /api/v1/scheduled_statuses/:id', (t: string) => put(t, id, { scheduled_at: inMinutes(120) })],
    ['DELETE /api/v1/scheduled_statuses/:id', (t: string) => cancel(t, id)],
    ['POST /api/v1/statuses with scheduled_at', (t: string) => post(t, { status: 'sneaky', scheduled_at: inMinutes(30) })],
  ])('%s refuses an invalid token (401), writing nothing', async (_name, run) => {
    const before = await writtenCount();
    for (const token of ['not-a-token', `${owner.token}x`]) {
      const res = await run(token);
      expect([res.status, res.body]).toEqual([401, { error: expect.any(String) }]);
    }
    await expectUnchanged(before);
  });

  it('needs write:statuses to change and read:statuses to read (403 across the two)', async () => {
    const { issueAccessToken } = await import('../../lib/tokens');
    const reader = (await issueAccessToken(owner.app, owner.account.id, ['read:statuses'])).raw;
    const writer = (await issueAccessToken(owner.app, owner.account.id, ['write:statuses'])).raw;
    const before = await writtenCount();
    const answers = [await list(writer), await get(writer, id), await put(reader, id, { scheduled_at: inMinutes(120) }), await cancel(reader, id), await post(reader, { status: 'x', scheduled_at: inMinutes(30) })];
    for (const res of answers) expect([res.status, res.body]).toEqual([403, { error: expect.any(String) }]);
    await expectUnchanged(before);
  });

  const badDates: [string, string][] = [
    ['an impossible day (30 February)', '2030-02-30T10:00:00Z'],
    ['an impossible day without a time', '2031-04-31'],
    ['an impossible month', '2030-13-01T10:00:00Z'],
    ['a year beyond 9999', '+010000-01-01T00:00:00.000Z'],
    ['the largest date JavaScript knows', '+275760-09-13T00:00:00.000Z'],
    ['an hour offset out of range', '2030-01-01T00:00:00+25:00'],
    ['words', 'next tuesday'],
  ];

  it.each(badDates)('PUT with %s answers 422 and keeps the time', async (_name, at) => {
    const before = await writtenCount();
    const res = await put(owner.token, id, { scheduled_at: at });
    expect([res.status, res.body]).toEqual([422, { error: 'Validation failed: Scheduled at is invalid' }]);
    expect((await get(owner.token, id)).body).toEqual(created);
    await expectUnchanged(before);
  });

  it.each(badDates)('POST /api/v1/statuses with scheduled_at %s answers 422 and schedules nothing', async (_name, at) => {
    const before = await writtenCount();
    const res = await post(owner.token, { status: 'when?', scheduled_at: at });
    expect([res.status, res.body]).toEqual([422, { error: 'Validation failed: Scheduled at is invalid' }]);
    await expectUnchanged(before);
  });

  it('the last minute of year 9999 is still accepted, and a real 29 February too', async () => {
    for (const at of ['9999-12-31T23:59:00.000Z', '2032-02-29T12:00:00.000Z']) {
      const res = await put(owner.token, id, { scheduled_at: at });
      expect([res.status, res.body.scheduled_at]).toEqual([200, at]);
    }
    const back = await put(owner.token, id, { scheduled_at: String(created.scheduled_at) });
    expect(back.body).toEqual(created);
  });

  it.each([
    ['a PUT with the time as a list', () => put(owner.token, id, { scheduled_at: [inMinutes(120)] })],
    ['a PUT with the time as an object', () => put(owner.token, id, { scheduled_at: { at: inMinutes(120) } })],
    ['a PUT with a null time', () => put(owner.token, id, { scheduled_at: null })],
    ['a PUT with an empty time', () => put(owner.token, id, { scheduled_at: '' })],
  ])('%s answers 422, keeping the time', async (_name, run) => {
    const before = await writtenCount();
    const res = await run();
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    await expectUnchanged(before);
  });

  it.each([
    ['an oversized id', '123456789012345678901'],
    ['a negative id', '-1'],
    ['a blank id', ' '],
    ['the id of a published status', 'status'],
  ])('GET, PUT and DELETE of %s answer 404', async (_name, raw) => {
    const bad = raw === 'status' ? (await aStoredStatus(owner.account)).id : raw;
    const before = await writtenCount();
    for (const res of [await get(owner.token, bad), await put(owner.token, bad, { scheduled_at: inMinutes(30) }), await cancel(owner.token, bad)]) {
      expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    }
    await expectUnchanged(before);
  });

  it.each([
    ['a negative limit', { limit: '-1' }],
    ['a fractional limit', { limit: '1.5' }],
    ['a malformed max_id', { max_id: 'abc' }],
    ['a malformed since_id', { since_id: '1 OR 1' }],
    ['an oversized min_id', { min_id: '123456789012345678901' }],
  ])('the list with %s answers 422', async (_name, query) => {
    const res = await list(owner.token, query);
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
  });

  it.each([
    ['min_id above max_id', { max_id: '1', min_id: '99999999999999999999' }],
    ['since_id above max_id', { max_id: '5', since_id: '99999999999999999999' }],
    ['since_id equal to max_id', () => ({ max_id: id, since_id: id })],
  ])('an empty id range (%s) answers an empty page, not an error', async (_name, query) => {
    const res = await list(owner.token, typeof query === 'function' ? query() : query);
    expect([res.status, res.body]).toEqual([200, []]);
  });
});
