// The sweeper (DESIGN: "EventBridge rule (every minute) ──► sweeper"): closes due polls, notifying voters and authors,
// and publishes due scheduled statuses.
import type { ScheduledEvent } from 'aws-lambda';
import { log } from '../../lib/log';
import { closeDuePolls } from '../../lib/notifications/polls';
import { publishDueScheduled } from '../../lib/statuses/scheduled';

export async function run(now: number = Date.now()) {
  // Independent jobs: a failure of one does not hold the other back.
  const [polls, scheduled] = await Promise.all([closeDuePolls(now), publishDueScheduled(now)]);
  return { polls, scheduled };
}

// The event's `time` is when the rule fired; due-ness is judged against the clock when the run starts.
export const handler = async (event: ScheduledEvent) => {
  const result = await run();
  log.debug('sweeper run', { scheduledAt: event?.time, ...result });
  return result;
};
