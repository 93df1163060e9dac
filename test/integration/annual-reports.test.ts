// Annual reports ("Wrapstodon"): the five endpoints, the states around the campaign (December 10th to 31st), the
// generation through the annualReport queue, and the report's data checked against the statuses and follows the
// test stored for the year.
import { jest } from '@jest/globals';
import { handler as generate } from '../../functions/annual_reports/generate';
import { handler as index } from '../../functions/annual_reports/index';
import { handler as read } from '../../functions/annual_reports/read';
import { handler as show } from '../../functions/annual_reports/show';
import { handler as state } from '../../functions/annual_reports/state';
import { handler as annualReportWorker } from '../../functions/workers/annual_report';
import { archetypeOf } from '../../lib/annual_reports/compute';
import { currentCampaign } from '../../lib/annual_reports/campaign';
import { annualReportOf } from '../../lib/db/annual_reports';
import { asyncRefreshById } from '../../lib/db/async_refreshes';
import { followRecord } from '../../lib/db/follows';
import { putItem } from '../../lib/db/table';
import { indexTag } from '../../lib/db/tags';
import { newId } from '../../lib/ids';
import { registerInlineQueue, sqsEvent, type HeldMessage } from '../../lib/queue';
import { issueAccessToken } from '../../lib/tokens';
import { call } from '../support/http';
import { aBareAccount, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import type { Account } from '../../lib/db/accounts';

const YEAR = 2026;
const IN_CAMPAIGN = new Date('2026-12-15T12:00:00Z');

const held: HeldMessage[] = [];
registerInlineQueue('annualReport', (message) => held.push(message));
/** Hands the held messages to the worker, as SQS would. */
async function runWorker() {
  const messages = held.splice(0);
  for (const message of messages) {
    const res = await annualReportWorker(sqsEvent('annualReport', [message.body]));
    expect(res.batchItemFailures).toEqual([]);
  }
  return messages.length;
}

const path = (year: string, action?: string) => `/api/v1/annual_reports/${year}${action ? `/${action}` : ''}`;
const getIndex = (token?: string) => call(index, { path: '/api/v1/annual_reports', token });
const getShow = (token: string, year: string) => call(show, { path: path(year), pathParameters: { year }, token });
const getState = (token: string, year: string) => call(state, { path: path(year, 'state'), pathParameters: { year }, token });
const postGenerate = (token: string, year: string) => call(generate, { method: 'POST', path: path(year, 'generate'), pathParameters: { year }, token });
const postRead = (token: string, year: string) => call(read, { method: 'POST', path: path(year, 'read'), pathParameters: { year }, token });

/** A status of `author` minted at `at` (its id and its creation time), stored as posting stores it. */
const statusAt = (author: Account, at: string, overrides: Parameters<typeof aStoredStatus>[1] = {}) =>
  aStoredStatus(author, { id: newId(new Date(at)), createdAt: new Date(at).toISOString(), ...overrides });
/** A follow edge made at `at`. */
const followAt = (follower: Account, followed: Account, at: string) =>
  putItem(followRecord({ id: newId(new Date(at)), followerId: follower.id, followedId: followed.id, showReblogs: true, notify: false, createdAt: new Date(at).toISOString() }));

/** Refresh id of a `Mastodon-Async-Refresh` header. */
const refreshIdOf = (header: string | undefined) => /^id="([^"]+)", retry=2, result_count=0$/.exec(header ?? '')?.[1];

