// The local stack's schedules (infra/local/schedule.ts): the `schedule` events read as the Serverless Framework
// compiles them into EventBridge rules, the Scheduled Event EventBridge sends, and rate rules firing at the start
// of each period of the clock. The clock is jest's fake one: no test waits a real minute.
import { jest } from '@jest/globals';
import type { Invoke, LocalFunction, Say } from '../../infra/local/local-functions';
import { ratePeriod, scheduledEvent, scheduledEvents, startSchedule, type Scheduled, type Scheduler } from '../../infra/local/schedule';

const fn = (key: string): LocalFunction => ({
  key,
  name: `tootless-local-${key}`,
  setup: { bundle: `/nowhere/${key}.mjs`, exportName: 'handler', functionName: `tootless-local-${key}`, memoryMb: 1024, region: 'us-east-1' },
  env: {},
  timeoutMs: 6_000,
});
const sweeper = fn('sweeper');

type Call = { key: string; event: Record<string, unknown> };
let calls: Call[];
let said: { level: Parameters<Say>[0]; line: string }[];
let scheduler: Scheduler | undefined;
const say: Say = (level, line) => said.push({ level, line });
const recording: Invoke = async (f, event) => {
  calls.push({ key: f.key, event: event as Record<string, unknown> });
  return { swept: true };
};

const start = (jobs: Scheduled[], invoke: Invoke = recording, now?: () => number) => {
  scheduler = startSchedule({ jobs, invoke, say, now, region: 'eu-west-3' });
  return scheduler;
};
const times = () => calls.map((c) => c.event.time);

beforeEach(() => {
  calls = [];
  said = [];
  jest.useFakeTimers({ now: new Date('2026-11-29T06:00:30.250Z') });
});
afterEach(() => {
  scheduler?.stop();
  scheduler = undefined;
  jest.useRealTimers();
});

describe('the schedule events of the service', () => {
  it('are read as the framework compiles them: one rule per expression, named as the stack names it', () => {
    const definitions: Record<string, { events?: unknown[]; name?: string }> = {
      sweeper: { name: 'tootless-local-sweeper', events: [{ schedule: { rate: ['rate(1 minute)'], description: 'sweep' } }] },
      digest: { name: 'tootless-local-digest', events: [{ schedule: 'rate(1 day)' }, { http: { path: '/x' } }, { schedule: { rate: ['rate(2 hours)', 'cron(0 12 * * ? *)'], input: { kind: 'report' } } }] },
      old: { name: 'tootless-local-old', events: [{ schedule: { rate: 'rate(5 minutes)', enabled: false, name: 'my-rule' } }] },
      stringInput: { name: 'custom-name', events: [{ schedule: { rate: ['rate(1 hour)'], input: '{"a":[1]}' } }, { schedule: { rate: ['rate(1 hour)'], input: { body: '{"b":2}' } } }] },
      quiet: { name: 'tootless-local-quiet' },
      'with-dash_and': { name: 'tootless-local-with-dash_and', events: [{ schedule: { rate: [{ 'Fn::Join': ['', ['rate(1 ', 'day)']] }] } }] },
    };
    const keys = Object.keys(definitions);
    expect(scheduledEvents(keys, (key) => definitions[key]!)).toEqual([
      { key: 'sweeper', rule: 'rate(1 minute)', enabled: true, name: 'tootless-local-SweeperEventsRuleSchedule1' },
      { key: 'digest', rule: 'rate(1 day)', enabled: true, name: 'tootless-local-DigestEventsRuleSchedule1' },
      { key: 'digest', rule: 'rate(2 hours)', enabled: true, input: { kind: 'report' }, name: 'tootless-local-DigestEventsRuleSchedule2' },
      { key: 'digest', rule: 'cron(0 12 * * ? *)', enabled: true, input: { kind: 'report' }, name: 'tootless-local-DigestEventsRuleSchedule3' },
      { key: 'old', rule: 'rate(5 minutes)', enabled: false, name: 'my-rule' },
      // An input is JSON text, delivered parsed; a function named otherwise gives no stack name to prefix.
      { key: 'stringInput', rule: 'rate(1 hour)', enabled: true, input: { a: [1] }, name: 'StringInputEventsRuleSchedule1' },
      { key: 'stringInput', rule: 'rate(1 hour)', enabled: true, input: { body: { b: 2 } }, name: 'StringInputEventsRuleSchedule2' },
      // A CloudFormation function is kept (as its JSON), for startSchedule to refuse aloud.
      { key: 'with-dash_and', rule: '{"Fn::Join":["",["rate(1 ","day)"]]}', enabled: true, name: 'tootless-local-WithDashdashUnderscoreandEventsRuleSchedule1' },
    ]);
  });

  it('rates as AWS writes them: 1 singular, more plural', () => {
    expect(ratePeriod('rate(1 minute)')).toBe(60_000);
    expect(ratePeriod('rate(5 minutes)')).toBe(300_000);
    expect(ratePeriod('rate(1 hour)')).toBe(3_600_000);
    expect(ratePeriod('rate(2 days)')).toBe(172_800_000);
    for (const refused of ['rate(2 minute)', 'rate(1 minutes)', 'rate(0 minutes)', 'rate(1 week)', 'rate( 1 minute)', 'cron(* * * * ? *)', 'rate(1.5 hours)', '']) {
      expect(ratePeriod(refused)).toBeUndefined();
    }
  });
});

