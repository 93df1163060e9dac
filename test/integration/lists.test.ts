// Lists: the eight list endpoints, GET /api/v1/accounts/:id/lists, GET /api/v1/timelines/list/:list_id,
// and list timelines filled by the fan-out worker and the backfill when an account is added.
import { handler as accountListsHandler } from '../../functions/lists/account_lists';
import { handler as accountsHandler } from '../../functions/lists/accounts';
import { handler as addHandler } from '../../functions/lists/add_accounts';
import { handler as createHandler } from '../../functions/lists/create';
import { handler as deleteHandler } from '../../functions/lists/delete';
import { handler as indexHandler } from '../../functions/lists/index';
import { handler as removeHandler } from '../../functions/lists/remove_accounts';
import { handler as showHandler } from '../../functions/lists/show';
import { handler as timelineHandler } from '../../functions/lists/timeline';
import { handler as updateHandler } from '../../functions/lists/update';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import * as gsi1 from '../../lib/db/gsi1';
import { listItem, listMemberItem } from '../../lib/db/lists';
import type { Status } from '../../lib/db/statuses';
import { query } from '../../lib/db/table';
import { timelineEntry } from '../../lib/db/timelines';
import { sqsEvent } from '../../lib/queue';
import { fanOut, fanOutDelete } from '../../lib/timelines/fanout';
import { aFollow, anAppToken, aPostedReblog, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const createList = (token: string, json: unknown) => call(createHandler, { method: 'POST', path: '/api/v1/lists', json, token });
const showList = (token: string, id: string) => call(showHandler, { path: `/api/v1/lists/${id}`, pathParameters: { id }, token });
const addAccounts = (token: string, id: string, json: unknown) =>
  call(addHandler, { method: 'POST', path: `/api/v1/lists/${id}/accounts`, pathParameters: { id }, json, token });
const removeAccounts = (token: string, id: string, json: unknown) =>
  call(removeHandler, { method: 'DELETE', path: `/api/v1/lists/${id}/accounts`, pathParameters: { id }, json, token });
const members = (token: string, id: string, q: Record<string, string> = {}) =>
  call(accountsHandler, { path: `/api/v1/lists/${id}/accounts`, pathParameters: { id }, query: q, token });
const timeline = (token: string, id: string, q: Record<string, string> = {}) =>
  call(timelineHandler, { path: `/api/v1/timelines/list/${id}`, pathParameters: { list_id: id }, query: q, token });

const listsOfOwner = async (owner: Account) =>
  (await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.listsPartition(owner.id) } }, listItem)).items;
const membershipsOf = async (account: Account) =>
  (await query({ IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': gsi1.listMembershipsPartition(account.id) } }, listMemberItem)).items;
const entryIds = async (listId: string) =>
  (await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.listPartition(listId) }, ScanIndexForward: false }, timelineEntry)).items.map((e) => e.statusId);

async function aList(owner: UserFixture, title = 'friends', repliesPolicy?: string): Promise<string> {
  const res = await createList(owner.token, { title, ...(repliesPolicy ? { replies_policy: repliesPolicy } : {}) });
  expect(res.status).toBe(200);
  return res.body.id;
}

const mention = (account: Account) => ({ id: account.id, username: account.username, acct: account.username, url: `https://social.example/@${account.username}` });

