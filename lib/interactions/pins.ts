// Pin and unpin (Mastodon's PinsController and StatusPinValidator): own
// statuses only, not reblogs, not direct messages, at most five. Each change
// is sent to the followers' servers as an Add or Remove (lib/federation/send_pins.ts).
import type { Account } from '../db/accounts';
import { MAX_PINS, addPin, pinCount, pinOf, removePin } from '../db/interactions';
import type { Status } from '../db/statuses';
import { notFound, unprocessable } from '../errors';
import { sendPinChange } from '../federation/send_pins';
import { isDirect, viewableStatus } from '../policy';
import { currentStatus } from './target';

// Mastodon 3.5's texts (statuses.pin_errors), joined as ActiveRecord does.
const PIN_ERRORS = {
  reblog: 'A boost cannot be pinned',
  ownership: "Someone else's toot cannot be pinned",
  direct: 'Posts that are only visible to mentioned users cannot be pinned',
  limit: 'You have already pinned the maximum number of toots',
};

const invalid = (messages: string[]) => unprocessable(`Validation failed: ${messages.join(', ')}`);

export async function pin(viewer: Account, id: string): Promise<Status> {
  const status = await viewableStatus(id, viewer);
  const problems: string[] = [];
  if (status.reblogOfId) problems.push(PIN_ERRORS.reblog);
  if (status.accountId !== viewer.id) problems.push(PIN_ERRORS.ownership);
  if (isDirect(status)) problems.push(PIN_ERRORS.direct);
  if (problems.length > 0) throw invalid(problems);
  // Pinning a pinned status changes nothing, even at the limit.
  if (await pinOf(viewer.id, status.id)) return currentStatus(status.id);
  if ((await pinCount(viewer.id)) >= MAX_PINS) throw invalid([PIN_ERRORS.limit]);
  if ((await addPin(viewer.id, status.id)) === 'gone') throw notFound();
  await sendPinChange('Add', viewer, status);
  return currentStatus(status.id);
}

export async function unpin(viewer: Account, id: string): Promise<Status> {
  const status = await viewableStatus(id, viewer);
  if ((await removePin(viewer.id, status.id)) === 'changed') await sendPinChange('Remove', viewer, status);
  return currentStatus(status.id);
}
