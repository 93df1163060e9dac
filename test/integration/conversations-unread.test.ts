// Mastodon 4.4's POST /api/v1/conversations/:id/unread: the caller's conversation marked unread again,
// answered as the Conversation; only the caller's own copy of it changes.
import { handler as list } from '../../functions/conversations/index';
import { handler as read } from '../../functions/conversations/read';
import { handler as unread } from '../../functions/conversations/unread';
import { handler as create } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { registerInlineWorker } from '../../lib/queue';
import { anAppToken, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

type Shown = { id: string; unread: boolean; accounts: { id: string }[]; last_status: { id: string } | null };

const post = async (user: UserFixture, json: Record<string, unknown>): Promise<string> => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json, token: user.token });
  expect(res.status).toBe(200);
  return res.body.id;
};
const conversations = async (token: string): Promise<Shown[]> => (await call(list, { path: '/api/v1/conversations', token })).body;
const markRead = (id: string, token: string) => call(read, { method: 'POST', path: `/api/v1/conversations/${id}/read`, pathParameters: { id }, token });
const markUnread = (id: string, token?: string) => call(unread, { method: 'POST', path: `/api/v1/conversations/${id}/unread`, pathParameters: { id }, token });

let alice: UserFixture;
let bob: UserFixture;
let thread: string;

beforeAll(async () => {
  [alice, bob] = await Promise.all([aUser({ username: 'unralice' }), aUser({ username: 'unrbob' })]);
  thread = await post(alice, { status: '@unrbob a secret', visibility: 'direct' });
});

describe('POST /api/v1/conversations/:id/unread', () => {
  it('marks a read conversation unread (idempotently), answering the Conversation, and the list shows it', async () => {
    expect((await markRead(thread, bob.token)).body).toMatchObject({ id: thread, unread: false });
    const res = await markUnread(thread, bob.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: thread, unread: true, accounts: [{ id: alice.account.id }], last_status: { id: thread } });
    expect((await conversations(bob.token)).find((c) => c.id === thread)).toMatchObject({ unread: true });
    // Unread again: the same answer, nothing else changes.
    const again = await markUnread(thread, bob.token);
    expect([again.status, again.body]).toEqual([200, res.body]);
    // And read once more.
    expect((await markRead(thread, bob.token)).body).toMatchObject({ unread: false });
    expect((await conversations(bob.token)).find((c) => c.id === thread)).toMatchObject({ unread: false });
  });

  it('changes only the caller’s copy: the other participant’s stays as it was', async () => {
    // The author's own conversation starts read (its own status).
    expect((await conversations(alice.token)).find((c) => c.id === thread)).toMatchObject({ unread: false });
    await markUnread(thread, bob.token);
    expect((await conversations(alice.token)).find((c) => c.id === thread)).toMatchObject({ unread: false });
    expect((await markUnread(thread, alice.token)).body).toMatchObject({ unread: true });
    await markRead(thread, alice.token);
    await markRead(thread, bob.token);
  });

  it('a conversation the caller is not in, an unknown id, or an id that is not one is 404', async () => {
    const stranger = await aUser();
    for (const id of [thread, '99999999999', 'abc']) {
      const res = await markUnread(id, stranger.token);
      expect([id, res.status, res.body]).toEqual([id, 404, { error: 'Record not found' }]);
    }
    expect((await conversations(bob.token)).find((c) => c.id === thread)).toMatchObject({ unread: false });
  });

  it('refuses no token (401), a bad token (401), an app token (422) and a token without write:conversations (403)', async () => {
    const app = await anAppToken(['read', 'write']);
    const wrong = await aUser({ scopes: ['read', 'write:statuses'] });
    const answers = [await markUnread(thread), await markUnread(thread, 'not-a-token'), await markUnread(thread, app.token), await markUnread(thread, wrong.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const r of answers) expect(r.body).toEqual({ error: expect.any(String) });
    expect((await conversations(bob.token)).find((c) => c.id === thread)).toMatchObject({ unread: false });
    // The good twin: write:conversations alone is enough.
    const narrow = await aUser({ scopes: ['write:conversations'] });
    const own = await post(alice, { status: `@${narrow.account.username} hi`, visibility: 'direct' });
    expect((await markUnread(own, narrow.token)).status).toBe(200);
  });
});
