// The sweeper (DESIGN: "EventBridge rule (every minute) ──► sweeper"): closes due polls, notifying voters and authors.
import type { ScheduledEvent } from 'aws-lambda';
import { log } from '../../lib/log';
import { closeDuePolls } from '../../lib/notifications/polls';

export async function run(now: number = Date.now()) {
  return { polls: await closeDuePolls(now) };
}

// The event's `time` is when the rule fired; due-ness is judged against the clock when the run starts.
export const handler = async (event: ScheduledEvent) => {
  const result = await run();
  log.debug('sweeper run', { scheduledAt: event?.time, ...result });
  return result;
};
