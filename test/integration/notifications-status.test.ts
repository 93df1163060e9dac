// The "notify me" bell (Mastodon's `notify` on a follow): each new post of the followed account reaches the
// follower as a `status` notification, as Mastodon's FeedInsertWorker gives one: not for a reblog, a reply to
// someone else, an edit, or a post the follower does not receive in their home.
import { handler as follow } from '../../functions/accounts/follow';
import { handler as block } from '../../functions/accounts/block';
import { handler as index } from '../../functions/notifications/index';
import { handler as create } from '../../functions/statuses/create';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as update } from '../../functions/statuses/update';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { notificationItem } from '../../lib/db/notifications';
import { queryAll } from '../../lib/db/table';
import { registerInlineWorker } from '../../lib/queue';
import { pushTitle } from '../../lib/push/payload';
import { call } from '../support/http';
import { aUser, type UserFixture } from '../support/factories';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = async (user: UserFixture, body: Record<string, unknown>) => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: body, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const followOf = async (follower: UserFixture, followed: UserFixture, notify: boolean) => {
  const res = await call(follow, { method: 'POST', path: `/api/v1/accounts/${followed.account.id}/follow`, pathParameters: { id: followed.account.id }, json: { notify }, token: follower.token });
  expect(res).toMatchObject({ status: 200, body: { following: true, notifying: notify } });
};
const stored = (user: { account: Account }) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.notificationsPartition(user.account.id) } }, notificationItem);

/** The `status` notifications of `user`, newest first: the status id and who posted it. */
const bells = async (user: UserFixture) => {
  const res = await call(index, { path: '/api/v1/notifications', query: { 'types[]': 'status' }, token: user.token });
  expect(res.status).toBe(200);
  return (res.body as { type: string; account: { id: string }; status: { id: string } }[]).map((n) => ({ type: n.type, from: n.account.id, status: n.status.id }));
};

describe('status notifications (the bell)', () => {
  let author: UserFixture;
  let ringing: UserFixture;
  let quiet: UserFixture;
  let other: UserFixture;
  beforeAll(async () => {
    [author, ringing, quiet, other] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await followOf(ringing, author, true);
    await followOf(quiet, author, false);
  });

  it('tells a follower who rang the bell of each new post, public or for followers; not one who did not', async () => {
    const open = await post(author, { status: 'news' });
    const followersOnly = await post(author, { status: 'for followers', visibility: 'private' });
    expect(await bells(ringing)).toEqual([
      { type: 'status', from: author.account.id, status: followersOnly.id },
      { type: 'status', from: author.account.id, status: open.id },
    ]);
    expect(await bells(quiet)).toEqual([]);
    expect(pushTitle('status', author.account)).toBe(`${author.account.displayName.trim() || author.account.username} just posted`);
  });

  it('says nothing of a reblog, a reply to someone else or an edit; a reply in one\'s own thread counts, and so does a direct message to the follower, as Mastodon', async () => {
    const before = (await bells(ringing)).length;
    const theirs = await post(other, { status: 'a post of someone else' });
    const boosted = await call(reblog, { method: 'POST', path: `/api/v1/statuses/${theirs.id}/reblog`, pathParameters: { id: theirs.id }, token: author.token });
    expect(boosted.status).toBe(200);
    await post(author, { status: 'a reply to someone else', in_reply_to_id: theirs.id });
    // Mastodon's FeedInsertWorker rings for a direct message too: the mentioned follower receives it in their home.
    const direct = await post(author, { status: `@${ringing.account.username} just you`, visibility: 'direct' });
    const own = await post(author, { status: 'a thread' });
    const edited = await call(update, { method: 'PUT', path: `/api/v1/statuses/${own.id}`, pathParameters: { id: own.id }, json: { status: 'a thread, edited' }, token: author.token });
    expect(edited.status).toBe(200);
    const continued = await post(author, { status: 'the thread goes on', in_reply_to_id: own.id });
    expect((await bells(ringing)).slice(0, 3)).toEqual([
      { type: 'status', from: author.account.id, status: continued.id },
      { type: 'status', from: author.account.id, status: own.id },
      { type: 'status', from: author.account.id, status: direct.id },
    ]);
    expect(await bells(ringing)).toHaveLength(before + 3);
  });

  it('says nothing once the follower blocks the author', async () => {
    const [poster, fan] = await Promise.all([aUser(), aUser()]);
    await followOf(fan, poster, true);
    await post(poster, { status: 'first' });
    expect(await bells(fan)).toHaveLength(1);
    const blocked = await call(block, { method: 'POST', path: `/api/v1/accounts/${poster.account.id}/block`, pathParameters: { id: poster.account.id }, token: fan.token });
    expect(blocked.status).toBe(200);
    await post(poster, { status: 'second' });
    // Stored, not listed: the list hides a blocked account's notifications whenever they were made.
    expect((await stored(fan)).filter((n) => n.type === 'status')).toHaveLength(1);
  });
});
