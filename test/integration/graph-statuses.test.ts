// GET /api/v1/accounts/:id/statuses.
import { handler as statusesHandler } from '../../functions/accounts/statuses';
import { addPin } from '../../lib/db/interactions';
import type { Status } from '../../lib/db/statuses';
import { aFollow, anAppToken, aPostedReblog, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const statuses = (id: string, query: string | Record<string, string> = {}, token?: string) =>
  call(statusesHandler, { path: `/api/v1/accounts/${id}/statuses`, pathParameters: { id }, query, token });
const ids = (body: { id: string }[]) => body.map((s) => s.id);
const newestFirst = (list: Status[]) => list.map((s) => s.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));

function linkParam(link: string | undefined, rel: 'next' | 'prev'): Record<string, string> | undefined {
  const part = (link ?? '').split(', ').find((p) => p.endsWith(`rel="${rel}"`));
  const url = part?.match(/<([^>]+)>/)?.[1];
  return url ? Object.fromEntries(new URL(url).searchParams.entries()) : undefined;
}

let author: UserFixture;
let follower: UserFixture;
let stranger: UserFixture;
let other: UserFixture;
let plain: Status;
let withMedia: Status;
let selfReply: Status;
let replyToOther: Status;
let tagged: Status;
let privateOne: Status;
let directOne: Status;
let directToStranger: Status;
let reblog: Status;
let othersStatus: Status;

beforeAll(async () => {
  [author, follower, stranger, other] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
  await aFollow(follower.account, author.account);
  othersStatus = await aPostedStatus(other.account);
  plain = await aPostedStatus(author.account);
  withMedia = await aPostedStatus(author.account, { mediaIds: ['1234567890'] });
  selfReply = await aPostedStatus(author.account, { inReplyToId: plain.id, inReplyToAccountId: author.account.id, conversationId: plain.id });
  replyToOther = await aPostedStatus(author.account, { inReplyToId: othersStatus.id, inReplyToAccountId: other.account.id, conversationId: othersStatus.id });
  tagged = await aPostedStatus(author.account, { tags: ['caféau'] });
  privateOne = await aPostedStatus(author.account, { visibility: 'private' });
  directOne = await aPostedStatus(author.account, { visibility: 'direct' });
  directToStranger = await aPostedStatus(author.account, {
    visibility: 'direct',
    mentions: [{ id: stranger.account.id, username: stranger.account.username, acct: stranger.account.username, url: 'https://social.example/@x' }],
  });
  reblog = await aPostedReblog(author.account, othersStatus);
});

const publicOnes = () => [plain, withMedia, selfReply, replyToOther, tagged, reblog];