describe('the Scheduled Event', () => {
  it('is EventBridge’s: time to the second, the rule’s ARN', () => {
    const event = scheduledEvent(sweeper, 'tootless-local-SweeperEventsRuleSchedule1', new Date('2026-11-29T06:01:00.000Z'), 'eu-west-3');
    expect(event).toEqual({
      version: '0',
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: '2026-11-29T06:01:00Z',
      region: 'eu-west-3',
      resources: ['arn:aws:events:eu-west-3:000000000000:rule/tootless-local-SweeperEventsRuleSchedule1'],
      detail: {},
    });
    expect(scheduledEvent(sweeper, 'r', new Date('2026-11-29T06:01:00.999Z'), 'us-east-1').time).toBe('2026-11-29T06:01:00Z');
    expect(scheduledEvent(sweeper, 'r', new Date(0), 'us-east-1').id).not.toBe(scheduledEvent(sweeper, 'r', new Date(0), 'us-east-1').id);
  });
});

describe('the schedule running', () => {
  it('runs rate(1 minute) at the start of every minute, with that minute as the event’s time', async () => {
    start([{ fn: sweeper, rule: 'rate(1 minute)', name: 'tootless-local-SweeperEventsRuleSchedule1' }]);
    await jest.advanceTimersByTimeAsync(29_749);
    expect(calls).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.key).toBe('sweeper');
    expect(calls[0]!.event).toMatchObject({ 'detail-type': 'Scheduled Event', time: '2026-11-29T06:01:00Z', region: 'eu-west-3', resources: ['arn:aws:events:eu-west-3:000000000000:rule/tootless-local-SweeperEventsRuleSchedule1'] });
    await jest.advanceTimersByTimeAsync(3 * 60_000);
    expect(times()).toEqual(['2026-11-29T06:01:00Z', '2026-11-29T06:02:00Z', '2026-11-29T06:03:00Z', '2026-11-29T06:04:00Z']);
    expect(new Set(calls.map((c) => c.event.id)).size).toBe(4);
  });

  it('aligns longer rates to their period on the UTC clock', async () => {
    const jobs = (['rate(5 minutes)', 'rate(2 hours)', 'rate(1 day)'] as const).map((rule, i) => ({ fn: fn(`job${i}`), rule }));
    start(jobs);
    await jest.advanceTimersByTimeAsync(24 * 3_600_000);
    const byKey = (key: string) => calls.filter((c) => c.key === key).map((c) => c.event.time);
    expect(byKey('job0').slice(0, 3)).toEqual(['2026-11-29T06:05:00Z', '2026-11-29T06:10:00Z', '2026-11-29T06:15:00Z']);
    expect(byKey('job0')).toHaveLength(12 * 24);
    expect(byKey('job1')).toEqual(['08', '10', '12', '14', '16', '18', '20', '22'].map((h) => `2026-11-29T${h}:00:00Z`).concat(['2026-11-30T00:00:00Z', '2026-11-30T02:00:00Z', '2026-11-30T04:00:00Z', '2026-11-30T06:00:00Z']));
    expect(byKey('job2')).toEqual(['2026-11-30T00:00:00Z']);
  });

  it('follows an injected clock', async () => {
    // The stack's clock one second before 07:00, whatever the fake Date says.
    const offset = Date.parse('2026-11-29T06:59:59Z') - Date.now();
    start([{ fn: sweeper, rule: 'rate(1 hour)' }], recording, () => Date.now() + offset);
    await jest.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(times()).toEqual(['2026-11-29T07:00:00Z']);
    // Without a rule name, the function's.
    expect(calls[0]!.event.resources).toEqual(['arn:aws:events:eu-west-3:000000000000:rule/tootless-local-sweeper-schedule']);
  });

  it('sends a rule’s input in place of the Scheduled Event, afresh each time', async () => {
    const mutating: Invoke = async (f, event) => {
      calls.push({ key: f.key, event: structuredClone(event) as Record<string, unknown> });
      (event as { n: number }).n += 1;
    };
    start([{ fn: sweeper, rule: 'rate(1 minute)', input: { n: 1 } }], mutating);
    await jest.advanceTimersByTimeAsync(2 * 60_000);
    expect(calls.map((c) => c.event)).toEqual([{ n: 1 }, { n: 1 }]);
  });

  it('does not run a disabled rule; warns of cron and malformed rules and runs the others', async () => {
    start([
      { fn: fn('disabled'), rule: 'rate(1 minute)', enabled: false },
      { fn: fn('cron'), rule: 'cron(0/5 * * * ? *)' },
      { fn: fn('bad'), rule: 'rate(2 minute)' },
      { fn: fn('cfn'), rule: '{"Fn::Join":["",["rate(1 ","day)"]]}' },
      { fn: sweeper, rule: 'rate(1 minute)' },
    ]);
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(new Set(calls.map((c) => c.key))).toEqual(new Set(['sweeper']));
    const warnings = said.filter((s) => s.level === 'warning').map((s) => s.line);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/^cron: cron\(0\/5 \* \* \* \? \*\) is not scheduled: the local stack does not run cron rules/);
    expect(warnings[1]).toMatch(/^bad: /);
    expect(warnings[2]).toMatch(/^cfn: /);
    expect(said.some((s) => s.level === 'notice' && s.line.startsWith('disabled: '))).toBe(true);
  });

  it('invokes again when a run is still going, and logs a failed run without stopping', async () => {
    let n = 0;
    const slowThenFailing: Invoke = (f, event) => {
      calls.push({ key: f.key, event: event as Record<string, unknown> });
      n += 1;
      if (n === 1) return new Promise(() => undefined);
      if (n === 2) throw new Error('thrown, not rejected');
      return Promise.reject(new Error('Error: the sweep failed\n    at run (sweep.ts:1:1)'));
    };
    start([{ fn: sweeper, rule: 'rate(1 minute)' }], slowThenFailing);
    await jest.advanceTimersByTimeAsync(4 * 60_000);
    expect(times()).toEqual(['2026-11-29T06:01:00Z', '2026-11-29T06:02:00Z', '2026-11-29T06:03:00Z', '2026-11-29T06:04:00Z']);
    const errors = said.filter((s) => s.level === 'error').map((s) => s.line);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain('thrown, not rejected');
    expect(errors[1]).toContain('Error: the sweep failed');
    expect(errors[1]).not.toContain('at run');
  });

  it('stops: no timer left, nothing more run', async () => {
    const s = start([{ fn: sweeper, rule: 'rate(1 minute)' }, { fn: fn('other'), rule: 'rate(1 day)' }]);
    expect(jest.getTimerCount()).toBe(2);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1);
    s.stop();
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(calls).toHaveLength(1);
  });

  it('does not make up the runs a sleeping machine missed', async () => {
    start([{ fn: sweeper, rule: 'rate(1 minute)' }]);
    await jest.advanceTimersByTimeAsync(29_750);
    // A laptop lid closed at 06:01:00 and opened at 06:11:30: the wall clock jumped, and the pending timer, which
    // counts no sleep, still has its minute to wait (fake timers shift with setSystemTime, as a monotonic clock).
    jest.setSystemTime(Date.parse('2026-11-29T06:11:30Z'));
    await jest.advanceTimersByTimeAsync(90_000);
    expect(times()).toEqual(['2026-11-29T06:01:00Z', '2026-11-29T06:12:00Z', '2026-11-29T06:13:00Z']);
  });
});

describe('the schedule’s timers', () => {
  it('do not keep the process alive', () => {
    jest.useRealTimers();
    const created: NodeJS.Timeout[] = [];
    const original = globalThis.setTimeout;
    const spy = jest.spyOn(globalThis, 'setTimeout').mockImplementation(((...args: Parameters<typeof setTimeout>) => {
      const timer = original(...args);
      created.push(timer);
      return timer;
    }) as typeof setTimeout);
    try {
      start([{ fn: sweeper, rule: 'rate(1 minute)' }]);
    } finally {
      spy.mockRestore();
    }
    expect(created).toHaveLength(1);
    expect(created[0]!.hasRef()).toBe(false);
  });
});
