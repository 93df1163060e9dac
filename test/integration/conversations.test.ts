// GET /api/v1/conversations, POST /api/v1/conversations/:id/read, DELETE /api/v1/conversations/:id.
import { handler as list } from '../../functions/conversations/index';
import { handler as read } from '../../functions/conversations/read';
import { handler as remove } from '../../functions/conversations/delete';
import { handler as create } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { registerInlineWorker } from '../../lib/queue';
import { anAppToken, aUser, type UserFixture } from '../support/factories';
import { storedItemCount } from '../support/items';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = async (user: UserFixture, json: Record<string, unknown>): Promise<string> => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json, token: user.token });
  expect(res.status).toBe(200);
  return res.body.id;
};
const conversations = (token: string, query: Record<string, string> = {}) => call(list, { path: '/api/v1/conversations', query, token });
const markRead = (token: string, id: string) => call(read, { method: 'POST', path: `/api/v1/conversations/${id}/read`, pathParameters: { id }, token });
const drop = (token: string, id: string) => call(remove, { method: 'DELETE', path: `/api/v1/conversations/${id}`, pathParameters: { id }, token });
type Shown = { id: string; unread: boolean; accounts: { id: string }[]; last_status: { id: string } | null };
const accountIds = (c: Shown) => c.accounts.map((a) => a.id).sort();

let alice: UserFixture;
let bob: UserFixture;
let carol: UserFixture;
let dave: UserFixture;
let first: string;
let reply: string;
let other: string;

beforeAll(async () => {
  [alice, bob, carol, dave] = await Promise.all([aUser({ username: 'convalice' }), aUser({ username: 'convbob' }), aUser({ username: 'convcarol' }), aUser({ username: 'convdave' })]);
  first = await post(alice, { status: '@convbob secret plan', visibility: 'direct' });
  await post(alice, { status: '@convbob not a conversation', visibility: 'public' });
  reply = await post(bob, { status: '@convalice @convcarol agreed', visibility: 'direct', in_reply_to_id: first });
  other = await post(dave, { status: '@convalice hello', visibility: 'direct' });
});

describe('GET /api/v1/conversations', () => {
  it('lists one conversation per thread, most recent first, with the other participants and the last status', async () => {
    const res = await conversations(alice.token);
    expect(res.status).toBe(200);
    const body: Shown[] = res.body;
    expect(body.map((c) => c.id)).toEqual([other, first]);
    expect(body[1]).toMatchObject({ id: first, unread: true, last_status: { id: reply, visibility: 'direct' } });
    expect(accountIds(body[1]!)).toEqual([bob.account.id, carol.account.id].sort());
    expect(accountIds(body[0]!)).toEqual([dave.account.id]);
  });

  it('marks a conversation unread for the recipients only, and shows late joiners the thread from their first status', async () => {
    const asBob: Shown[] = (await conversations(bob.token)).body;
    expect(asBob).toHaveLength(1);
    expect(asBob[0]).toMatchObject({ id: first, unread: false, last_status: { id: reply } });
    expect(accountIds(asBob[0]!)).toEqual([alice.account.id, carol.account.id].sort());
    const asCarol: Shown[] = (await conversations(carol.token)).body;
    expect(asCarol).toMatchObject([{ id: first, unread: true, last_status: { id: reply } }]);
    expect(accountIds(asCarol[0]!)).toEqual([alice.account.id, bob.account.id].sort());
  });

  it('pages by last status with limit and the Link header', async () => {
    const page1 = await conversations(alice.token, { limit: '1' });
    expect(page1.body.map((c: Shown) => c.id)).toEqual([other]);
    const next = (page1.headers.link ?? page1.headers.Link ?? '').match(/<([^>]+)>; rel="next"/)?.[1];
    expect(next).toBeDefined();
    const params = Object.fromEntries(new URL(next!).searchParams.entries());
    expect(params).toMatchObject({ limit: '1', max_id: other });
    const page2 = await conversations(alice.token, params);
    expect(page2.body.map((c: Shown) => c.id)).toEqual([first]);
    const newer = await conversations(alice.token, { min_id: reply });
    expect(newer.body.map((c: Shown) => c.id)).toEqual([other]);
  });
});

