import { updateInstanceSettings } from '../../lib/db/instance';
import { handler as create } from '../../functions/statuses/create';
import { handler as trends } from '../../functions/trends/index';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { processFanout } from '../../functions/workers/fanout';
import { dayOf, recordTagUses, tagCounted, tagsUsedOn } from '../../lib/db/tags';
import type { Status } from '../../lib/db/statuses';
import { tagUseReach } from '../../lib/policy';
import { tagNamesOf } from '../../lib/text/tags';
import { registerInlineWorker } from '../../lib/queue';
import { newId } from '../../lib/ids';
import { call } from '../support/http';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';

/** Counts a status's tags as the fan-out does: as far as its visibility reaches. */
const countTagUses = (status: Status) => recordTagUses(status, tagUseReach(status), tagNamesOf(status));

registerInlineWorker('fanout', fanoutWorker);

// These trends are about counting and ranking, not review: unreviewed items show, as with Mastodon's
// trendable_by_default on (off by default; the review itself is test/integration/admin-trends.test.ts).
beforeAll(async () => {
  await updateInstanceSettings({ trendableByDefault: true });
});

const DAY = 24 * 60 * 60 * 1000;
const midnight = (at: Date) => String(Math.floor(Date.parse(`${dayOf(at)}T00:00:00Z`) / 1000));
const post = async (user: UserFixture, status: string, visibility = 'public') => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: { status, visibility }, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const getTrends = (query: Record<string, string> = {}) => call(trends, { path: '/api/v1/trends', query });

describe('hashtag usage counters and GET /api/v1/trends', () => {
  let users: UserFixture[];
  const today = dayOf(new Date());

  beforeAll(async () => {
    users = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
  });

  it('counts uses and distinct accounts per tag per day when a public status is posted', async () => {
    const [a, b] = users as [UserFixture, UserFixture];
    await post(a, 'first #Counting post');
    await post(a, 'second #counting post');
    await post(b, 'hello #COUNTING');
    const day = (await tagsUsedOn([today])).get(today);
    expect(day?.get('counting')).toEqual({ tag: 'counting', name: 'Counting', uses: 3, accounts: 2, servers: 1 });
  });

  it('counts nothing for private or direct statuses in trends, and a status only once if the fan-out runs twice', async () => {
    const [a] = users as [UserFixture];
    await post(a, 'quiet #hushhush', 'private');
    await post(a, 'secret #hushhush', 'direct');
    expect((await tagsUsedOn([today])).get(today)?.has('hushhush')).toBe(false);

    const { id } = await post(a, 'twice #onlyonce');
    expect(await tagCounted(id)).toBe(true);
    await processFanout({ type: 'create', statusId: id });
    expect((await tagsUsedOn([today])).get(today)?.get('onlyonce')).toMatchObject({ uses: 1, accounts: 1 });
  });

  it('lists a tag used by several accounts today with 7 days of history, and not a tag used as usual', async () => {
    const [a, b, c, d] = users as [UserFixture, UserFixture, UserFixture, UserFixture];
    // #steady: one account every day of the past week, and today: not more than usual.
    for (let i = 1; i <= 7; i++) {
      const at = new Date(Date.now() - i * DAY);
      await countTagUses(await aStoredStatus(a.account, { id: newId(at), createdAt: at.toISOString(), text: '#steady', tags: ['steady'] }));
    }
    await post(a, 'as always #steady');
    // #Surge: four accounts today, nothing before.
    for (const u of [a, b, c, d]) await post(u, 'look #Surge');
    // #small: two accounts today.
    for (const u of [a, b]) await post(u, 'hm #small');

    const res = await getTrends();
    expect(res.status).toBe(200);
    const names = (res.body as { name: string }[]).map((t) => t.name);
    // Surge scores (4-1)²/1; Counting and small (2-1)²/1, Counting first by more uses.
    expect(names.slice(0, 3)).toEqual(['Surge', 'Counting', 'small']);
    expect(names).not.toContain('steady');
    const surge = (res.body as Record<string, unknown>[])[0];
    expect(surge).toMatchObject({ name: 'Surge', url: expect.stringMatching(/\/tags\/Surge$/) });
    const history = surge?.history as { day: string; uses: string; accounts: string }[];
    expect(history).toHaveLength(7);
    expect(history[0]).toEqual({ day: midnight(new Date()), uses: '4', accounts: '4' });
    expect(history[1]).toEqual({ day: midnight(new Date(Date.now() - DAY)), uses: '0', accounts: '0' });

    const limited = await getTrends({ limit: '1' });
    expect((limited.body as { name: string }[]).map((t) => t.name)).toEqual(['Surge']);
  });

  it.each([
    ['a non-numeric limit', { limit: 'many' }],
    ['a fractional limit', { limit: '1.5' }],
  ])('answers 422 for %s', async (_, query) => {
    const res = await getTrends(query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringContaining('Validation failed') });
  });

  it('caps limit at 20', async () => {
    for (let i = 0; i < 22; i++) {
      for (const u of users.slice(0, 2)) await countTagUses(await aStoredStatus(u.account, { text: `#cap${i}`, tags: [`cap${i}`] }));
    }
    const res = await getTrends({ limit: '50' });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(20);
  });
});

describe('GET /api/v1/trends bad input (audit)', () => {
  it.each([
    ['a negative limit', { limit: '-1' }],
    ['an overflowing limit', { limit: '1e400' }],
    ['a limit given twice', 'limit=1&limit=2'],
    ['a limit given as an object', 'limit[a]=1'],
  ])('answers 422 for %s', async (_, query) => {
    const res = await call(trends, { path: '/api/v1/trends', query });
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
  });

  it('is public: an invalid token is not looked at, and reading counts nothing', async () => {
    const today = dayOf(new Date());
    const before = (await tagsUsedOn([today])).get(today);
    const anonymous = await getTrends({ limit: '5' });
    const withBadToken = await call(trends, { path: '/api/v1/trends', query: { limit: '5' }, token: 'not-a-token' });
    expect(anonymous.status).toBe(200);
    expect([withBadToken.status, withBadToken.body]).toEqual([200, anonymous.body]);
    expect((await tagsUsedOn([today])).get(today)).toEqual(before);
  });
});
