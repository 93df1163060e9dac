// Worker: the `notify` queue — writes notifications (mention, reblog, favourite, follow, follow_request, poll, update),
// and tells the staff of a new sign-up or report (lib/moderation/staff_notices.ts).
import type { NotificationType } from '../../lib/db/notifications';
import { tellStaff } from '../../lib/moderation/staff_notices';
import { notify } from '../../lib/notifications/notify';
import type { NotificationMessage } from '../../lib/queue/messages';
import { worker } from '../../lib/queue/worker';

// The queue's contract spells the notification kinds itself (lib/queue may not import lib/db):
// this fails to compile the day the two lists differ.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// A moderation warning is written by the moderator's action itself (lib/moderation/strikes.ts), never queued.
const kindsAgree: Same<NotificationMessage['type'], Exclude<NotificationType, 'moderation_warning'>> = true;

export const handler = worker('notify', async (message) => {
  if ('notice' in message) await tellStaff(message);
  else await notify(message);
});
