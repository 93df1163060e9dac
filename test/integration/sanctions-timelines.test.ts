// Sanctions on the timelines (lib/policy/sanctions.ts): a suspended author's statuses leave home, public and
// hashtag timelines (a suspension after fan-out included, decided at read time from the authors the page
// render reads; the fan-out delivers a suspended author's posts to nobody, lists included); a silenced author's leave the public and hashtag timelines for everyone, and stay in its
// followers' homes (Mastodon's PublicFeed without_suspended.without_silenced, FeedManager).
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as tagTimeline } from '../../functions/timelines/tag';
import { handler as listHandler } from '../../functions/lists/timeline';
import { addAccounts, createList } from '../../lib/lists';
import { fanOut } from '../../lib/timelines/fanout';
import { updateAccount } from '../../lib/db/accounts';
import type { Status } from '../../lib/db/statuses';
import { putItem } from '../../lib/db/table';
import { homeEntryRecord } from '../../lib/db/timelines';
import { call } from '../support/http';
import { aFollow, aPostedStatus, aUser, type UserFixture } from '../support/factories';

const ids = (body: { id: string }[]) => body.map((s) => s.id);
const home = (token: string) => call(homeTimeline, { path: '/api/v1/timelines/home', query: { limit: '40' }, token });
const pub = (token?: string) => call(publicTimeline, { path: '/api/v1/timelines/public', query: { limit: '40' }, token });
const tag = (name: string, token?: string) =>
  call(tagTimeline, { path: `/api/v1/timelines/tag/${name}`, pathParameters: { hashtag: name }, query: { limit: '40' }, token });

/** A public status with a tag, in the author's and the follower's homes as the fan-out leaves them. */
async function postSeenBy(author: UserFixture, follower: UserFixture, tagName: string): Promise<Status> {
  const status = await aPostedStatus(author.account, { tags: [tagName] });
  await putItem(homeEntryRecord(follower.account.id, status, false));
  return status;
}

describe('a suspended author', () => {
  let author: UserFixture;
  let follower: UserFixture;
  let stranger: UserFixture;
  let status: Status;
  const tagName = `susp${Date.now()}`;

  beforeAll(async () => {
    [author, follower, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    status = await postSeenBy(author, follower, tagName);
  });

  it('is shown before the suspension, and gone from home, public and hashtag timelines after it', async () => {
    expect(ids((await home(follower.token)).body)).toContain(status.id);
    expect(ids((await pub()).body)).toContain(status.id);
    expect(ids((await tag(tagName, stranger.token)).body)).toContain(status.id);

    await updateAccount(author.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });

    const [h, p, pSigned, t] = await Promise.all([home(follower.token), pub(), pub(stranger.token), tag(tagName)]);
    expect(h.status).toBe(200);
    expect(ids(h.body)).not.toContain(status.id);
    expect(ids(p.body)).not.toContain(status.id);
    expect(ids(pSigned.body)).not.toContain(status.id);
    expect(ids(t.body)).not.toContain(status.id);
  });

  it("drops a reblog of the suspended author's status from the reblogger's followers' homes", async () => {
    const booster = await aUser();
    const reblog = await aPostedStatus(booster.account, { reblogOfId: status.id, text: '', contentHtml: '', conversationId: status.conversationId });
    await putItem(homeEntryRecord(stranger.account.id, reblog, false));
    expect(ids((await home(stranger.token)).body)).not.toContain(reblog.id);
  });
});

describe('a silenced author', () => {
  let author: UserFixture;
  let follower: UserFixture;
  let stranger: UserFixture;
  let status: Status;
  const tagName = `sil${Date.now()}`;

  beforeAll(async () => {
    [author, follower, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    status = await postSeenBy(author, follower, tagName);
    await updateAccount(author.account.id, { silencedAt: new Date().toISOString() });
  });

  it('leaves the public and hashtag timelines, signed in or not, follower or not', async () => {
    const [p, pFollower, pStranger, t, tFollower] = await Promise.all([pub(), pub(follower.token), pub(stranger.token), tag(tagName), tag(tagName, follower.token)]);
    for (const res of [p, pFollower, pStranger, t, tFollower]) {
      expect(res.status).toBe(200);
      expect(ids(res.body)).not.toContain(status.id);
    }
  });

  it("stays in its followers' homes, shown as limited", async () => {
    const res = await home(follower.token);
    const found = (res.body as { id: string; account: { limited?: boolean } }[]).find((s) => s.id === status.id);
    expect(found?.account.limited).toBe(true);
  });
});

describe('lists', () => {
  it("drop a suspended author's statuses the fan-out wrote before the suspension, and get none after it", async () => {
    const [author, owner] = await Promise.all([aUser(), aUser()]);
    await aFollow(owner.account, author.account);
    const list = await createList(owner.account, { title: 'sanctioned' });
    await addAccounts(owner.account, list.id, [author.account.id]);
    const listTimeline = () => call(listHandler, { path: `/api/v1/timelines/list/${list.id}`, pathParameters: { list_id: list.id }, token: owner.token });
    const before = await aPostedStatus(author.account);
    await fanOut(before.id);
    expect(ids((await listTimeline()).body)).toEqual([before.id]);
    expect(ids((await home(owner.token)).body)).toContain(before.id);

    await updateAccount(author.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
    const after = await aPostedStatus(author.account);
    await fanOut(after.id);
    expect((await listTimeline()).body).toEqual([]);
    expect(ids((await home(owner.token)).body)).not.toContain(before.id);
    // Lifted, the one written before shows again; the one posted during the suspension was never delivered.
    await updateAccount(author.account.id, { suspendedAt: null, suspensionOrigin: null });
    expect(ids((await listTimeline()).body)).toEqual([before.id]);
    expect(ids((await home(owner.token)).body)).not.toContain(after.id);
  });
});
