import { handler as remove } from '../../functions/suggestions/delete';
import { handler as index } from '../../functions/suggestions/index';
import { addFavourite } from '../../lib/db/interactions';
import { getItem } from '../../lib/db/table';
import * as keys from '../../lib/db/keys';
import { call } from '../support/http';
import { aFollow, anAppToken, aPostedReblog, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { z } from 'zod';

const list = (token: string | undefined, query: Record<string, string> = {}) => call(index, { path: '/api/v1/suggestions', query, token });
const dismiss = (token: string | undefined, id: string) =>
  call(remove, { method: 'DELETE', path: `/api/v1/suggestions/${id}`, pathParameters: { account_id: id }, token });
const ids = (body: unknown) => (body as { id: string }[]).map((a) => a.id);

describe('GET /api/v1/suggestions and DELETE /api/v1/suggestions/:account_id', () => {
  let user: UserFixture;
  let favourited: UserFixture;
  let repliedTo: UserFixture;
  let followed: UserFixture;
  let dismissed: UserFixture;
  let reblogged: UserFixture;

  beforeAll(async () => {
    [user, favourited, repliedTo, followed, dismissed, reblogged] = await Promise.all([aUser(), aUser(), aUser(), aUser(), aUser(), aUser()]);
    await aPostedReblog(user.account, await aStoredStatus(reblogged.account));
    for (const author of [favourited, favourited, followed, dismissed]) {
      const status = await aStoredStatus(author.account);
      await addFavourite(user.account.id, status.id);
    }
    const parent = await aStoredStatus(repliedTo.account);
    await aStoredStatus(user.account, { inReplyToId: parent.id, inReplyToAccountId: repliedTo.account.id });
    const own = await aStoredStatus(user.account);
    await addFavourite(user.account.id, own.id);
    await aFollow(user.account, followed.account);
  });

  it('suggests accounts the user interacted with and does not follow, most interactions first', async () => {
    const res = await list(user.token);
    expect(res.status).toBe(200);
    // Two favourites rank first; the user themself and the followed account never appear.
    expect(ids(res.body)[0]).toBe(favourited.account.id);
    expect(ids(res.body).sort()).toEqual([favourited.account.id, repliedTo.account.id, dismissed.account.id, reblogged.account.id].sort());
    expect((res.body as Record<string, unknown>[])[0]).toMatchObject({ id: favourited.account.id, username: favourited.account.username });
    expect((await list(user.token, { limit: '1' })).body).toHaveLength(1);
    expect((await list((await aUser()).token)).body).toEqual([]);
  });

  it('dismisses a suggestion for good', async () => {
    const res = await dismiss(user.token, dismissed.account.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(ids((await list(user.token)).body)).not.toContain(dismissed.account.id);
    expect(await getItem(keys.suggestionDismissed(user.account.id, dismissed.account.id), z.object({ dismissedId: z.string() }))).toBeDefined();
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['an app token', async () => (await anAppToken(['read'])).token, 422],
    ['a write-only token', async () => (await aUser({ scopes: ['write'] })).token, 403],
  ])('refuses %s', async (_, token, status) => {
    const t = await token();
    const got = await list(t);
    expect(got.status).toBe(status);
    expect(got.body).toEqual({ error: expect.any(String) });
    const del = await dismiss(t, repliedTo.account.id);
    expect(del.status).toBe(status);
    expect(ids((await list(user.token)).body)).toContain(repliedTo.account.id);
  });

  it.each([
    ['a malformed account id', 'abc', 404],
  ])('answers %s with 404 and stores nothing', async (_, id, status) => {
    const res = await dismiss(user.token, id);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it('answers 422 for a non-numeric limit', async () => {
    const res = await list(user.token, { limit: 'lots' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringContaining('Validation failed') });
  });
});

describe('suggestions bad input (audit)', () => {
  let user: UserFixture;
  let favourited: UserFixture;
  beforeAll(async () => {
    [user, favourited] = await Promise.all([aUser(), aUser()]);
    await addFavourite(user.account.id, (await aStoredStatus(favourited.account)).id);
  });
  const dismissedItem = (id: string) => getItem(keys.suggestionDismissed(user.account.id, id), z.object({ dismissedId: z.string() }));

  it('refuses an invalid token on both endpoints (401), dismissing nothing', async () => {
    for (const token of ['not-a-token', `${user.token}x`]) {
      for (const res of [await list(token), await dismiss(token, favourited.account.id)]) {
        expect([res.status, res.body]).toEqual([401, { error: expect.any(String) }]);
      }
    }
    expect(await dismissedItem(favourited.account.id)).toBeUndefined();
    expect(ids((await list(user.token)).body)).toEqual([favourited.account.id]);
  });

  it.each([
    ['an unknown account', () => '99999999999999999999'],
    ['an oversized id', () => '123456789012345678901'],
    ['a negative id', () => '-1'],
    ['a blank id', () => ' '],
  ])('DELETE of %s answers 404 and stores nothing', async (_name, id) => {
    const res = await dismiss(user.token, id());
    expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    expect(await dismissedItem(id())).toBeUndefined();
  });

  it('DELETE of an account whose login is pending approval answers 404 and stores nothing', async () => {
    const pending = await aUser({ approved: false });
    const res = await dismiss(user.token, pending.account.id);
    expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    expect(await dismissedItem(pending.account.id)).toBeUndefined();
  });

  it.each([
    ['a negative limit', { limit: '-1' }],
    ['a fractional limit', { limit: '2.5' }],
    ['an overflowing limit', { limit: '1e400' }],
  ])('GET with %s answers 422', async (_name, query) => {
    const res = await list(user.token, query);
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
  });
});