describe('POST /api/v1/conversations/:id/read and DELETE /api/v1/conversations/:id', () => {
  it('marks a conversation read, for that participant only', async () => {
    const res = await markRead(carol.token, first);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: first, unread: false, last_status: { id: reply } });
    expect((await conversations(carol.token)).body).toMatchObject([{ id: first, unread: false }]);
    expect((await conversations(alice.token)).body[1]).toMatchObject({ id: first, unread: true });
  });

  it('removes a conversation from one list; a new direct status in the thread brings it back', async () => {
    const res = await drop(carol.token, first);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await conversations(carol.token)).body).toEqual([]);
    expect((await conversations(bob.token)).body).toHaveLength(1);
    const again = await post(alice, { status: '@convcarol @convbob still there?', visibility: 'direct', in_reply_to_id: reply });
    expect((await conversations(carol.token)).body).toMatchObject([{ id: first, unread: true, last_status: { id: again } }]);
  });

  it.each([
    ['an unknown id', () => '99999999'],
    ['a malformed id', () => 'not-an-id'],
    ["another account's conversation", () => other],
  ])('answers 404 for %s, writing nothing', async (_name, id) => {
    const before = await itemCount();
    for (const res of [await markRead(bob.token, id()), await drop(bob.token, id())]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect(await itemCount()).toBe(before);
    expect((await conversations(alice.token)).body.map((c: Shown) => c.id)).toContain(other);
  });

  it('rejects missing, app and wrong-scope tokens, writing nothing', async () => {
    const readOnly = await aUser({ scopes: ['read'] });
    const writeOnly = await aUser({ scopes: ['write'] });
    const app = await anAppToken(['read', 'write']);
    const before = await itemCount();
    expect((await call(list, { path: '/api/v1/conversations' })).status).toBe(401);
    expect((await conversations(writeOnly.token)).status).toBe(403);
    expect((await conversations(app.token)).status).toBe(422);
    expect((await markRead(readOnly.token, first)).status).toBe(403);
    expect((await drop(readOnly.token, first)).status).toBe(403);
    const badPage = await conversations(alice.token, { max_id: 'x' });
    expect(badPage.status).toBe(422);
    expect(badPage.body).toEqual({ error: expect.any(String) });
    expect(await itemCount()).toBe(before);
    expect((await conversations(bob.token)).body).toMatchObject([{ id: first }]);
  });
});

const itemCount = storedItemCount;

describe('conversations bad input (audit)', () => {
  const snapshot = async () => ({ items: await itemCount(), alice: (await conversations(alice.token)).body, bob: (await conversations(bob.token)).body });

  it.each([
    ['GET /api/v1/conversations', (token: string | undefined) => call(list, { path: '/api/v1/conversations', token })],
    ['POST /api/v1/conversations/:id/read', (token: string | undefined) => call(read, { method: 'POST', path: `/api/v1/conversations/${first}/read`, pathParameters: { id: first }, token })],
    ['DELETE /api/v1/conversations/:id', (token: string | undefined) => call(remove, { method: 'DELETE', path: `/api/v1/conversations/${first}`, pathParameters: { id: first }, token })],
  ])('%s refuses a missing (401), invalid (401) and app (422) token, writing nothing', async (_name, run) => {
    const app = await anAppToken(['read', 'write']);
    const before = await snapshot();
    const answers = [await run(undefined), await run('not-a-token'), await run(`${bob.token}x`), await run(app.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 422]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    expect(await snapshot()).toEqual(before);
  });

  it('refuses read:statuses for read and delete, and write:conversations for the list (403)', async () => {
    const reader = await aUser({ scopes: ['read:statuses'] });
    const writer = await aUser({ scopes: ['write:conversations'] });
    const before = await snapshot();
    for (const res of [await markRead(reader.token, first), await drop(reader.token, first), await conversations(writer.token)]) {
      expect([res.status, res.body]).toEqual([403, { error: expect.any(String) }]);
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['an oversized id', '123456789012345678901'],
    ['a negative id', '-1'],
    ['a blank id', ' '],
    ['the id of a status outside any conversation of the caller', 'public'],
  ])('read and delete of %s answer 404, writing nothing', async (_name, raw) => {
    const id = raw === 'public' ? await post(dave, { status: 'just public', visibility: 'public' }) : raw;
    const before = await snapshot();
    for (const res of [await markRead(bob.token, id), await drop(bob.token, id)]) {
      expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a negative limit', { limit: '-1' }],
    ['a fractional limit', { limit: '1.5' }],
    ['a malformed since_id', { since_id: 'x' }],
    ['an oversized min_id', { min_id: '123456789012345678901' }],
  ])('the list with %s answers 422', async (_name, query) => {
    const res = await conversations(alice.token, query);
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
  });

  it('an inverted id range is an empty page, not an error', async () => {
    const res = await conversations(alice.token, { max_id: '1', min_id: '99999999999999999999' });
    expect([res.status, res.body]).toEqual([200, []]);
  });
});