describe('list CRUD', () => {
  it('creates a list with replies_policy "list" by default, shows, renames and lists it', async () => {
    const owner = await aUser();
    const res = await createList(owner.token, { title: 'Close friends' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^\d+$/), title: 'Close friends', replies_policy: 'list' });
    const id = res.body.id;
    expect((await showList(owner.token, id)).body).toEqual(res.body);
    const put = await call(updateHandler, { method: 'PUT', path: `/api/v1/lists/${id}`, pathParameters: { id }, form: { title: 'Work', replies_policy: 'none' }, token: owner.token });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id, title: 'Work', replies_policy: 'none' });
    const other = await createList(owner.token, { title: 'Art', replies_policy: 'followed' });
    const all = await call(indexHandler, { path: '/api/v1/lists', token: owner.token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual([put.body, other.body]);
  });

  it("answers 404 for another user's list on every endpoint, and changes nothing", async () => {
    const [owner, intruder] = await Promise.all([aUser(), aUser()]);
    await aFollow(intruder.account, owner.account);
    const id = await aList(owner, 'mine');
    const path = { pathParameters: { id }, token: intruder.token };
    const answers = await Promise.all([
      showList(intruder.token, id),
      call(updateHandler, { method: 'PUT', path: `/api/v1/lists/${id}`, json: { title: 'stolen' }, ...path }),
      call(deleteHandler, { method: 'DELETE', path: `/api/v1/lists/${id}`, ...path }),
      members(intruder.token, id),
      addAccounts(intruder.token, id, { account_ids: [owner.account.id] }),
      removeAccounts(intruder.token, id, { account_ids: [owner.account.id] }),
      timeline(intruder.token, id),
    ]);
    for (const res of answers) expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    expect((await showList(owner.token, id)).body).toMatchObject({ title: 'mine' });
    expect((await call(indexHandler, { path: '/api/v1/lists', token: intruder.token })).body).toEqual([]);
  });

  it.each([
    ['a missing title', { json: {} }, 422],
    ['a blank title', { json: { title: '   ' } }, 422],
    ['a title that is not a string', { json: { title: 42 } }, 422],
    ['an oversized title', { json: { title: 'x'.repeat(257) } }, 422],
    ['an unknown replies_policy', { json: { title: 'ok', replies_policy: 'everyone' } }, 422],
    ['malformed JSON', { body: { data: '{"title": ', contentType: 'application/json' } }, 400],
  ])('refuses to create a list with %s, writing nothing', async (_name, request, status) => {
    const owner = await aUser();
    const res = await call(createHandler, { method: 'POST', path: '/api/v1/lists', token: owner.token, ...request });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await listsOfOwner(owner.account)).toEqual([]);
  });

  it('needs write:lists to create and read:lists to read, and a user rather than an app', async () => {
    const reader = await aUser({ scopes: ['read:lists'] });
    const writer = await aUser({ scopes: ['write:lists'] });
    expect((await createList(reader.token, { title: 'x' })).status).toBe(403);
    expect(await listsOfOwner(reader.account)).toEqual([]);
    const id = await aList(writer);
    expect((await showList(writer.token, id)).status).toBe(403);
    expect((await showList(reader.token, id)).status).toBe(404);
    const app = await anAppToken(['read', 'write']);
    const res = await createList(app.token, { title: 'x' });
    expect([res.status, res.body]).toEqual([422, { error: 'This method requires an authenticated user' }]);
    expect((await createList('not-a-token', { title: 'x' })).status).toBe(401);
  });

  it('deletes a list with its memberships and timeline entries', async () => {
    const [owner, friend] = await Promise.all([aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    await aPostedStatus(friend.account);
    const id = await aList(owner);
    expect((await addAccounts(owner.token, id, { account_ids: [friend.account.id] })).status).toBe(200);
    expect(await entryIds(id)).toHaveLength(1);
    const res = await call(deleteHandler, { method: 'DELETE', path: `/api/v1/lists/${id}`, pathParameters: { id }, token: owner.token });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect((await showList(owner.token, id)).status).toBe(404);
    expect(await membershipsOf(friend.account)).toEqual([]);
    expect(await entryIds(id)).toEqual([]);
  });
});

