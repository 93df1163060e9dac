// The service's `schedule` events (EventBridge rules) run on the local stack, in place of serverless offline's
// scheduler: each rule invokes its function through the stack's one runner with the event EventBridge sends.
//
// What it reproduces of EventBridge: the Scheduled Event (`aws.events`, `time` to the second, the rule's ARN in
// `resources`), or the rule's constant `input` in its place; a disabled rule never runs; a run still going when
// the next is due does not hold that one back (EventBridge invokes again regardless; the runner queues the
// invocations of a function). The rules are read as the Serverless Framework compiles them
// (package/compile/events/schedule.js): a string rule, or `{ rate: [...], enabled, input, name }`, one rule per
// expression, named as its CloudFormation stack would name it (without the random suffix).
//
// `rate(...)` rules fire at the start of every N minutes, hours or days of the UTC clock, as serverless offline
// ran them (a cron of `*/N`): `rate(1 minute)` at every minute's :00. EventBridge counts a rate from the rule's
// creation instead, which no test could rely on. Not reproduced: `cron(...)` rules (a warning says so),
// `inputPath`, `inputTransformer`, and EventBridge Scheduler's `method: scheduler` (run as a rule).
import { randomUUID } from 'node:crypto';
import type { Invoke, LocalFunction, Say } from './local-functions';

/** One rule of a function, as the stack runs it. */
export type Scheduled = {
  fn: LocalFunction;
  /** Its expression, `rate(1 minute)`. */
  rule: string;
  /** The rule's constant input: sent in place of the Scheduled Event. */
  input?: unknown;
  /** The rule's name, for the event's `resources` (scheduledEvents gives it); `<function name>-schedule` if unset. */
  name?: string;
  /** false: a disabled rule, not run. */
  enabled?: boolean;
};

export type ScheduleEntry = { key: string; rule: string; input?: unknown; enabled: boolean; name: string };

export type Scheduler = { stop(): void };

const ACCOUNT = '000000000000';
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
/** The longest wait a Node timer holds (about 24.8 days); a longer one is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** As the framework names a rule's logical id (naming.getScheduleLogicalId). */
const logicalId = (key: string, index: number) =>
  `${key.replace(/-/g, 'Dash').replace(/_/g, 'Underscore').replace(/^./, (c) => c.toUpperCase())}EventsRuleSchedule${index}`;

/**
 * The rule's input as EventBridge delivers it: a target's Input is JSON text, delivered parsed; the framework
 * writes an object as its JSON, after parsing a `body` given as a string. A string that is not JSON would fail
 * the deployment; it is passed on as the string it is (as serverless offline did).
 */
function ruleInput(input: unknown): unknown {
  if (typeof input === 'string') {
    try {
      return JSON.parse(input) as unknown;
    } catch {
      return input;
    }
  }
  const object = record(input);
  if (object && typeof object.body === 'string') {
    try {
      return { ...object, body: JSON.parse(object.body) as unknown };
    } catch {
      return object;
    }
  }
  return input;
}

/**
 * The `schedule` events of the functions `keys`, one entry per expression as the framework makes one rule each.
 * An expression that is no string (a CloudFormation function) is kept as its JSON, which startSchedule refuses
 * with a warning: nothing is dropped unsaid.
 */
export function scheduledEvents(keys: string[], definition: (key: string) => { events?: unknown[]; name?: string }): ScheduleEntry[] {
  const out: ScheduleEntry[] = [];
  for (const key of keys) {
    const fn = definition(key);
    // The stack's name, read off the function's default name `<service>-<stage>-<key>`.
    const stack = fn.name?.endsWith(`-${key}`) ? fn.name.slice(0, -key.length - 1) : undefined;
    let index = 0;
    for (const event of fn.events ?? []) {
      const schedule = record(event)?.schedule;
      if (schedule === undefined) continue;
      const object = record(schedule);
      const rates: unknown[] = object ? (Array.isArray(object.rate) ? object.rate : [object.rate]) : [schedule];
      for (const rate of rates) {
        index += 1;
        const given = typeof object?.name === 'string' ? object.name : undefined;
        const entry: ScheduleEntry = {
          key,
          rule: typeof rate === 'string' ? rate : JSON.stringify(rate) ?? String(rate),
          enabled: object?.enabled !== false,
          name: given ?? (stack ? `${stack}-${logicalId(key, index)}` : logicalId(key, index)),
        };
        if (object?.input !== undefined) entry.input = ruleInput(object.input);
        out.push(entry);
      }
    }
  }
  return out;
}

/** A rate expression's period in milliseconds; undefined for anything else. As AWS, 1 takes the singular, more the plural. */
export function ratePeriod(rule: string): number | undefined {
  const rate = /^rate\((\d+) (minute|hour|day)(s?)\)$/.exec(rule);
  if (!rate) return undefined;
  const value = Number(rate[1]);
  const plural = rate[3] === 's';
  if (!Number.isSafeInteger(value) || value < 1 || plural !== value > 1) return undefined;
  return value * UNIT_MS[rate[2] as keyof typeof UNIT_MS];
}

/** EventBridge's Scheduled Event of the rule `ruleName` firing at `at` (`_fn`, its target, is not part of it). */
export function scheduledEvent(_fn: LocalFunction, ruleName: string, at: Date, region: string): Record<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: ACCOUNT,
    time: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:${ACCOUNT}:rule/${ruleName}`],
    detail: {},
  };
}

/** Runs `jobs` until stopped. `now`: the clock the rules follow (tests inject theirs). */
export function startSchedule(opts: { jobs: Scheduled[]; invoke: Invoke; say: Say; now?: () => number; region?: string }): Scheduler {
  const now = opts.now ?? Date.now;
  const region = opts.region ?? 'us-east-1';
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  const fire = (job: Scheduled, at: number) => {
    const event = job.input !== undefined ? structuredClone(job.input) : scheduledEvent(job.fn, job.name ?? `${job.fn.name}-schedule`, new Date(at), region);
    Promise.resolve()
      .then(() => opts.invoke(job.fn, event))
      .catch((err: unknown) => {
        const line = (err instanceof Error ? err.message : String(err)).split('\n')[0];
        opts.say('error', `${job.fn.key}: the scheduled run of ${new Date(at).toISOString()} (${job.rule}) failed: ${line}`);
      });
  };

  for (const job of opts.jobs) {
    if (job.enabled === false) {
      opts.say('notice', `${job.fn.key}: ${job.rule} is disabled, not scheduled`);
      continue;
    }
    const period = ratePeriod(job.rule);
    if (period === undefined) {
      const why = job.rule.startsWith('cron(') ? 'the local stack does not run cron rules' : 'not a rate expression EventBridge accepts';
      opts.say('warning', `${job.fn.key}: ${job.rule} is not scheduled: ${why}`);
      continue;
    }
    const nextAfter = (t: number) => Math.floor(t / period) * period + period;
    const arm = (due: number) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (stopped) return;
        const t = now();
        // Woken early (a timer may fire a millisecond early; a long wait is taken in steps): wait on.
        if (t < due) return arm(due);
        // Normally `due` itself. Woken a period or more late (the machine slept, and Node's timers count no sleep),
        // one run, for the last boundary passed: the ones missed are not made up.
        fire(job, nextAfter(t) - period);
        arm(nextAfter(t));
      }, Math.min(Math.max(0, due - now()), MAX_TIMER_MS));
      timer.unref();
      timers.add(timer);
    };
    opts.say('notice', `${job.fn.key}: ${job.rule}, from ${new Date(nextAfter(now())).toISOString()}`);
    arm(nextAfter(now()));
  }

  return {
    stop: () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
