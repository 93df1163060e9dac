import { readFileSync } from 'node:fs';
import type { ScheduledEvent } from 'aws-lambda';
import { z } from 'zod';
import { handler as index } from '../../functions/notifications/index';
import { handler as sweep, run } from '../../functions/sweeper/sweep';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { notificationItem } from '../../lib/db/notifications';
import { deletePollItems, expiryMinute, type Poll } from '../../lib/db/polls';
import { getItem, queryAll, transact } from '../../lib/db/table';
import { minuteOf } from '../../lib/notifications/polls';
import { registerInlineWorker } from '../../lib/queue';
import { aStoredPoll, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('notify', notifyWorker);

/** The sample event, fired at `at` (EventBridge writes its time to the second): the sweeper judges due-ness by it. */
const scheduledEvent = (at: number = Date.now()): ScheduledEvent => ({
  ...JSON.parse(readFileSync(new URL('../../events/schedule.json', import.meta.url), 'utf8')),
  time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
});

const MINUTE = 60_000;

const pollNotifications = async (account: Account) =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.notificationsPartition(account.id) } }, notificationItem)).filter(
    (n) => n.type === 'poll',
  );

const bucketEntry = (poll: Poll) => getItem(keys.pollExpiry(expiryMinute(poll.expiresAt), poll.id), z.unknown());
const watermark = () => getItem(keys.sweeperWatermark('POLLS'), z.object({ lastMinute: z.string() }), true);

describe('the poll sweeper (EventBridge schedule)', () => {
  let author: UserFixture;
  let voter: UserFixture;
  let otherVoter: UserFixture;
  let bystander: UserFixture;
  beforeAll(async () => {
    [author, voter, otherVoter, bystander] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
  });

  it('on its first run closes the polls that ended in the last day: voters and the author are notified once, the bucket entry goes', async () => {
    const now = Date.now();
    const ended = await aStoredPoll(author.account, { expiresAt: new Date(now - 2 * MINUTE), voters: [voter.account, otherVoter.account] });
    const endedHoursAgo = await aStoredPoll(author.account, { expiresAt: new Date(now - 5 * 60 * MINUTE), voters: [voter.account] });
    const running = await aStoredPoll(author.account, { expiresAt: new Date(now + 2 * 60 * MINUTE), voters: [voter.account] });
    const tooOld = await aStoredPoll(author.account, { expiresAt: new Date(now - 2 * 24 * 60 * MINUTE), voters: [otherVoter.account] });

    const result = await sweep(scheduledEvent());
    expect(result.polls.closed).toBe(2);
    expect(result.polls.buckets).toBe(24 * 60);
    expect([minuteOf(now - MINUTE), minuteOf(now)]).toContain(result.polls.watermark);
    expect((await watermark())?.lastMinute).toBe(result.polls.watermark);

    const voterNotes = await pollNotifications(voter.account);
    expect(voterNotes.map((n) => n.statusId).sort()).toEqual([ended.status.id, endedHoursAgo.status.id].sort());
    expect(voterNotes.every((n) => n.fromAccountId === author.account.id)).toBe(true);
    expect((await pollNotifications(otherVoter.account)).map((n) => n.statusId)).toEqual([ended.status.id]);
    expect((await pollNotifications(author.account)).map((n) => n.statusId).sort()).toEqual([ended.status.id, endedHoursAgo.status.id].sort());
    expect(await pollNotifications(bystander.account)).toEqual([]);

    expect(await bucketEntry(ended.poll)).toBeUndefined();
    expect(await bucketEntry(endedHoursAgo.poll)).toBeUndefined();
    expect(await bucketEntry(running.poll)).toBeDefined();
    // Older than the first run's look-back: left alone.
    expect(await bucketEntry(tooOld.poll)).toBeDefined();

    // The voter sees the ended poll in the Mastodon shape.
    const res = await call(index, { path: '/api/v1/notifications', query: { types: ['poll'] }, token: voter.token });
    expect(res.status).toBe(200);
    const shown = res.body.find((n: { status: { id: string } }) => n.status.id === ended.status.id);
    expect(shown).toMatchObject({ type: 'poll', account: { id: author.account.id }, status: { poll: { id: ended.poll.id, expired: true, voted: true, own_votes: [0] } } });
    // A first run reads a whole day of minute buckets (1,440 queries and 90 watermark writes): seconds alone, past
    // jest's 30 s on a machine busy with other suites (seen in a full run).
  }, 120_000);

  it('reads only the minutes since its watermark, and a repeated run notifies nobody twice', async () => {
    const before = (await pollNotifications(voter.account)).length;
    const again = await sweep(scheduledEvent());
    expect(again.polls.closed).toBe(0);
    expect(again.polls.buckets).toBeLessThanOrEqual(3);
    expect(await pollNotifications(voter.account)).toHaveLength(before);
  });

  it('closes a poll ending later in the current minute on a later run, and skips polls whose status was deleted', async () => {
    // A fixed instant half-way through a minute, ahead of the watermark.
    const at = Math.floor((Date.now() + 30 * MINUTE) / MINUTE) * MINUTE + 30_000;
    const early = await aStoredPoll(author.account, { expiresAt: new Date(at - 10_000), voters: [voter.account] });
    const late = await aStoredPoll(author.account, { expiresAt: new Date(at + 10_000), voters: [otherVoter.account] });
    const deleted = await aStoredPoll(author.account, { expiresAt: new Date(at - 20_000), voters: [bystander.account] });
    const gone = await transact([...deletePollItems(deleted.poll).slice(0, 1), { Delete: { Key: keys.status(deleted.status.id) } }]);
    expect(gone.ok).toBe(true);

    const first = await run(at);
    expect(first.polls.closed).toBe(1);
    expect(first.polls.watermark).toBe(minuteOf(at - MINUTE));
    expect((await pollNotifications(voter.account)).some((n) => n.statusId === early.status.id)).toBe(true);
    expect((await pollNotifications(otherVoter.account)).some((n) => n.statusId === late.status.id)).toBe(false);
    expect(await bucketEntry(late.poll)).toBeDefined();
    expect(await bucketEntry(deleted.poll)).toBeUndefined();
    expect(await pollNotifications(bystander.account)).toEqual([]);

    const second = await run(at + 20_000);
    expect(second.polls.closed).toBe(1);
    expect(second.polls.buckets).toBe(1);
    expect((await pollNotifications(otherVoter.account)).some((n) => n.statusId === late.status.id)).toBe(true);
    expect(await bucketEntry(late.poll)).toBeUndefined();
  });
});
