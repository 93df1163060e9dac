// Followed hashtags: GET /api/v1/tags/:name, POST …/follow and …/unfollow, GET /api/v1/followed_tags (Link
// paging by the follow's id), the fan-out delivering a followed tag's public statuses to the follower's home
// (blocks, mutes, filters and visibility applied; removed again on delete), and GET /api/v1/accounts/:id/featured_tags.
import { handler as featuredTagsOfAccount } from '../../functions/accounts/featured_tags';
import { handler as blockAccount } from '../../functions/accounts/block';
import { handler as followAccount } from '../../functions/accounts/follow';
import { handler as muteAccount } from '../../functions/accounts/mute';
import { handler as featureTag } from '../../functions/featured_tags/create';
import { handler as addFilter } from '../../functions/filters/create';
import { handler as followedTags } from '../../functions/followed_tags/index';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as deleteStatus } from '../../functions/statuses/delete';
import { handler as followTag } from '../../functions/tags/follow';
import { handler as showTag } from '../../functions/tags/show';
import { handler as unfollowTag } from '../../functions/tags/unfollow';
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as reblogStatus } from '../../functions/statuses/reblog';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { followedTagsPage, tagFollowersAfter } from '../../lib/db/tag_follows';
import { query } from '../../lib/db/table';
import { timelineEntry } from '../../lib/db/timelines';
import { registerInlineWorker, sqsEvent } from '../../lib/queue';
import { tagId } from '../../lib/render/tag';
import { fanOut } from '../../lib/timelines/fanout';
import { eachTagFollowerPage } from '../../lib/timelines/fanout_tags';
import { call, warmContainer } from '../support/http';
import { aFollow, anAppToken, aPostedStatus, aRemoteAccount, aUser, type UserFixture } from '../support/factories';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);
// Posting a link asks for its card; nothing here reads cards.
registerInlineWorker('cards', async () => ({ batchItemFailures: [] }));

type Tag = { id: string; name: string; url: string; history: { day: string; uses: string; accounts: string }[]; following?: boolean };

const path = (name: string) => ({ name: encodeURIComponent(name) });
const show = (name: string, token?: string) => call(showTag, { path: `/api/v1/tags/${name}`, pathParameters: path(name), token });
const follow = (name: string, token?: string) => call(followTag, { method: 'POST', path: `/api/v1/tags/${name}/follow`, pathParameters: path(name), token });
const unfollow = (name: string, token?: string) => call(unfollowTag, { method: 'POST', path: `/api/v1/tags/${name}/unfollow`, pathParameters: path(name), token });
const followed = (token: string | undefined, query: Record<string, string> = {}) => call(followedTags, { path: '/api/v1/followed_tags', query, token });
const featuredOf = (id: string, token?: string) => call(featuredTagsOfAccount, { path: `/api/v1/accounts/${id}/featured_tags`, pathParameters: { id }, token });
const home = (token: string) => call(homeTimeline, { path: '/api/v1/timelines/home', token });
const idParam = (id: string) => ({ id });

async function post(user: UserFixture, status: string, visibility = 'public'): Promise<string> {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status, visibility }, token: user.token });
  expect(res.status).toBe(200);
  return (res.body as { id: string }).id;
}

/** The status ids of an account's home entries as the fan-out left them (no read-time filtering). */
async function homeEntries(owner: Account): Promise<string[]> {
  const page = await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.homePartition(owner.id) } }, timelineEntry);
  return page.items.map((e) => e.statusId);
}

async function following(name: string, user: UserFixture) {
  const res = await follow(name, user.token);
  expect(res.status).toBe(200);
  return res.body as Tag;
}

describe('GET /api/v1/tags/:name', () => {
  let user: UserFixture;
  beforeAll(async () => {
    user = await aUser();
  });

  it('answers a tag never used with a week of zero use, and no `following` without a token', async () => {
    const res = await show('NeverUsedYet');
    expect(res.status).toBe(200);
    const tag = res.body as Tag;
    expect(tag).toEqual({ id: tagId('neverusedyet'), name: 'NeverUsedYet', url: 'https://social.example/tags/NeverUsedYet', history: expect.any(Array) });
    expect(tag.history).toHaveLength(7);
    expect(tag.history.every((d) => d.uses === '0' && d.accounts === '0')).toBe(true);
    // Another spelling is the same tag (same id), and a signed-in user learns whether they follow it.
    const signedIn = (await show('neverusedyet', user.token)).body as Tag;
    expect(signedIn).toMatchObject({ id: tag.id, name: 'neverusedyet', following: false });
  });

  it('shows the tag as first used here, with its uses today', async () => {
    const author = await aUser();
    await post(author, 'first #CamelTag');
    await post(author, 'again #cameltag');
    const tag = (await show('CAMELTAG', user.token)).body as Tag;
    expect(tag).toMatchObject({ name: 'CamelTag', url: 'https://social.example/tags/CamelTag', following: false });
    expect(tag.history[0]).toMatchObject({ uses: '2', accounts: '1' });
  });
});