describe('GET /api/v1/accounts/:id/statuses', () => {
  it('shows an anonymous reader the public statuses and reblogs, newest first, rendered', async () => {
    const res = await statuses(author.account.id);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(newestFirst(publicOnes()));
    const shownReblog = res.body.find((s: { id: string }) => s.id === reblog.id);
    expect(shownReblog).toMatchObject({ reblog: { id: othersStatus.id } });
    expect(res.body[res.body.length - 1]).toMatchObject({ id: plain.id, account: { id: author.account.id } });
  });

  it('adds private statuses for followers, and direct ones for those they mention and the author', async () => {
    const asFollower = await statuses(author.account.id, {}, follower.token);
    expect(ids(asFollower.body)).toEqual(newestFirst([...publicOnes(), privateOne]));
    const asStranger = await statuses(author.account.id, {}, stranger.token);
    expect(ids(asStranger.body)).toEqual(newestFirst([...publicOnes(), directToStranger]));
    const asAuthor = await statuses(author.account.id, {}, author.token);
    expect(ids(asAuthor.body)).toEqual(newestFirst([...publicOnes(), privateOne, directOne, directToStranger]));
  });

  it('leaves out the private mentions with exclude_direct (Mastodon 4.6), for the author and for those mentioned', async () => {
    const asAuthor = await statuses(author.account.id, { exclude_direct: 'true' }, author.token);
    expect(ids(asAuthor.body)).toEqual(newestFirst([...publicOnes(), privateOne]));
    const asStranger = await statuses(author.account.id, { exclude_direct: '1' }, stranger.token);
    expect(ids(asStranger.body)).toEqual(newestFirst(publicOnes()));
    expect(ids((await statuses(author.account.id, { exclude_direct: 'false' }, stranger.token)).body)).toEqual(newestFirst([...publicOnes(), directToStranger]));
  });

  it.each([
    ['only_media', { only_media: 'true' }, () => [withMedia]],
    ['exclude_replies (self-replies stay)', { exclude_replies: 'true' }, () => [plain, withMedia, selfReply, tagged, reblog]],
    ['exclude_reblogs', { exclude_reblogs: 'true' }, () => [plain, withMedia, selfReply, replyToOther, tagged]],
    ['tagged (normalised)', { tagged: 'CaféAu' }, () => [tagged]],
    ['tagged with a #', { tagged: '#caféau' }, () => [tagged]],
    ['several filters', { exclude_replies: '1', exclude_reblogs: '1', only_media: 'false' }, () => [plain, withMedia, selfReply, tagged]],
  ])('filters with %s', async (_name, query, expected) => {
    const res = await statuses(author.account.id, query);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(newestFirst(expected()));
  });

  it('answers pinned statuses only, as the viewer may see them', async () => {
    await addPin(author.account.id, plain.id);
    await addPin(author.account.id, privateOne.id);
    expect(ids((await statuses(author.account.id, { pinned: 'true' })).body)).toEqual([plain.id]);
    const asFollower = await statuses(author.account.id, { pinned: 'true' }, follower.token);
    expect(ids(asFollower.body)).toEqual(newestFirst([plain, privateOne]));
    expect(asFollower.body.every((s: { pinned?: boolean }) => s.pinned === undefined || s.pinned === false)).toBe(true);
    const asAuthor = await statuses(author.account.id, { pinned: 'true' }, author.token);
    expect(asAuthor.body.every((s: { pinned: boolean }) => s.pinned === true)).toBe(true);
  });

  it('walks the whole list with the Link header, no gap and no duplicate', async () => {
    const seen: string[] = [];
    let query: Record<string, string> = { limit: '2' };
    for (let i = 0; i < 10; i++) {
      const res = await statuses(author.account.id, query);
      if (res.body.length === 0) break;
      seen.push(...ids(res.body));
      const next = linkParam(res.headers.link, 'next');
      expect(next).toBeDefined();
      query = next!;
    }
    expect(seen).toEqual(newestFirst(publicOnes()));

    const all = newestFirst(publicOnes());
    const newer = await statuses(author.account.id, { min_id: all[4]!, limit: '2' });
    expect(ids(newer.body)).toEqual([all[2], all[3]]);
    expect(linkParam(newer.headers.link, 'prev')).toMatchObject({ min_id: all[2] });
    const between = await statuses(author.account.id, { max_id: all[0]!, since_id: all[3]! });
    expect(ids(between.body)).toEqual([all[1], all[2]]);
    expect((await statuses(author.account.id, { max_id: '0' })).body).toEqual([]);
  });

  it('fills a filtered page past statuses the filter drops', async () => {
    const busy = await aUser();
    const first = await aPostedStatus(busy.account, { mediaIds: ['1'] });
    for (let i = 0; i < 45; i++) await aPostedStatus(busy.account);
    const second = await aPostedStatus(busy.account, { mediaIds: ['2'] });
    const res = await statuses(busy.account.id, { only_media: 'true', limit: '2' });
    expect(ids(res.body)).toEqual([second.id, first.id]);
  });

  it('caps limit at 40', async () => {
    const prolific = await aUser();
    for (let i = 0; i < 42; i++) await aPostedStatus(prolific.account);
    expect((await statuses(prolific.account.id, { limit: '100' })).body).toHaveLength(40);
    expect((await statuses(prolific.account.id)).body).toHaveLength(20);
  });

  it.each([
    ['an unknown account', { id: '123456789012345' }, 404],
    ['a malformed id', { id: 'abc' }, 404],
    ['limit not a number', { query: { limit: 'lots' } }, 422],
    ['max_id not an id', { query: { max_id: '12ab' } }, 422],
    ['only_media not a boolean', { query: { only_media: 'sometimes' } }, 422],
    ['pinned as a list', { query: 'pinned[]=true' }, 422],
    ['tagged too long', { query: { tagged: 'x'.repeat(201) } }, 422],
  ])('answers an error for %s', async (_name, opts: { id?: string; query?: string | Record<string, string> }, status) => {
    const res = await statuses(opts.id ?? author.account.id, opts.query);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('answers 404 for an account pending approval', async () => {
    const pending = await aUser({ approved: false });
    expect((await statuses(pending.account.id)).status).toBe(404);
  });

  it('refuses an invalid token and one without read:statuses', async () => {
    expect((await statuses(author.account.id, {}, 'bogus')).status).toBe(401);
    const { token } = await anAppToken(['write']);
    const res = await statuses(author.account.id, {}, token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
  });
});
