// What a viewer has to hide, known from its account (lib/db/viewer_summary.ts): a read skips
// the block, blocked-by, mute and filter partitions its account says are empty, and each
// write that makes the first one marks the account in its own transaction, so the next read
// asks again. Driven through the real endpoints; the public timeline applies all four on read.
import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as mute } from '../../functions/accounts/mute';
import { handler as block } from '../../functions/accounts/block';
import { handler as createFilter } from '../../functions/filters/create';
import { handler as createDomainBlock } from '../../functions/domain_blocks/create';
import { handler as bookmark } from '../../functions/statuses/bookmark';
import { handler as muteThread } from '../../functions/statuses/mute';
import { handler as showStatus } from '../../functions/statuses/show';
import { accountById } from '../../lib/db/accounts';
import { call } from '../support/http';
import { aPostedStatus, aRemoteAccount, aUser } from '../support/factories';

const publicIds = async (token: string) => {
  const res = await call(publicTimeline, { path: '/api/v1/timelines/public', query: { limit: '40' }, token });
  expect(res.status).toBe(200);
  return { ids: (res.body as { id: string }[]).map((s) => s.id), calls: Number(res.headers['x-db-calls']) };
};

beforeAll(() => {
  process.env.EXPOSE_METRICS = '1';
});
afterAll(() => {
  delete process.env.EXPOSE_METRICS;
});

describe('the viewer summary on the account', () => {
  it('a new account has nothing to hide, and a read of it asks none of the four partitions', async () => {
    const viewer = await aUser();
    const account = await accountById(viewer.account.id);
    expect(account).toMatchObject({ hidesTracked: true, hasBlocks: false, hasBlockedBy: false, hasMutes: false, hasFilters: false });
  });

  it('a mute marks the muting account; the next read leaves the muted author out', async () => {
    const [viewer, loud, other] = await Promise.all([aUser(), aUser(), aUser()]);
    const noisy = await aPostedStatus(loud.account, { text: 'noise' });
    await aPostedStatus(other.account, { text: 'calm' });
    const before = await publicIds(viewer.token);
    expect(before.ids).toContain(noisy.id);
    const res = await call(mute, { method: 'POST', path: `/api/v1/accounts/${loud.account.id}/mute`, pathParameters: { id: loud.account.id }, token: viewer.token });
    expect(res.status).toBe(200);
    expect(await accountById(viewer.account.id)).toMatchObject({ hasMutes: true, hasBlocks: false });
    expect((await publicIds(viewer.token)).ids).not.toContain(noisy.id);
  });

  it('a block marks both accounts: the blocked one no longer sees the blocker', async () => {
    const [blocker, blocked] = await Promise.all([aUser(), aUser()]);
    const post = await aPostedStatus(blocker.account, { text: 'not for you' });
    expect((await publicIds(blocked.token)).ids).toContain(post.id);
    const res = await call(block, { method: 'POST', path: `/api/v1/accounts/${blocked.account.id}/block`, pathParameters: { id: blocked.account.id }, token: blocker.token });
    expect(res.status).toBe(200);
    expect(await accountById(blocker.account.id)).toMatchObject({ hasBlocks: true, hasBlockedBy: false });
    expect(await accountById(blocked.account.id)).toMatchObject({ hasBlockedBy: true, hasBlocks: false });
    expect((await publicIds(blocked.token)).ids).not.toContain(post.id);
  });

  it('a domain block marks the account: statuses from the domain are left out', async () => {
    const viewer = await aUser();
    const { account: remote } = await aRemoteAccount({ domain: 'far.example' });
    const far = await aPostedStatus(remote, { text: 'from afar' });
    expect((await publicIds(viewer.token)).ids).toContain(far.id);
    const res = await call(createDomainBlock, { method: 'POST', path: '/api/v1/domain_blocks', json: { domain: 'far.example' }, token: viewer.token });
    expect(res.status).toBe(200);
    expect(await accountById(viewer.account.id)).toMatchObject({ hasBlocks: true });
    expect((await publicIds(viewer.token)).ids).not.toContain(far.id);
  });

  it('a first filter marks the account: its hide filter applies on the next read', async () => {
    const [viewer, author] = await Promise.all([aUser(), aUser()]);
    const spoiler = await aPostedStatus(author.account, { text: 'the butler did it', contentHtml: '<p>the butler did it</p>' });
    expect((await publicIds(viewer.token)).ids).toContain(spoiler.id);
    const res = await call(createFilter, {
      method: 'POST',
      path: '/api/v1/filters',
      json: { phrase: 'butler', context: ['public'], irreversible: true },
      token: viewer.token,
    });
    expect(res.status).toBe(200);
    expect(await accountById(viewer.account.id)).toMatchObject({ hasFilters: true });
    expect((await publicIds(viewer.token)).ids).not.toContain(spoiler.id);
  });

  it('a first bookmark and a first thread mute mark the account: the flags show at once and on every later read', async () => {
    const [viewer, author] = await Promise.all([aUser(), aUser()]);
    const status = await aPostedStatus(author.account, { text: 'keep this' });
    const path = (verb: string) => `/api/v1/statuses/${status.id}/${verb}`;
    const show = async () => (await call(showStatus, { path: `/api/v1/statuses/${status.id}`, pathParameters: { id: status.id }, token: viewer.token })).body;
    expect(await show()).toMatchObject({ bookmarked: false, muted: false });
    const marked = await call(bookmark, { method: 'POST', path: path('bookmark'), pathParameters: { id: status.id }, token: viewer.token });
    expect(marked.body).toMatchObject({ id: status.id, bookmarked: true });
    const muted = await call(muteThread, { method: 'POST', path: path('mute'), pathParameters: { id: status.id }, token: viewer.token });
    expect(muted.body).toMatchObject({ id: status.id, bookmarked: true, muted: true });
    expect(await accountById(viewer.account.id)).toMatchObject({ hasBookmarks: true, hasConversationMutes: true });
    expect(await show()).toMatchObject({ bookmarked: true, muted: true });
  });

  it('a page for a viewer without bookmarks or thread mutes reads two flags per status, not four', async () => {
    const [viewer, author] = await Promise.all([aUser(), aUser()]);
    for (let i = 0; i < 5; i++) await aPostedStatus(author.account, { text: `status ${i}` });
    const read = async () => Number((await call(publicTimeline, { path: '/api/v1/timelines/public', query: { limit: '5' }, token: viewer.token })).headers['x-db-read-units']);
    const lean = await read();
    const status = await aPostedStatus(author.account, { text: 'to keep' });
    await call(bookmark, { method: 'POST', path: `/api/v1/statuses/${status.id}/bookmark`, pathParameters: { id: status.id }, token: viewer.token });
    await aPostedStatus(author.account, { text: 'pushes the bookmarked one off the page' });
    for (let i = 0; i < 5; i++) await aPostedStatus(author.account, { text: `later ${i}` });
    // Five more keys now (a bookmark flag per status), each a half read unit at least.
    expect(await read()).toBeGreaterThanOrEqual(lean + 2.5);
  });

  it('an account made before the summary (not tracked) is read in full, as before', async () => {
    const { updateItem } = await import('../../lib/db/table');
    const keys = await import('../../lib/db/keys');
    const { accountItem } = await import('../../lib/db/accounts');
    const viewer = await aUser();
    const tracked = await publicIds(viewer.token);
    await updateItem({ Key: keys.account(viewer.account.id), UpdateExpression: 'REMOVE hidesTracked' }, accountItem);
    const untracked = await publicIds(viewer.token);
    expect(untracked.calls).toBe(tracked.calls + 4);
  });
});