describe('following and unfollowing a tag', () => {
  it('follows (idempotently), shows `following`, lists it, and unfollows (idempotently)', async () => {
    const user = await aUser();
    const first = await follow('Knitting', user.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: tagId('knitting'), name: 'Knitting', following: true });
    const again = await follow('KNITTING', user.token);
    expect(again.status).toBe(200);
    // The tag keeps the spelling it was first followed with.
    expect(again.body).toMatchObject({ name: 'Knitting', following: true });
    expect(await followedTagsPage(user.account.id, { limit: 10 })).toHaveLength(1);
    expect((await show('knitting', user.token)).body).toMatchObject({ following: true });
    expect((await show('knitting', (await aUser()).token)).body).toMatchObject({ following: false });

    const listed = await followed(user.token);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([{ ...(first.body as Tag), following: true }]);

    const off = await unfollow('knitting', user.token);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ name: 'Knitting', following: false });
    expect((await unfollow('knitting', user.token)).body).toMatchObject({ following: false });
    expect((await followed(user.token)).body).toEqual([]);
    expect((await tagFollowersAfter('knitting', undefined, 10)).accountIds).not.toContain(user.account.id);
    expect((await show('knitting', user.token)).body).toMatchObject({ following: false });
    // Followed again: listed again, with a new follow.
    await following('knitting', user);
    expect(((await followed(user.token)).body as Tag[]).map((t) => t.name)).toEqual(['Knitting']);
  });

  it('pages followed tags by the follow’s id, newest first, with a Link header', async () => {
    const user = await aUser();
    for (const name of ['pageone', 'pagetwo', 'pagethree', 'pagefour', 'pagefive']) await following(name, user);
    const first = await followed(user.token, { limit: '2' });
    expect((first.body as Tag[]).map((t) => t.name)).toEqual(['pagefive', 'pagefour']);
    const link = first.headers.link ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    expect(next).toBeDefined();
    const nextQuery = Object.fromEntries(new URL(next!).searchParams);
    expect(nextQuery.limit).toBe('2');
    const second = await followed(user.token, nextQuery);
    expect((second.body as Tag[]).map((t) => t.name)).toEqual(['pagethree', 'pagetwo']);
    const prev = /<([^>]+)>; rel="prev"/.exec(second.headers.link ?? '')?.[1];
    const back = await followed(user.token, Object.fromEntries(new URL(prev!).searchParams));
    expect((back.body as Tag[]).map((t) => t.name)).toEqual(['pagefive', 'pagefour']);
    const last = await followed(user.token, Object.fromEntries(new URL(/<([^>]+)>; rel="next"/.exec(second.headers.link ?? '')![1]!).searchParams));
    expect((last.body as Tag[]).map((t) => t.name)).toEqual(['pageone']);
    expect((last.body as Tag[])[0]).toMatchObject({ following: true, history: expect.any(Array) });
  });
});