describe('annual reports', () => {
  let user: UserFixture;
  let other: UserFixture;
  const made: Record<string, string> = {};

  // Tags of this run alone: a tag's name as first used here is instance-wide.
  const run = Date.now().toString(36);
  const [cats, rust, dogs] = [`cats${run}`, `rust${run}`, `dogs${run}`];

  beforeAll(async () => {
    // Date alone is faked: the campaign runs in December, and the clock decides it.
    jest.useFakeTimers({
      now: IN_CAMPAIGN,
      doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
    });
    [user, other] = await Promise.all([aUser(), aUser()]);
    const someone = await aBareAccount();
    const a = user.account;

    // January: three posts, two tagged #Cats, one a self-reply (a thread).
    const first = await statusAt(a, '2026-01-05T10:00:00Z', { tags: [cats], tagNames: [`Cats${run}`] });
    await statusAt(a, '2026-01-20T10:00:00Z', { tags: [cats], tagNames: [`CATS${run}`], inReplyToId: first.id, inReplyToAccountId: a.id });
    await statusAt(a, '2026-01-31T23:59:59Z', { tags: [rust], tagNames: [rust] });
    // March: the most reblogged (also the most favourited), the second most favourited, and #Cats again.
    made.byReblogs = (await statusAt(a, '2026-03-02T08:00:00Z', { reblogsCount: 5, favouritesCount: 9, repliesCount: 1, tags: [cats], tagNames: [cats] })).id;
    made.byFavourites = (await statusAt(a, '2026-03-03T08:00:00Z', { favouritesCount: 7, tags: [rust], tagNames: [rust] })).id;
    // A private status with more of everything is no top status (only public ones are).
    await statusAt(a, '2026-03-04T08:00:00Z', { visibility: 'private', reblogsCount: 50, favouritesCount: 50, repliesCount: 50 });
    // May: a reply to someone else (the most replied) and a reblog.
    made.byReplies = (await statusAt(a, '2026-05-10T08:00:00Z', { inReplyToId: newId(), inReplyToAccountId: someone.id, repliesCount: 3 })).id;
    const theirs = await statusAt(someone, '2026-05-11T08:00:00Z');
    await statusAt(a, '2026-05-12T08:00:00Z', { reblogOfId: theirs.id, text: '', contentHtml: '' });
    // December (#dogs once this year: no top hashtag), and the years around: only 2026 counts.
    await statusAt(a, '2026-12-01T00:00:00Z', { tags: [dogs], tagNames: [dogs] });
    await statusAt(a, '2025-12-31T23:59:59Z', { tags: [dogs], tagNames: [dogs], reblogsCount: 99 });
    await statusAt(a, '2027-01-01T00:00:00Z', { tags: [dogs], tagNames: [dogs] });
    // Another's statuses never count.
    await statusAt(other.account, '2026-02-01T00:00:00Z', { tags: [cats], reblogsCount: 100 });

    // Follows: one made in April, followers gained in June (two) and in 2025 (not counted).
    const [b, c, d, e] = await Promise.all([aBareAccount(), aBareAccount(), aBareAccount(), aBareAccount()]);
    await followAt(a, b, '2026-04-10T12:00:00Z');
    await followAt(c, a, '2026-06-01T12:00:00Z');
    await followAt(d, a, '2026-06-20T12:00:00Z');
    await followAt(e, a, '2025-11-11T12:00:00Z');
    // The tag's name as first used on this instance wins over a status's spelling.
    await indexTag(rust, `Rust${run}`);
  }, 60_000);

  afterAll(() => {
    jest.useRealTimers();
  });

  it('opens the campaign from December 10th to the end of the year', () => {
    expect(currentCampaign(new Date('2026-12-09T23:59:59Z'))).toBeNull();
    expect(currentCampaign(new Date('2026-12-10T00:00:00Z'))).toBe(2026);
    expect(currentCampaign(new Date('2026-12-31T23:59:59Z'))).toBe(2026);
    expect(currentCampaign(new Date('2027-01-01T00:00:00Z'))).toBeNull();
    expect(currentCampaign(new Date('2026-06-15T00:00:00Z'))).toBeNull();
  });

  it('says eligible only for the campaign’s year, during the campaign', async () => {
    jest.setSystemTime(new Date('2026-12-05T12:00:00Z'));
    try {
      expect((await getState(other.token, '2026')).body).toEqual({ state: 'ineligible' });
      // Outside the campaign nothing is generated either.
      const res = await postGenerate(other.token, '2026');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(held).toHaveLength(0);
    } finally {
      jest.setSystemTime(IN_CAMPAIGN);
    }
    const res = await getState(other.token, '2026');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ state: 'eligible' });
    expect(res.headers['mastodon-async-refresh']).toBeUndefined();
    expect((await getState(other.token, '2025')).body).toEqual({ state: 'ineligible' });
    // Not a year: nothing to have, as Mastodon's `params[:id].to_i` is 0.
    expect((await getState(other.token, 'abc')).body).toEqual({ state: 'ineligible' });
  });

  it('generates only the campaign’s year: another year answers 200 and queues nothing', async () => {
    for (const year of ['2025', 'abc', '99999']) {
      const res = await postGenerate(other.token, year);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
    }
    expect(held).toHaveLength(0);
  });

  it('generates once: 202 while it runs (twice asked, one generation), then available and 200', async () => {
    const started = await postGenerate(user.token, '2026');
    expect(started.status).toBe(202);
    expect(started.text).toBe('');
    const refreshId = refreshIdOf(started.headers['mastodon-async-refresh']);
    expect(refreshId).toBeDefined();
    expect((await asyncRefreshById(refreshId!))?.status).toBe('running');

    const generating = await getState(user.token, '2026');
    expect(generating.body).toEqual({ state: 'generating' });
    expect(refreshIdOf(generating.headers['mastodon-async-refresh'])).toBe(refreshId);

    const again = await postGenerate(user.token, '2026');
    expect(again.status).toBe(202);
    expect(refreshIdOf(again.headers['mastodon-async-refresh'])).toBe(refreshId);
    // Nothing readable until the worker ran.
    expect((await getShow(user.token, '2026')).status).toBe(404);

    expect(await runWorker()).toBe(1);
    expect((await asyncRefreshById(refreshId!))?.status).toBe('finished');
    const available = await getState(user.token, '2026');
    expect(available.body).toEqual({ state: 'available' });
    expect(available.headers['mastodon-async-refresh']).toBeUndefined();

    const done = await postGenerate(user.token, '2026');
    expect(done.status).toBe(200);
    expect(done.body).toEqual({});
    expect(held).toHaveLength(0);
  });

  it('a duplicate message changes nothing: the stored report stays as first made', async () => {
    const before = await annualReportOf(user.account.id, YEAR);
    expect(before).toBeDefined();
    const res = await annualReportWorker(sqsEvent('annualReport', [{ accountId: user.account.id, year: YEAR, refreshId: 'duplicate' }]));
    expect(res.batchItemFailures).toEqual([]);
    expect(await annualReportOf(user.account.id, YEAR)).toEqual(before);
  });

  it('reports the year from the statuses and follows stored for it', async () => {
    const res = await getShow(user.token, '2026');
    expect(res.status).toBe(200);
    const report = res.body.annual_reports[0];
    expect(Object.keys(res.body)).toEqual(['annual_reports', 'accounts', 'statuses']);
    expect(res.body.annual_reports).toHaveLength(1);
    expect(Object.keys(report)).toEqual(['year', 'data', 'schema_version', 'share_url', 'account_id']);
    expect(report).toMatchObject({ year: 2026, schema_version: 2, share_url: null, account_id: user.account.id });

    const series = report.data.time_series as { month: number; statuses: number; followers: number; following: number }[];
    expect(series.map((m) => m.month)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(series.map((m) => m.statuses)).toEqual([3, 0, 3, 0, 2, 0, 0, 0, 0, 0, 0, 1]);
    expect(series.map((m) => m.following)).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(series.map((m) => m.followers)).toEqual([0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]);
    expect(Object.keys(series[0]!)).toEqual(['month', 'statuses', 'followers', 'following']);

    // #cats three times (named as first spelled), #rust twice (named as the instance knows it); #dogs once this year.
    expect(report.data.top_hashtags).toEqual([{ name: `Cats${run}`, count: 3 }, { name: `Rust${run}`, count: 2 }]);
    // The most reblogged is also the most favourited: the favourites' pick is the next one.
    expect(report.data.top_statuses).toEqual({ by_reblogs: made.byReblogs, by_replies: made.byReplies, by_favourites: made.byFavourites });
    // Nine posts in the year, fewer than Mastodon's yearly average.
    expect(report.data.archetype).toBe('lurker');
    expect(Object.keys(report.data)).toEqual(['archetype', 'time_series', 'top_hashtags', 'top_statuses']);

    expect(res.body.accounts).toEqual([]);
    expect((res.body.statuses as { id: string }[]).map((s) => s.id).sort()).toEqual([made.byReblogs, made.byReplies, made.byFavourites].sort());
    const top = (res.body.statuses as { id: string; reblogs_count: number; account: { id: string } }[]).find((s) => s.id === made.byReblogs);
    expect(top).toMatchObject({ reblogs_count: 5, account: { id: user.account.id } });
  });

  it('lists the caller’s reports until read; a read report is still shown by year', async () => {
    const listed = await getIndex(user.token);
    expect(listed.status).toBe(200);
    expect(listed.body.annual_reports.map((r: { year: number }) => r.year)).toEqual([2026]);
    expect(listed.body.statuses).toHaveLength(3);

    const res = await postRead(user.token, '2026');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await getIndex(user.token)).body).toEqual({ annual_reports: [], accounts: [], statuses: [] });
    expect((await getShow(user.token, '2026')).status).toBe(200);
    // Read again: still fine, as Mastodon touches viewed_at again.
    expect((await postRead(user.token, '2026')).status).toBe(200);
  });

  it('shows no one else’s report', async () => {
    expect((await getIndex(other.token)).body).toEqual({ annual_reports: [], accounts: [], statuses: [] });
    const shown = await getShow(other.token, '2026');
    expect(shown.status).toBe(404);
    expect(shown.body).toEqual({ error: 'Record not found' });
    expect((await postRead(other.token, '2026')).status).toBe(404);
    // Its state is its own: eligible, though the user's report exists.
    expect((await getState(other.token, '2026')).body).toEqual({ state: 'eligible' });
  });

  it('answers 404 for a year without a report, or not a year', async () => {
    for (const year of ['2025', 'abc', '0', '2026.5']) {
      const shown = await getShow(user.token, year);
      expect(shown.status).toBe(404);
      expect(shown.body).toEqual({ error: 'Record not found' });
      expect((await postRead(user.token, year)).status).toBe(404);
    }
  });

  it('asks for Mastodon’s scopes: read:accounts to read, write:accounts to generate and mark read', async () => {
    const writeOnly = (await issueAccessToken(user.app, user.account.id, ['write:accounts'])).raw;
    const readOnly = (await issueAccessToken(user.app, user.account.id, ['read:accounts'])).raw;
    expect((await getIndex(writeOnly)).status).toBe(403);
    expect((await getShow(writeOnly, '2026')).status).toBe(403);
    expect((await getState(writeOnly, '2026')).status).toBe(403);
    expect((await postGenerate(readOnly, '2026')).status).toBe(403);
    expect((await postRead(readOnly, '2026')).status).toBe(403);
    expect((await getIndex(readOnly)).status).toBe(200);
    expect((await postRead(writeOnly, '2026')).status).toBe(200);
    expect((await getIndex(undefined)).status).toBe(401);
  });

  it('names the archetype as Mastodon does from the year’s counts', () => {
    expect(archetypeOf({ standalone: 100, replies: 5, reblogs: 7, polls: 0 })).toBe('lurker');
    expect(archetypeOf({ standalone: 40, replies: 0, reblogs: 81, polls: 0 })).toBe('booster');
    expect(archetypeOf({ standalone: 100, replies: 10, reblogs: 10, polls: 11 })).toBe('pollster');
    expect(archetypeOf({ standalone: 40, replies: 81, reblogs: 0, polls: 0 })).toBe('replier');
    expect(archetypeOf({ standalone: 100, replies: 10, reblogs: 10, polls: 10 })).toBe('oracle');
  });
});
