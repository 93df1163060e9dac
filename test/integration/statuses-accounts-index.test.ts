// Several statuses or accounts at once (Mastodon 4.3): GET /api/v1/statuses?id[]= and GET /api/v1/accounts?id[]=,
// in the order asked, passing over what does not exist or is not shown to the viewer.
import { handler as block } from '../../functions/accounts/block';
import { handler as accountsIndex } from '../../functions/accounts/index';
import { handler as create } from '../../functions/statuses/create';
import { handler as statusesIndex } from '../../functions/statuses/index';
import { newId } from '../../lib/ids';
import { call } from '../support/http';
import { aBareAccount, aFollow, aPostedReblog, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { statusById } from '../../lib/db/statuses';

const statuses = (query: string, token?: string) => call(statusesIndex, { path: '/api/v1/statuses', query, token });
const accounts = (query: string, token?: string) => call(accountsIndex, { path: '/api/v1/accounts', query, token });
const ids = (body: unknown) => (body as { id: string }[]).map((s) => s.id);
const post = async (user: UserFixture, body: Record<string, unknown>) => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: body, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};

describe('GET /api/v1/statuses?id[]=', () => {
  let author: UserFixture;
  let follower: UserFixture;
  let stranger: UserFixture;
  beforeAll(async () => {
    [author, follower, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
  });

  it('answers the statuses asked for, in that order, without a token for public ones', async () => {
    const [a, b, c] = [await post(author, { status: 'one' }), await post(author, { status: 'two' }), await post(author, { status: 'three' })];
    const res = await statuses(`id[]=${c.id}&id[]=${a.id}&id[]=${b.id}&id[]=${a.id}`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([c.id, a.id, b.id]);
    expect((res.body as Record<string, unknown>[])[0]).toMatchObject({ content: '<p>three</p>', account: { id: author.account.id } });
  });

  it('passes over unknown ids, ids that are none, and what the viewer may not see', async () => {
    const open = await post(author, { status: 'open' });
    const followersOnly = await post(author, { status: 'for followers', visibility: 'private' });
    const query = `id[]=${newId()}&id[]=abc&id[]=${followersOnly.id}&id[]=${open.id}`;
    expect(ids((await statuses(query)).body)).toEqual([open.id]);
    expect(ids((await statuses(query, stranger.token)).body)).toEqual([open.id]);
    expect(ids((await statuses(query, follower.token)).body)).toEqual([followersOnly.id, open.id]);
  });

  it('leaves out the statuses of an account that blocks the viewer, as Mastodon\'s StatusFilter', async () => {
    const [blocker, viewer] = await Promise.all([aUser(), aUser()]);
    const hidden = await post(blocker, { status: 'not for you' });
    const shown = await post(author, { status: 'for anyone' });
    const blocked = await call(block, { method: 'POST', path: `/api/v1/accounts/${viewer.account.id}/block`, pathParameters: { id: viewer.account.id }, token: blocker.token });
    expect(blocked.status).toBe(200);
    expect(ids((await statuses(`id[]=${hidden.id}&id[]=${shown.id}`, viewer.token)).body)).toEqual([shown.id]);
    expect(ids((await statuses(`id[]=${hidden.id}&id[]=${shown.id}`)).body)).toEqual([hidden.id, shown.id]);
  });

  it('answers a reblog with its original, and one id given as id=', async () => {
    const original = await aStoredStatus(author.account, { text: 'boost me' });
    const reblog = await aPostedReblog(follower.account, (await statusById(original.id))!);
    const res = await statuses(`id=${reblog.id}`, stranger.token);
    expect(res.body).toEqual([expect.objectContaining({ id: reblog.id, reblog: expect.objectContaining({ id: original.id }) })]);
  });

  it('answers [] for no id, and 422 for more than 20, as Mastodon', async () => {
    expect(await statuses('')).toMatchObject({ status: 200, body: [] });
    const many = Array.from({ length: 21 }, () => `id[]=${newId()}`).join('&');
    expect(await statuses(many)).toMatchObject({ status: 422, body: { error: expect.stringMatching(/too many ids/) } });
    expect(await statuses(many.split('&').slice(1).join('&'))).toMatchObject({ status: 200, body: [] });
  });

  it('refuses a token without read:statuses', async () => {
    const writer = await aUser({ scopes: ['write:statuses'] });
    expect((await statuses(`id[]=${newId()}`, writer.token)).status).toBe(403);
  });
});

describe('GET /api/v1/accounts?id[]=', () => {
  it('answers the accounts asked for, in that order, passing over unknown, invalid and unapproved ones', async () => {
    const [a, b] = await Promise.all([aUser(), aUser()]);
    const pending = await aBareAccount({ approved: false });
    const res = await accounts(`id[]=${b.account.id}&id[]=${newId()}&id[]=x&id[]=${pending.id}&id[]=${a.account.id}&id[]=${b.account.id}`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([b.account.id, a.account.id]);
    expect((res.body as Record<string, unknown>[])[0]).toMatchObject({ username: b.account.username, acct: b.account.username });
  });

  it('answers [] for no id, 422 for more than 40, and 403 to a token without read:accounts', async () => {
    expect(await accounts('')).toMatchObject({ status: 200, body: [] });
    const many = Array.from({ length: 41 }, () => `id[]=${newId()}`).join('&');
    expect(await accounts(many)).toMatchObject({ status: 422, body: { error: expect.stringMatching(/too many ids/) } });
    expect((await accounts(many.split('&').slice(1).join('&'))).status).toBe(200);
    const writer = await aUser({ scopes: ['write:accounts'] });
    expect((await accounts('', writer.token)).status).toBe(403);
  });
});
