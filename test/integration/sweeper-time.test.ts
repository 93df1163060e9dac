import { readFileSync } from 'node:fs';
import type { ScheduledEvent } from 'aws-lambda';
import { handler as create } from '../../functions/statuses/create';
import { handler as sweep, sweepTime } from '../../functions/sweeper/sweep';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import * as gsi1 from '../../lib/db/gsi1';
import { putScheduledItems, scheduledById, type Scheduled } from '../../lib/db/scheduled';
import { statusItem } from '../../lib/db/statuses';
import { putItem, queryAll, transact } from '../../lib/db/table';
import { idAt, newId } from '../../lib/ids';
import { minuteOf } from '../../lib/notifications/polls';
import { registerInlineWorker } from '../../lib/queue';
import { aUser } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const MINUTE = 60_000;
const sample = (): ScheduledEvent => JSON.parse(readFileSync(new URL('../../events/schedule.json', import.meta.url), 'utf8'));
/** EventBridge's format: UTC to the second. */
const eventTime = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
const firedAt = (at: number): ScheduledEvent => ({ ...sample(), time: eventTime(at) });

const statusesOf = (account: Account) =>
  queryAll(
    { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :p', ExpressionAttributeValues: { ':p': gsi1.accountStatusesPartition(account.id) } },
    statusItem,
  );

/** A scheduled status stored as it is (a time already past cannot be scheduled through the API). */
async function aStoredScheduled(account: Account, scheduledAt: number, text: string): Promise<Scheduled> {
  const scheduled: Scheduled = {
    id: newId(),
    accountId: account.id,
    scheduledAt: new Date(scheduledAt).toISOString(),
    appName: 'tests',
    appWebsite: null,
    appId: null,
    createdAt: new Date().toISOString(),
    params: {
      text,
      poll: null,
      media_ids: null,
      sensitive: false,
      visibility: 'public',
      idempotency: null,
      scheduled_at: null,
      spoiler_text: null,
      in_reply_to_id: null,
      language: null,
      quoted_status_id: null,
      quote_approval_policy: null,
    },
  };
  expect(await transact(putScheduledItems(scheduled))).toEqual({ ok: true });
  return scheduled;
}

describe('the time a sweep judges due-ness by', () => {
  const NOW = Date.UTC(2026, 10, 23, 17, 0, 30, 123);

  it.each([
    ['EventBridge\'s format', '2026-11-21T12:00:00Z', Date.UTC(2026, 10, 21, 12)],
    ['with milliseconds', '2026-11-21T12:00:00.250Z', Date.UTC(2026, 10, 21, 12, 0, 0, 250)],
    ['hours ahead of the clock', '2026-11-23T23:59:59Z', Date.UTC(2026, 10, 23, 23, 59, 59)],
  ])('is the event\'s time: %s', (_name, time, expected) => {
    expect(sweepTime({ ...sample(), time }, NOW)).toBe(expected);
  });

  it.each<[string, Partial<ScheduledEvent> | null | undefined]>([
    ['no event', undefined],
    ['a null event', null],
    ['an event without a time', { source: 'aws.events' }],
    ['an empty time', { time: '' }],
    ['a time that is not a date', { time: 'yesterday' }],
    ['a number', { time: 1795262400000 as unknown as string }],
    ['a date without a time', { time: '2026-11-21' }],
    ['a local time (no zone)', { time: '2026-11-21T12:00:00' }],
    ['another zone\'s offset', { time: '2026-11-21T12:00:00+01:00' }],
    ['an impossible day', { time: '2026-02-30T12:00:00Z' }],
    ['an impossible hour', { time: '2026-11-21T24:00:00Z' }],
    ['an impossible month', { time: '2026-13-01T12:00:00Z' }],
    ['trailing text', { time: '2026-11-21T12:00:00Z; drop' }],
  ])('falls back to the clock for %s', (_name, event) => {
    expect(sweepTime(event, NOW)).toBe(NOW);
  });
});

describe('the sweeper handler publishes scheduled statuses by the time its schedule fired', () => {
  beforeAll(async () => {
    // The poll job of the same sweeper would otherwise read a whole day of minute buckets on its first run.
    await putItem({ ...keys.sweeperWatermark('POLLS'), lastMinute: minuteOf(Date.now() - 2 * MINUTE) });
  });

  it('a status scheduled six minutes ahead stays scheduled at the clock\'s time and is published once when `time` is moved past it, with ids and created_at of the real clock', async () => {
    const user = await aUser();
    const scheduledAt = new Date(Date.now() + 6 * MINUTE).toISOString();
    const created = await call(create, { method: 'POST', path: '/api/v1/statuses', json: { status: 'six minutes on', scheduled_at: scheduledAt }, token: user.token });
    expect(created.status).toBe(200);
    const id = String(created.body.id);

    const early = await sweep(firedAt(Date.now()));
    expect(early.scheduled.published).toBe(0);
    expect(await scheduledById(user.account.id, id)).toBeDefined();
    expect(await statusesOf(user.account)).toEqual([]);

    const before = Date.now();
    const moved = await Promise.all([sweep(firedAt(Date.parse(scheduledAt) + 30_000)), sweep(firedAt(Date.parse(scheduledAt) + 30_000))]);
    const after = Date.now();
    expect(moved[0].scheduled.published + moved[1].scheduled.published).toBe(1);
    expect(await scheduledById(user.account.id, id, true)).toBeUndefined();
    const posted = await statusesOf(user.account);
    expect(posted.map((s) => s.text)).toEqual(['six minutes on']);
    const status = posted[0]!;
    // Minted when it was published, not at the moved time (which is still minutes ahead).
    expect(Date.parse(status.createdAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(status.createdAt)).toBeLessThanOrEqual(after);
    expect(BigInt(status.id)).toBeGreaterThanOrEqual(BigInt(idAt(before)));
    expect(BigInt(status.id)).toBeLessThan(BigInt(idAt(after + 1)));
  });

  it.each<[string, Partial<ScheduledEvent>]>([
    ['no time', { source: 'aws.events' }],
    ['a malformed time', { time: 'not a time' }],
    ['an impossible time', { time: '2026-02-30T12:00:00Z' }],
  ])('an event with %s is swept at the clock\'s time: what is due goes out, what is six minutes ahead stays', async (_name, event) => {
    const user = await aUser();
    const due = await aStoredScheduled(user.account, Date.now() - MINUTE, 'due a minute ago');
    const ahead = await aStoredScheduled(user.account, Date.now() + 6 * MINUTE, 'six minutes ahead');
    // A stand-in for EventBridge's event: the same shape, with the time replaced or left out.
    const { time: _dropped, ...rest } = sample();
    await sweep({ ...rest, ...event } as ScheduledEvent);
    expect((await statusesOf(user.account)).map((s) => s.text)).toEqual(['due a minute ago']);
    expect(await scheduledById(user.account.id, due.id, true)).toBeUndefined();
    expect(await scheduledById(user.account.id, ahead.id, true)).toBeDefined();
  });
});