describe('bad input on the tag endpoints writes nothing', () => {
  let user: UserFixture;
  let readOnly: UserFixture;
  let writeStatuses: UserFixture;
  beforeAll(async () => {
    [user, readOnly, writeStatuses] = await Promise.all([aUser(), aUser({ scopes: ['read'] }), aUser({ scopes: ['write:statuses', 'read:statuses'] })]);
    await following('audited', user);
  });
  const followsOf = async (u: UserFixture) => (await followedTagsPage(u.account.id, { limit: 40 })).map((f) => f.tag);

  it.each([
    ['a lone #', '#'],
    ['a leading #', '#hash'],
    ['digits only', '1234'],
    ['spaces', 'two words'],
    ['punctuation', 'tag!'],
    ['a surrounding space', ' padded'],
    ['a NUL character', 'ta\u0000g'],
    ['an oversized name', 'a'.repeat(101)],
  ])('a name with %s answers 404 on every tag endpoint', async (_, bad) => {
    for (const res of [await show(bad, user.token), await follow(bad, user.token), await unfollow(bad, user.token)]) {
      expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    }
    expect(await followsOf(user)).toEqual(['audited']);
  });

  it('the good twins of those names answer 200', async () => {
    for (const good of ['hash', 'tag', 'a'.repeat(100), 'tag_1', 'ünïcödé']) {
      expect((await show(good)).status).toBe(200);
    }
    const res = await follow('a'.repeat(100), user.token);
    expect(res.status).toBe(200);
    expect(await followsOf(user)).toEqual(['a'.repeat(100), 'audited']);
    await unfollow('a'.repeat(100), user.token);
  });

  it.each([
    ['POST follow', (t?: string) => follow('refused', t), 'write'],
    ['POST unfollow', (t?: string) => unfollow('audited', t), 'write'],
    ['GET followed_tags', (t?: string) => followed(t), 'read'],
  ] as const)('%s refuses no token (401), a bad token (401), an app token (422) and the wrong scope (403)', async (_, run, kind) => {
    const app = await anAppToken(['read', 'write', 'follow']);
    const wrong = kind === 'write' ? readOnly : writeStatuses;
    const answers = [await run(undefined), await run('not-a-token'), await run(app.token), await run(wrong.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    expect(await followsOf(user)).toEqual(['audited']);
    expect(await followsOf(readOnly)).toEqual([]);
    // The good twin: the user's own token with the scope.
    expect((await run(user.token)).status).toBe(200);
    if (kind === 'write') await following('audited', user);
    await unfollow('refused', user.token);
  });

  it('GET /api/v1/tags/:name is public: no token and an app token answer without `following`; a bad token is refused', async () => {
    const app = await anAppToken(['read']);
    expect((await show('audited')).body).not.toHaveProperty('following');
    expect((await show('audited', app.token)).body).not.toHaveProperty('following');
    expect((await show('audited', readOnly.token)).body).toMatchObject({ following: false });
    expect((await show('audited', 'not-a-token')).status).toBe(401);
  });

  it.each([
    ['a limit that is not a number', { limit: 'many' }],
    ['a max_id that is not an id', { max_id: 'abc' }],
    ['a negative since_id', { since_id: '-1' }],
    ['an oversized min_id', { min_id: '1'.repeat(21) }],
  ])('GET followed_tags with %s answers 422', async (_, query) => {
    const res = await followed(user.token, query);
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    expect((await followed(user.token, { limit: '5' })).status).toBe(200);
  });

  it('another user’s follows are theirs: unfollowing a tag someone else follows changes nothing of theirs', async () => {
    const other = await aUser();
    expect((await unfollow('audited', other.token)).body).toMatchObject({ following: false });
    expect(await followsOf(user)).toEqual(['audited']);
    expect((await followed(other.token)).body).toEqual([]);
  });
});

describe('a followed tag’s statuses reach the follower’s home through the fan-out', () => {
  let stranger: UserFixture;
  beforeAll(async () => {
    stranger = await aUser();
  });

  it('delivers a stranger’s public post with the tag, once, and removes it when deleted', async () => {
    const reader = await aUser();
    await following('Sourdough', reader);
    const statusId = await post(stranger, 'my loaf #sourdough #Baking');
    const timeline = await home(reader.token);
    expect(timeline.status).toBe(200);
    expect((timeline.body as { id: string }[]).map((s) => s.id)).toEqual([statusId]);
    expect(await homeEntries(reader.account)).toEqual([statusId]);

    const gone = await call(deleteStatus, { method: 'DELETE', path: `/api/v1/statuses/${statusId}`, pathParameters: idParam(statusId), token: stranger.token });
    expect(gone.status).toBe(200);
    expect(await homeEntries(reader.account)).toEqual([]);
  });

  it('gives a follower of the author who also follows the tag one entry, and follows two tags of one status once', async () => {
    const [author, reader, tagOnly] = await Promise.all([aUser(), aUser(), aUser()]);
    const res = await call(followAccount, { method: 'POST', path: `/api/v1/accounts/${author.account.id}/follow`, pathParameters: idParam(author.account.id), token: reader.token });
    expect(res.status).toBe(200);
    for (const u of [reader, tagOnly]) {
      await following('twicea', u);
      await following('twiceb', u);
    }
    const statusId = await post(author, '#twicea #twiceb');
    expect(await homeEntries(reader.account)).toEqual([statusId]);
    expect(await homeEntries(tagOnly.account)).toEqual([statusId]);
    // Written (and streamed) once each: the author, the follower (by the follower walk), the tag follower.
    const again = await aPostedStatus(author.account, { text: '#twicea #twiceb', tags: ['twicea', 'twiceb'] });
    expect((await fanOut(again.id)).written).toBe(3);
  });

  it('delivers a reply with the tag to a follower of the author whom the home rule would leave it out of', async () => {
    const [author, third, reader, plainFollower] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await aFollow(reader.account, author.account);
    await aFollow(plainFollower.account, author.account);
    await following('replying', reader);
    const parent = await aPostedStatus(third.account);
    const reply = await aPostedStatus(author.account, { text: '#replying', tags: ['replying'], inReplyToId: parent.id, inReplyToAccountId: third.account.id });
    await fanOut(reply.id);
    expect(await homeEntries(reader.account)).toEqual([reply.id]);
    // Its twin without the tag: the home rule keeps a reply to someone they do not follow out.
    expect(await homeEntries(plainFollower.account)).toEqual([]);
  });

  it.each([
    ['unlisted', 'unlisted'],
    ['followers-only', 'private'],
    ['direct', 'direct'],
  ])('leaves a %s post with the tag out', async (_, visibility) => {
    const reader = await aUser();
    await following('quietly', reader);
    await post(stranger, `hush #quietly`, visibility);
    // The good twin: the same post, public, comes in.
    const publicId = await post(stranger, `loud #quietly`);
    expect(await homeEntries(reader.account)).toEqual([publicId]);
  });

  it('leaves it out when the follower blocks the author, is blocked by the author, or mutes the author', async () => {
    const [blocker, blocked, muter, control] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    for (const u of [blocker, blocked, muter, control]) await following('guarded', u);
    const author = await aUser();
    const id = author.account.id;
    expect((await call(blockAccount, { method: 'POST', path: `/api/v1/accounts/${id}/block`, pathParameters: idParam(id), token: blocker.token })).status).toBe(200);
    expect((await call(blockAccount, { method: 'POST', path: `/api/v1/accounts/${blocked.account.id}/block`, pathParameters: idParam(blocked.account.id), token: author.token })).status).toBe(200);
    expect((await call(muteAccount, { method: 'POST', path: `/api/v1/accounts/${id}/mute`, pathParameters: idParam(id), token: muter.token })).status).toBe(200);
    const statusId = await post(author, 'everyone #guarded');
    expect(await homeEntries(blocker.account)).toEqual([]);
    expect(await homeEntries(blocked.account)).toEqual([]);
    expect(await homeEntries(muter.account)).toEqual([]);
    expect(await homeEntries(control.account)).toEqual([statusId]);
  });

  it('leaves it out when the follower mutes an account the status mentions', async () => {
    const [muter, control, mentioned] = await Promise.all([aUser(), aUser(), aUser()]);
    for (const u of [muter, control]) await following('mentioning', u);
    const id = mentioned.account.id;
    expect((await call(muteAccount, { method: 'POST', path: `/api/v1/accounts/${id}/mute`, pathParameters: idParam(id), token: muter.token })).status).toBe(200);
    const statusId = await post(stranger, `hi @${mentioned.account.username} #mentioning`);
    expect(await homeEntries(muter.account)).toEqual([]);
    expect(await homeEntries(control.account)).toEqual([statusId]);
  });

  it('leaves it out when an irreversible home filter of the follower matches it', async () => {
    const [filtering, control] = await Promise.all([aUser(), aUser()]);
    for (const u of [filtering, control]) await following('filtered', u);
    const res = await call(addFilter, {
      method: 'POST',
      path: '/api/v1/filters',
      json: { phrase: 'spoilers', context: ['home'], irreversible: true },
      token: filtering.token,
    });
    expect(res.status).toBe(200);
    await post(stranger, 'big spoilers #filtered');
    const cleanId = await post(stranger, 'nothing to see #filtered');
    expect(await homeEntries(filtering.account)).toEqual([cleanId]);
    expect((await homeEntries(control.account)).length).toBe(2);
  });

  it('leaves the author’s own home as posting wrote it, and a reblog of a tagged post out', async () => {
    const author = await aUser();
    const reader = await aUser();
    await following('selfie', author);
    await following('selfie', reader);
    const statusId = await post(author, 'me #selfie');
    expect(await homeEntries(author.account)).toEqual([statusId]);
    const booster = await aUser();
    const boosted = await call(reblogStatus, { method: 'POST', path: `/api/v1/statuses/${statusId}/reblog`, pathParameters: idParam(statusId), token: booster.token });
    expect(boosted.status).toBe(200);
    expect(await homeEntries(reader.account)).toEqual([statusId]);
  });

  it('delivers a remote public status with the tag', async () => {
    const reader = await aUser();
    await following('fediverse', reader);
    const remote = await aRemoteAccount({ domain: 'tags.example' });
    const status = await aPostedStatus(remote.account, { tags: ['fediverse'], text: '#fediverse', uri: `https://tags.example/notes/${Date.now()}` });
    const res = await fanoutWorker(sqsEvent('fanout', [{ type: 'create', statusId: status.id }]));
    expect(res.batchItemFailures).toEqual([]);
    expect(await homeEntries(reader.account)).toEqual([status.id]);
  });

  it('walks every page of a tag’s followers, each once, up to the cap', async () => {
    const readers = await Promise.all(Array.from({ length: 5 }, () => aUser()));
    for (const r of readers) await following('walked', r);
    await following('walkedtoo', readers[0]!);
    const pages: string[][] = [];
    const total = await eachTagFollowerPage(['walked', 'walkedtoo'], async (ids) => void pages.push(ids), { pageSize: 2 });
    expect(total).toBe(5);
    expect(pages.flat().sort()).toEqual(readers.map((r) => r.account.id).sort());
    expect(pages.every((p) => p.length <= 2)).toBe(true);
    const capped: string[] = [];
    expect(await eachTagFollowerPage(['walked'], async (ids) => void capped.push(...ids), { pageSize: 2, max: 3 })).toBe(3);
    expect(capped).toHaveLength(3);
  });
});

describe('what the tag endpoints cost', () => {
  beforeAll(() => {
    process.env.EXPOSE_METRICS = '1';
  });
  afterAll(() => {
    delete process.env.EXPOSE_METRICS;
  });
  const calls = (res: { headers: Record<string, string> }) => Number(res.headers['x-db-calls']);

  it('answers in a handful of DynamoDB calls, whatever the number of tags followed', async () => {
    const user = await aUser();
    const costs: Record<string, number> = {};
    await warmContainer();
    costs.showAnonymous = calls(await show('costly'));
    costs.show = calls(await show('costly', user.token));
    costs.follow = calls(await follow('costly', user.token));
    costs.followAgain = calls(await follow('costly', user.token));
    costs.unfollow = calls(await unfollow('costly', user.token));
    for (let i = 0; i < 30; i++) await following(`many${i}`, user);
    costs.list30 = calls(await followed(user.token));
    costs.list5 = calls(await followed(user.token, { limit: '5' }));
    // Authentication (token and account, 2) and the rate-limit counter (1) come first. Then: the tag's name and
    // the viewer's follow (one BatchGet) and its week of history (one BatchGet); following adds the transaction,
    // unfollowing the read of the follow and the transaction; a list page is one Query and 7 history keys per tag
    // (BatchGets of 100: 30 tags, 3 of them), and the viewer's featured tags (one Query of at most 10, for `featuring`).
    const bounds = { showAnonymous: 3, show: 5, follow: 6, followAgain: 5, unfollow: 7, list30: 8, list5: 6 };
    // NaN (no header) fails the comparison too.
    for (const [name, bound] of Object.entries(bounds)) expect([name, costs[name]! <= bound]).toEqual([name, true]);
    // The list's cost grows with the page's size (its history), never with the tags followed beyond it.
    expect(costs.list30! - costs.list5!).toBeLessThanOrEqual(2);
  });
});

describe('GET /api/v1/accounts/:id/featured_tags', () => {
  it('answers the account’s featured tags to anyone, and 404 for an unknown or malformed id', async () => {
    const owner = await aUser();
    await post(owner, 'shown #Gardening');
    const created = await call(featureTag, { method: 'POST', path: '/api/v1/featured_tags', json: { name: 'Gardening' }, token: owner.token });
    expect(created.status).toBe(200);
    const res = await featuredOf(owner.account.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([created.body]);
    expect((await featuredOf(owner.account.id, (await aUser()).token)).body).toEqual([created.body]);
    expect((await featuredOf((await aUser()).account.id)).body).toEqual([]);
    for (const bad of ['999999999', 'abc', '-1', '123456789012345678901']) {
      expect([(await featuredOf(bad)).status, (await featuredOf(bad)).body]).toEqual([404, { error: 'Record not found' }]);
    }
    expect((await featuredOf(owner.account.id, 'not-a-token')).status).toBe(401);
    expect((await featuredOf(owner.account.id, (await aUser({ scopes: ['write'] })).token)).status).toBe(403);
  });
});
