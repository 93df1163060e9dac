// Sanctions in search (GET /api/v2/search, statuses posted through the API): a suspended author's statuses are
// found by nobody else; a silenced author's only by those who follow it (Mastodon's StatusFilter#silenced_account?).
// And on posting: a sensitized author's new post with media is stored sensitive, a silenced author's public
// post is not listed in the public timeline.
import { handler as create } from '../../functions/statuses/create';
import { handler as search } from '../../functions/search/v2';
import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { updateAccount } from '../../lib/db/accounts';
import { statusById } from '../../lib/db/statuses';
import { registerInlineWorker } from '../../lib/queue';
import { aFollow, aMediaAttachment, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = async (user: UserFixture, status: string, extra: Record<string, unknown> = {}) => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: { status, ...extra }, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string; sensitive: boolean };
};
const found = async (token: string, q: string) => {
  const res = await call(search, { path: '/api/v2/search', query: { q, type: 'statuses' }, token });
  expect(res.status).toBe(200);
  return (res.body.statuses as { id: string }[]).map((s) => s.id);
};

let author: UserFixture;
let follower: UserFixture;
let stranger: UserFixture;

beforeAll(async () => {
  [author, follower, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
  await aFollow(follower.account, author.account);
});

it("finds a silenced author's statuses only for its followers, and a suspended author's for nobody else", async () => {
  const word = `okapi${Date.now()}`;
  const { id } = await post(author, `an ${word} was seen`);
  expect(await found(stranger.token, word)).toEqual([id]);

  await updateAccount(author.account.id, { silencedAt: new Date().toISOString() });
  expect(await found(stranger.token, word)).toEqual([]);
  expect(await found(follower.token, word)).toEqual([id]);
  expect(await found(author.token, word)).toEqual([id]);

  await updateAccount(author.account.id, { silencedAt: null, suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
  expect(await found(stranger.token, word)).toEqual([]);
  expect(await found(follower.token, word)).toEqual([]);
  await updateAccount(author.account.id, { suspendedAt: null, suspensionOrigin: null });
});

it("stores a sensitized author's new post with media sensitive, and leaves one without media as it is", async () => {
  const poster = await aUser();
  await updateAccount(poster.account.id, { sensitizedAt: new Date().toISOString() });
  const media = await aMediaAttachment(poster.account, { state: 'ready' });
  const withMedia = await post(poster, 'a picture', { media_ids: [media.id] });
  const plain = await post(poster, 'just words');
  expect(withMedia.sensitive).toBe(true);
  expect((await statusById(withMedia.id))?.sensitive).toBe(true);
  expect(plain.sensitive).toBe(false);
  expect((await statusById(plain.id))?.sensitive).toBe(false);
});

it("does not list a silenced author's new public post in the public timeline", async () => {
  const silenced = await aUser();
  await updateAccount(silenced.account.id, { silencedAt: new Date().toISOString() });
  const { id } = await post(silenced, 'quiet words');
  // Lifted again, the post stays out: it was never listed (the timeline's read-time check alone would show it now).
  await updateAccount(silenced.account.id, { silencedAt: null });
  const res = await call(publicTimeline, { path: '/api/v1/timelines/public', query: { limit: '40' } });
  expect((res.body as { id: string }[]).map((s) => s.id)).not.toContain(id);
});
