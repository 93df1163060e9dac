// Requests that touch the same items at the same moment, through the real
// handlers, on the local transaction layer that conflicts as DynamoDB does: none
// of them may fail for the collision, and every counter ends exact.
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as deleteStatus } from '../../functions/statuses/delete';
import { handler as favourite } from '../../functions/statuses/favourite';
import { handler as follow } from '../../functions/accounts/follow';
import { handler as register } from '../../functions/accounts/create';
import { handler as instance } from '../../functions/instance/show';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { dynamo } from '../../lib/aws';
import { accountById } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import { statusById } from '../../lib/db/statuses';
import { countAuthorPosted } from '../../lib/db/status_writes';
import { registerInlineWorker } from '../../lib/queue';
import { anAppToken, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

// What follows a write (fan-out, notifications) runs through the real workers, as on the local stack.
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = (user: UserFixture, text: string) =>
  call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: text, visibility: 'public' }, token: user.token });
const instanceStatusCount = async (): Promise<number> => (await call(instance, { path: '/api/v1/instance' })).body.stats.status_count;
const instanceUserCount = async (): Promise<number> => (await call(instance, { path: '/api/v1/instance' })).body.stats.user_count;
const users = (n: number) => Promise.all(Array.from({ length: n }, () => aUser()));

describe('concurrent writes to shared items', () => {
  it('two accounts posting at the same moment both succeed, and every count is exact', async () => {
    const [alice, bob] = await users(2);
    const before = await instanceStatusCount();

    const answers = await Promise.all([post(alice!, 'at the same moment'), post(bob!, 'at the same moment')]);

    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect((await accountById(alice!.account.id))?.statusesCount).toBe(1);
    expect((await accountById(bob!.account.id))?.statusesCount).toBe(1);
    expect(await instanceStatusCount()).toBe(before + 2);
  });

  it('ten accounts posting at once all succeed and the instance counts ten statuses', async () => {
    const authors = await users(10);
    const before = await instanceStatusCount();

    const answers = await Promise.all(authors.map((u, i) => post(u, `post ${i}`)));

    expect(answers.map((a) => a.status)).toEqual(authors.map(() => 200));
    expect(await instanceStatusCount()).toBe(before + 10);
  });

  it('one account posting twice at once: both succeed and its statuses_count is 2', async () => {
    const [carol] = await users(1);
    const answers = await Promise.all([post(carol!, 'first'), post(carol!, 'second')]);

    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(2);
    expect((await accountById(carol!.account.id))?.statusesCount).toBe(2);
  });

  it('one account posting ten times at once: no post is refused for another, none retried, and the counts are exact', async () => {
    const [author] = await users(1);
    const transactions: number[] = [];
    const stop = dynamo().observe((op) => {
      if (op === 'TransactWriteItems') transactions.push(1);
    });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post(author!, `burst ${i}`)));
    stop();

    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    // One transaction per post: the posts share no item (the author's counters are a single-item update after it).
    expect(transactions).toHaveLength(10);
    const stored = await accountById(author!.account.id);
    expect(stored?.statusesCount).toBe(10);
    const newest = answers.map((a) => a.body.created_at as string).sort().at(-1);
    expect(stored?.lastStatusAt).toBe(newest);
    // Each answer shows the author as its own update left it: ten different counts, 1 to 10.
    expect(answers.map((a) => a.body.account.statuses_count as number).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("two posts' author updates landing out of order: lastStatusAt stays the later post's, both are counted", async () => {
    const [author] = await users(1);
    await countAuthorPosted(author!.account.id, '2026-01-02T00:00:00.000Z');
    await countAuthorPosted(author!.account.id, '2026-01-01T00:00:00.000Z');
    expect(await accountById(author!.account.id)).toMatchObject({ statusesCount: 2, lastStatusAt: '2026-01-02T00:00:00.000Z' });
    await countAuthorPosted(author!.account.id, '2026-01-03T00:00:00.000Z');
    expect(await accountById(author!.account.id)).toMatchObject({ statusesCount: 3, lastStatusAt: '2026-01-03T00:00:00.000Z' });
  });

  it('deleting two statuses at once counts both off the instance', async () => {
    const [dave] = await users(1);
    const posted = await Promise.all([post(dave!, 'one'), post(dave!, 'two')]);
    const before = await instanceStatusCount();

    const answers = await Promise.all(posted.map((p) =>
      call(deleteStatus, { method: 'DELETE', path: `/api/v1/statuses/${p.body.id}`, pathParameters: { id: p.body.id }, token: dave!.token })));

    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(await instanceStatusCount()).toBe(before - 2);
    expect((await accountById(dave!.account.id))?.statusesCount).toBe(0);
  });

  it('24 accounts favouriting one status at once all succeed and favourites_count is 24', async () => {
    const [author] = await users(1);
    const status = await aStoredStatus(author!.account);
    const fans = await users(24);

    const answers = await Promise.all(fans.map((fan) =>
      call(favourite, { method: 'POST', path: `/api/v1/statuses/${status.id}/favourite`, pathParameters: { id: status.id }, token: fan.token })));

    expect(answers.map((a) => a.status)).toEqual(fans.map(() => 200));
    expect((await statusById(status.id))?.favouritesCount).toBe(24);
  });

  it('twelve accounts following one account at once all succeed and its followers_count is 12', async () => {
    const [star] = await users(1);
    const followers = await users(12);

    const answers = await Promise.all(followers.map((f) =>
      call(follow, { method: 'POST', path: `/api/v1/accounts/${star!.account.id}/follow`, pathParameters: { id: star!.account.id }, token: f.token })));

    expect(answers.map((a) => a.status)).toEqual(followers.map(() => 200));
    expect((await accountById(star!.account.id))?.followersCount).toBe(12);
  });

  it('five sign-ups at once all succeed and the instance counts each', async () => {
    await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
    const { token } = await anAppToken(['read', 'write']);
    const before = await instanceUserCount();
    const stamp = Date.now().toString(36);

    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => call(register, {
      method: 'POST',
      path: '/api/v1/accounts',
      json: { username: `burst_${stamp}_${i}`, email: `burst_${stamp}_${i}@example.com`, password: 'hunter2hunter2', agreement: true, locale: 'en' },
      token,
      sourceIp: `203.0.113.${i + 1}`,
    })));

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await instanceUserCount()).toBe(before + 5);
  });
});