describe('list accounts', () => {
  it('adds followed accounts, lists them newest account first, and names the list on GET /accounts/:id/lists', async () => {
    const owner = await aUser();
    const friends = await Promise.all([aUser(), aUser(), aUser()]);
    for (const f of friends) await aFollow(owner.account, f.account);
    const id = await aList(owner);
    const other = await aList(owner, 'other');
    const res = await call(addHandler, {
      method: 'POST',
      path: `/api/v1/lists/${id}/accounts`,
      pathParameters: { id },
      form: { account_ids: friends.map((f) => f.account.id) },
      token: owner.token,
    });
    expect([res.status, res.body]).toEqual([200, {}]);
    const newestFirst = friends.map((f) => f.account.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
    const all = await members(owner.token, id);
    expect(all.status).toBe(200);
    expect(all.body.map((a: { id: string }) => a.id)).toEqual(newestFirst);
    expect(all.body[0]).toMatchObject({ username: expect.any(String), acct: expect.any(String) });

    const lists = await call(accountListsHandler, { path: `/api/v1/accounts/${friends[0]!.account.id}/lists`, pathParameters: { id: friends[0]!.account.id }, token: owner.token });
    expect(lists.status).toBe(200);
    expect(lists.body).toEqual([{ id, title: 'friends', replies_policy: 'list' }]);
    expect(other).not.toEqual(id);
    // Someone else's view of the same account does not show the owner's lists.
    const stranger = await aUser();
    const theirs = await call(accountListsHandler, { path: `/api/v1/accounts/${friends[0]!.account.id}/lists`, pathParameters: { id: friends[0]!.account.id }, token: stranger.token });
    expect(theirs.body).toEqual([]);
    const unknown = await call(accountListsHandler, { path: '/api/v1/accounts/999/lists', pathParameters: { id: '999' }, token: owner.token });
    expect(unknown.status).toBe(404);
  });

  it('pages list accounts with the Link header, 40 at most, and answers all of them with limit 0', async () => {
    const owner = await aUser();
    const friends = await Promise.all(Array.from({ length: 5 }, () => aUser()));
    for (const f of friends) await aFollow(owner.account, f.account);
    const id = await aList(owner);
    await addAccounts(owner.token, id, { account_ids: friends.map((f) => f.account.id) });
    const newestFirst = friends.map((f) => f.account.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));

    const first = await members(owner.token, id, { limit: '2' });
    expect(first.body.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.headers.link).toContain(`max_id=${newestFirst[1]}`);
    const next = new URL(first.headers.link!.match(/<([^>]+)>; rel="next"/)![1]!).searchParams;
    const second = await members(owner.token, id, Object.fromEntries(next));
    expect(second.body.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(2, 4));

    const everything = await members(owner.token, id, { limit: '0' });
    expect(everything.body.map((a: { id: string }) => a.id)).toEqual(newestFirst);
    expect(everything.headers.link).toBeUndefined();
    const capped = await members(owner.token, id, { limit: '100' });
    expect(capped.body).toHaveLength(5);
  });

  it('refuses accounts the owner does not follow with 422, writing nothing', async () => {
    const [owner, followed, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, followed.account);
    await aPostedStatus(stranger.account);
    const id = await aList(owner);
    const res = await addAccounts(owner.token, id, { account_ids: [followed.account.id, stranger.account.id] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringContaining('Validation failed') });
    expect(await membershipsOf(followed.account)).toEqual([]);
    expect(await membershipsOf(stranger.account)).toEqual([]);
    expect(await entryIds(id)).toEqual([]);
  });

  it.each([
    ['no account_ids', {}, 422],
    ['an empty account_ids', { account_ids: [] }, 422],
    ['account_ids that are not ids', { account_ids: ['abc'] }, 422],
    ['account_ids of the wrong type', { account_ids: { a: 1 } }, 422],
    ['too many account_ids', { account_ids: Array.from({ length: 41 }, (_, i) => String(1000 + i)) }, 422],
    ['an unknown account', { account_ids: ['12345'] }, 404],
  ])('refuses to add %s, writing nothing', async (_name, json, status) => {
    const [owner, friend] = await Promise.all([aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    const id = await aList(owner);
    const res = await addAccounts(owner.token, id, json);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect((await members(owner.token, id)).body).toEqual([]);
  });

  it('refuses an account already in the list, and an unknown list', async () => {
    const [owner, friend, another] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    await aFollow(owner.account, another.account);
    const id = await aList(owner);
    await addAccounts(owner.token, id, { account_ids: [friend.account.id] });
    const again = await addAccounts(owner.token, id, { account_ids: [another.account.id, friend.account.id] });
    expect(again.status).toBe(422);
    expect((await members(owner.token, id)).body.map((a: { id: string }) => a.id)).toEqual([friend.account.id]);
    expect((await addAccounts(owner.token, '424242', { account_ids: [friend.account.id] })).status).toBe(404);
    expect((await addAccounts(owner.token, 'nope', { account_ids: [friend.account.id] })).status).toBe(404);
  });

  it('removes accounts and their statuses from the list timeline, ignoring ids not in the list', async () => {
    const [owner, a, b] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, a.account);
    await aFollow(owner.account, b.account);
    const sa = await aPostedStatus(a.account);
    const sb = await aPostedStatus(b.account);
    const id = await aList(owner);
    await addAccounts(owner.token, id, { account_ids: [a.account.id, b.account.id] });
    expect(await entryIds(id)).toEqual([sb.id, sa.id]);
    const res = await call(removeHandler, {
      method: 'DELETE',
      path: `/api/v1/lists/${id}/accounts`,
      pathParameters: { id },
      query: { account_ids: [a.account.id, '777'] },
      token: owner.token,
    });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect((await members(owner.token, id)).body.map((x: { id: string }) => x.id)).toEqual([b.account.id]);
    expect(await entryIds(id)).toEqual([sb.id]);
    expect(await membershipsOf(a.account)).toEqual([]);
    const bad = await removeAccounts(owner.token, id, { account_ids: 'x' });
    expect(bad.status).toBe(422);
    expect((await members(owner.token, id)).body).toHaveLength(1);
  });
});

describe('list timelines', () => {
  it('backfills the latest statuses the owner may see when an account is added, newest first', async () => {
    const [owner, friend, someone] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    const older = await aPostedStatus(friend.account);
    const privateOne = await aPostedStatus(friend.account, { visibility: 'private' });
    await aPostedStatus(friend.account, { visibility: 'direct', mentions: [mention(someone.account)] });
    const posted: Status[] = [];
    for (let i = 0; i < 21; i++) posted.push(await aPostedStatus(friend.account));
    const id = await aList(owner);
    await addAccounts(owner.token, id, { account_ids: [friend.account.id] });
    const ids = await entryIds(id);
    // The 20 latest statuses of the account: the direct one and older ones stay out.
    expect(ids).toEqual(posted.slice(1).reverse().map((s) => s.id));
    expect(ids).not.toContain(privateOne.id);
    expect(ids).not.toContain(older.id);

    const page = await timeline(owner.token, id, { limit: '3' });
    expect(page.status).toBe(200);
    expect(page.body.map((s: { id: string }) => s.id)).toEqual(ids.slice(0, 3));
    expect(page.body[0]).toMatchObject({ account: { id: friend.account.id }, content: expect.any(String) });
    const next = new URL(page.headers.link!.match(/<([^>]+)>; rel="next"/)![1]!).searchParams;
    expect(page.headers.link).toContain(`/api/v1/timelines/list/${id}?`);
    const second = await timeline(owner.token, id, Object.fromEntries(next));
    expect(second.body.map((s: { id: string }) => s.id)).toEqual(ids.slice(3, 6));
    const newer = await timeline(owner.token, id, { min_id: ids[5]!, limit: '2' });
    expect(newer.body.map((s: { id: string }) => s.id)).toEqual(ids.slice(3, 5));
  });

  it('backfills private statuses of a followed account but not direct ones addressed to others', async () => {
    const [owner, friend, someone] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    const open = await aPostedStatus(friend.account);
    const privateOne = await aPostedStatus(friend.account, { visibility: 'private' });
    await aPostedStatus(friend.account, { visibility: 'direct', mentions: [mention(someone.account)] });
    const reblog = await aPostedReblog(friend.account, await aPostedStatus(someone.account));
    const id = await aList(owner);
    await addAccounts(owner.token, id, { account_ids: [friend.account.id] });
    expect(await entryIds(id)).toEqual([reblog.id, privateOne.id, open.id]);
  });

  it('delivers new statuses of list members through the fan-out, and removes them on delete', async () => {
    const [owner, friend, follower, notMember] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    await aFollow(owner.account, notMember.account);
    await aFollow(follower.account, friend.account);
    const id = await aList(owner);
    const otherOwner = await aUser();
    await aFollow(otherOwner.account, friend.account);
    const theirs = await aList(otherOwner);
    await addAccounts(owner.token, id, { account_ids: [friend.account.id] });
    await addAccounts(otherOwner.token, theirs, { account_ids: [friend.account.id] });

    const status = await aPostedStatus(friend.account, { visibility: 'private' });
    const res = await fanoutWorker(sqsEvent('fanout', [{ type: 'create', statusId: status.id }]));
    expect(res.batchItemFailures).toEqual([]);
    const unrelated = await aPostedStatus(notMember.account);
    await fanOut(unrelated.id);
    expect(await entryIds(id)).toEqual([status.id]);
    expect(await entryIds(theirs)).toEqual([status.id]);
    expect((await timeline(owner.token, id)).body.map((s: { id: string }) => s.id)).toEqual([status.id]);

    await fanOutDelete(status.id, friend.account.id, []);
    expect(await entryIds(id)).toEqual([]);
    expect(await entryIds(theirs)).toEqual([]);
  });

  it('keeps direct statuses, muted reblogs and statuses of unfollowed members out of lists', async () => {
    const [owner, friend, quiet, gone, someone] = await Promise.all([aUser(), aUser(), aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    await aFollow(owner.account, quiet.account, { showReblogs: false });
    const goneEdge = await aFollow(owner.account, gone.account);
    const id = await aList(owner);
    await addAccounts(owner.token, id, { account_ids: [friend.account.id, quiet.account.id, gone.account.id] });
    // The owner stops following `gone` (edge removed behind the list's back).
    const { deleteFollow } = await import('../../lib/db/follows');
    expect(await deleteFollow(goneEdge.followerId, goneEdge.followedId)).toBe(true);

    const direct = await aPostedStatus(friend.account, { visibility: 'direct', mentions: [mention(owner.account)] });
    const original = await aPostedStatus(someone.account);
    const reblog = await aPostedReblog(quiet.account, original);
    const goneStatus = await aPostedStatus(gone.account);
    const kept = await aPostedStatus(friend.account, { visibility: 'unlisted' });
    for (const s of [direct, reblog, goneStatus, kept]) await fanOut(s.id);
    expect(await entryIds(id)).toEqual([kept.id]);
  });

  it.each([
    ['list', { inList: true, followed: true }, true],
    ['list', { inList: false, followed: true }, false],
    ['followed', { inList: false, followed: true }, true],
    ['followed', { inList: false, followed: false }, false],
    ['none', { inList: true, followed: true }, false],
  ])('with replies_policy %s, a reply to a third account (%o) enters the list: %s', async (policy, setup, enters) => {
    const [owner, friend, third] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    if (setup.followed) await aFollow(owner.account, third.account);
    const id = await aList(owner, 'replies', policy);
    await addAccounts(owner.token, id, { account_ids: [friend.account.id, ...(setup.inList ? [third.account.id] : [])] });
    const parent = await aPostedStatus(third.account);
    const reply = await aPostedStatus(friend.account, { inReplyToId: parent.id, inReplyToAccountId: third.account.id });
    const selfReply = await aPostedStatus(friend.account, { inReplyToId: reply.id, inReplyToAccountId: friend.account.id });
    const toOwner = await aPostedStatus(friend.account, { inReplyToId: parent.id, inReplyToAccountId: owner.account.id });
    for (const s of [reply, selfReply, toOwner]) await fanOut(s.id);
    const ids = await entryIds(id);
    expect(ids.includes(reply.id)).toBe(enters);
    expect(ids).toEqual(expect.arrayContaining([selfReply.id, toOwner.id]));
  });

  it('keeps statuses of a muted member out of the list at fan-out and on read', async () => {
    const [owner, friend] = await Promise.all([aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    const before = await aPostedStatus(friend.account);
    const id = await aList(owner);
    await addAccounts(owner.token, id, { account_ids: [friend.account.id] });
    const { putMute } = await import('../../lib/db/blocks');
    const { newId } = await import('../../lib/ids');
    await putMute({ id: newId(), accountId: owner.account.id, targetAccountId: friend.account.id, notifications: true, expiresAt: null, createdAt: new Date().toISOString() });
    const after = await aPostedStatus(friend.account);
    await fanOut(after.id);
    expect(await entryIds(id)).toEqual([before.id]);
    expect((await timeline(owner.token, id)).body).toEqual([]);
  });

  it("takes an unfollowed account out of the owner's lists only (leaveOwnerLists)", async () => {
    const [owner, friend, otherOwner] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    await aFollow(otherOwner.account, friend.account);
    const status = await aPostedStatus(friend.account);
    const [mine, mine2, theirs] = [await aList(owner), await aList(owner, 'two'), await aList(otherOwner)];
    await addAccounts(owner.token, mine, { account_ids: [friend.account.id] });
    await addAccounts(owner.token, mine2, { account_ids: [friend.account.id] });
    await addAccounts(otherOwner.token, theirs, { account_ids: [friend.account.id] });
    const { leaveOwnerLists } = await import('../../lib/lists');
    await leaveOwnerLists(owner.account.id, friend.account.id);
    expect(await entryIds(mine)).toEqual([]);
    expect(await entryIds(mine2)).toEqual([]);
    expect(await entryIds(theirs)).toEqual([status.id]);
    expect((await membershipsOf(friend.account)).map((m) => m.listId)).toEqual([theirs]);
  });

  it('answers 422 for a malformed paging parameter and 403 without read:lists', async () => {
    const owner = await aUser();
    const id = await aList(owner);
    expect((await timeline(owner.token, id, { max_id: 'abc' })).status).toBe(422);
    const writer = await aUser({ scopes: ['write:lists'] });
    expect((await timeline(writer.token, id)).status).toBe(403);
    expect((await timeline(owner.token, 'abc')).status).toBe(404);
  });
});

describe('bad input on every list endpoint (audit)', () => {
  type Res = { status: number; body: unknown };
  let owner: UserFixture;
  let friend: UserFixture;
  let stranger: UserFixture;
  let listId: string;
  let entries: string[];
  beforeAll(async () => {
    [owner, friend, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, friend.account);
    await aPostedStatus(friend.account);
    listId = await aList(owner, 'audited');
    expect((await addAccounts(owner.token, listId, { account_ids: [friend.account.id] })).status).toBe(200);
    entries = await entryIds(listId);
  });

  /** What every refused request must leave as it was: the owner's lists, the list's members and its timeline. */
  async function expectUntouched() {
    expect((await listsOfOwner(owner.account)).map((l) => [l.id, l.title, l.repliesPolicy])).toEqual([[listId, 'audited', 'list']]);
    expect((await membershipsOf(friend.account)).map((m) => m.listId)).toEqual([listId]);
    expect(await membershipsOf(stranger.account)).toEqual([]);
    expect(await entryIds(listId)).toEqual(entries);
  }

  /** Each endpoint called on the audited list (or the friend's account) with a given token. */
  const endpoints: [string, 'read' | 'write', (token: string | undefined, id?: string) => Promise<Res>][] = [
    ['GET /api/v1/lists', 'read', (token) => call(indexHandler, { path: '/api/v1/lists', token })],
    ['GET /api/v1/lists/:id', 'read', (token, id = listId) => call(showHandler, { path: `/api/v1/lists/${id}`, pathParameters: { id }, token })],
    ['POST /api/v1/lists', 'write', (token) => call(createHandler, { method: 'POST', path: '/api/v1/lists', json: { title: 'new' }, token })],
    ['PUT /api/v1/lists/:id', 'write', (token, id = listId) => call(updateHandler, { method: 'PUT', path: `/api/v1/lists/${id}`, pathParameters: { id }, json: { title: 'renamed' }, token })],
    ['DELETE /api/v1/lists/:id', 'write', (token, id = listId) => call(deleteHandler, { method: 'DELETE', path: `/api/v1/lists/${id}`, pathParameters: { id }, token })],
    ['GET /api/v1/lists/:id/accounts', 'read', (token, id = listId) => call(accountsHandler, { path: `/api/v1/lists/${id}/accounts`, pathParameters: { id }, token })],
    ['POST /api/v1/lists/:id/accounts', 'write', (token, id = listId) =>
      call(addHandler, { method: 'POST', path: `/api/v1/lists/${id}/accounts`, pathParameters: { id }, json: { account_ids: [stranger.account.id] }, token })],
    ['DELETE /api/v1/lists/:id/accounts', 'write', (token, id = listId) =>
      call(removeHandler, { method: 'DELETE', path: `/api/v1/lists/${id}/accounts`, pathParameters: { id }, json: { account_ids: [friend.account.id] }, token })],
    ['GET /api/v1/accounts/:id/lists', 'read', (token, id = friend.account.id) =>
      call(accountListsHandler, { path: `/api/v1/accounts/${id}/lists`, pathParameters: { id }, token })],
    ['GET /api/v1/timelines/list/:id', 'read', (token, id = listId) => call(timelineHandler, { path: `/api/v1/timelines/list/${id}`, pathParameters: { list_id: id }, token })],
  ];

  it.each(endpoints)('%s refuses a missing (401), invalid (401), app (422) and wrong-scope (403) token, writing nothing', async (_name, kind, run) => {
    const wrongScope = await aUser({ scopes: kind === 'read' ? ['write:lists', 'read:accounts'] : ['read:lists', 'write:statuses'] });
    const app = await anAppToken(['read', 'write']);
    const answers = [await run(undefined), await run('not-a-token'), await run(app.token), await run(wrongScope.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    expect(await listsOfOwner(wrongScope.account)).toEqual([]);
    await expectUntouched();
  });

  it.each(endpoints.filter(([name]) => name !== 'GET /api/v1/lists' && name !== 'POST /api/v1/lists'))(
    '%s answers 404 for unknown, malformed and oversized ids, writing nothing',
    async (_name, _kind, run) => {
      for (const id of ['424242', 'abc', '1x', '-1', '123456789012345678901', ' ']) {
        const res = await run(owner.token, id);
        expect([id, res.status, res.body]).toEqual([id, 404, { error: 'Record not found' }]);
      }
      await expectUntouched();
    },
  );

  it("answers 404 for another user's list on every list endpoint, with that user's valid token", async () => {
    const [other, otherFriend] = await Promise.all([aUser(), aUser()]);
    await aFollow(other.account, otherFriend.account);
    await aFollow(other.account, friend.account);
    for (const [name, , run] of endpoints.filter(([n]) => n.includes(':id') && !n.includes('accounts/:id'))) {
      const res = await run(other.token, listId);
      expect([name, res.status]).toEqual([name, 404]);
    }
    await expectUntouched();
  });

  it.each([
    ['an empty title', { title: '' }],
    ['a blank title', { title: '  \t ' }],
    ['a null title', { title: null }],
    ['a title that is a list', { title: ['a', 'b'] }],
    ['an oversized title', { title: 'x'.repeat(257) }],
    ['an unknown replies_policy', { replies_policy: 'everyone' }],
    ['a replies_policy of the wrong type', { title: 'ok', replies_policy: ['list'] }],
  ])('PUT /api/v1/lists/:id with %s answers 422 and keeps the list', async (_name, json) => {
    const res = await call(updateHandler, { method: 'PUT', path: `/api/v1/lists/${listId}`, pathParameters: { id: listId }, json, token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringContaining('Validation failed') });
    await expectUntouched();
  });

  it.each([
    ['a negative limit', { limit: '-1' }],
    ['a fractional limit', { limit: '1.5' }],
    ['a non-numeric limit', { limit: 'all' }],
    ['an overflowing limit', { limit: '1e400' }],
    ['a malformed max_id', { max_id: 'abc' }],
    ['a malformed since_id', { since_id: '12a' }],
    ['a malformed min_id', { min_id: '-5' }],
  ])('GET list accounts and the list timeline with %s answer 422', async (_name, query) => {
    for (const res of [await members(owner.token, listId, query), await timeline(owner.token, listId, query)]) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: expect.stringContaining('Validation failed') });
    }
  });

  it('an inverted or empty id range is an empty page, not an error', async () => {
    const queries: Record<string, string>[] = [{ max_id: '1', min_id: '99999999999999999999' }, { max_id: '5', since_id: '5' }, { max_id: '0' }];
    for (const query of queries) {
      const page = await timeline(owner.token, listId, query);
      expect([page.status, page.body]).toEqual([200, []]);
      const accounts = await members(owner.token, listId, query);
      expect([accounts.status, accounts.body]).toEqual([200, []]);
    }
  });

  it.each([
    ['the owner themself', 422, () => [owner.account.id]],
    ['an account the owner does not follow', 422, () => [stranger.account.id]],
    ['a followed account together with one not followed', 422, () => [friend.account.id, stranger.account.id]],
    ['an unknown 20-digit id', 404, () => ['99999999999999999999']],
    ['a 21-digit id', 422, () => ['123456789012345678901']],
    ['an id that is a number, not a string', 422, () => [Number(friend.account.id)]],
    ['nested arrays', 422, () => [[friend.account.id]]],
  ])('POST list accounts with %s answers %d and adds nobody', async (_name, status, ids) => {
    const res = await addAccounts(owner.token, listId, { account_ids: ids() });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    await expectUntouched();
  });

  it('POST list accounts refuses an account whose login is pending approval (404), even when followed', async () => {
    const pending = await aUser({ approved: false });
    await aFollow(owner.account, pending.account);
    const res = await addAccounts(owner.token, listId, { account_ids: [pending.account.id] });
    expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    expect(await membershipsOf(pending.account)).toEqual([]);
    await expectUntouched();
  });

  it.each([
    ['no account_ids', {}],
    ['an empty account_ids', { account_ids: [] }],
    ['account_ids that are not ids', { account_ids: ['abc'] }],
    ['account_ids of the wrong type', { account_ids: { a: '1' } }],
    ['too many account_ids', { account_ids: Array.from({ length: 41 }, (_, i) => String(1000 + i)) }],
  ])('DELETE list accounts with %s answers 422 and removes nobody', async (_name, json) => {
    const res = await removeAccounts(owner.token, listId, json);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringContaining('Validation failed') });
    await expectUntouched();
  });
});
