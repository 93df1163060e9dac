// The sweeper (DESIGN: "EventBridge rule (every minute) ──► sweeper"): closes due polls, notifying voters and authors,
// publishes due scheduled statuses, sends the Update(Question) of our polls that changed (lib/federation/send_polls.ts),
// re-drives the distributions of posts still owed after the grace period (lib/timelines/fanout_owed.ts), and does
// the background work of suspensions: follows severed or restored, data purged after 30 days (lib/moderation/purge.ts).
import type { Context, ScheduledEvent } from 'aws-lambda';
import { requireStage } from '../../lib/config';
import { log, logInvocation } from '../../lib/log';
import { loadSecrets } from '../../lib/secrets';
import { sendChangedPolls } from '../../lib/federation/send_polls';
import { continueDomainPurges } from '../../lib/moderation/domain_blocks';
import { closeDuePolls } from '../../lib/notifications/polls';
import { publishDueScheduled } from '../../lib/statuses/scheduled_posting';
import { runSuspensionWork } from '../../lib/moderation/purge';
import { redriveOwedDistributions } from '../../lib/timelines/fanout_owed';

/** `time` as EventBridge writes it: UTC, to the second (milliseconds tolerated). */
const EVENT_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/;

/**
 * The instant the sweep judges due-ness by: when the rule fired (the event's `time`), or `now` when the event
 * carries no time or one that is not a valid EventBridge timestamp.
 *
 * Trusting `time` is safe because in AWS nothing but the EventBridge rule invokes this function: it has no HTTP
 * route and no queue, its resource policy admits only the rule, and the service's role may not invoke functions
 * (an operator with IAM rights could, but could as well write to the table). So `time` is the rule's firing
 * time, at or shortly before the run (what becomes due in between waits for the next minute); a retried
 * invocation keeps its original `time`, which only makes it do less. Exactly-once publishing never depended on
 * the clock (the claim in lib/statuses/scheduled_posting.ts), and published statuses take their ids and `created_at`
 * from the real clock whatever the instant (lib/statuses/create.ts).
 *
 * Locally, the local stack's scheduler (infra/local/schedule.ts) sets `time` to the wall clock, and a test can invoke the function
 * through the Lambda endpoint with a later `time` to "move the clock". That is for tests only: polls ending
 * before the moved instant are closed early, and the poll watermark moves ahead with it.
 */
export function sweepTime(event: Partial<ScheduledEvent> | null | undefined, now: number = Date.now()): number {
  const time: unknown = event?.time;
  if (typeof time !== 'string' || !EVENT_TIME.test(time)) return now;
  const at = Date.parse(time);
  // Date.parse accepts (and shifts) impossible dates such as Feb 30: compare the round trip.
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 19) !== time.slice(0, 19) ? now : at;
}

export async function run(now: number = Date.now()) {
  // Independent jobs: a failure of one does not hold the other back.
  const [polls, scheduled, distributions, purgedAccounts, suspensions] = await Promise.all([
    closeDuePolls(now),
    publishDueScheduled(now),
    redriveOwedDistributions(now),
    // Domains suspended through the admin API: a run's worth of their stored accounts removed (lib/moderation/domain_blocks.ts).
    continueDomainPurges(),
    // Suspensions' follows severed or restored, and their purges when due (a budgeted share each run).
    runSuspensionWork(now),
  ]);
  // After the closing, which marks the polls it closed: their Update(Question) with `closed` goes in this run.
  const pollUpdates = await sendChangedPolls(now);
  return { polls, scheduled, pollUpdates, distributions, purgedAccounts, suspensions };
}

// Without STAGE the function refuses to start, as every entry point (lib/config.ts).
requireStage();

export const handler = async (event: ScheduledEvent, context?: Context) => {
  logInvocation(context);
  // As every entry point (lib/secrets.ts): without the secrets the run fails before it touches anything,
  // and the next minute's tries again.
  await loadSecrets();
  const at = sweepTime(event);
  const result = await run(at);
  log.debug('sweeper run', { firedAt: event?.time, sweptAt: new Date(at).toISOString(), ...result });
  return result;
};
