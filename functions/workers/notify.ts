// Worker: the `notify` queue — writes notifications (mention, reblog, favourite, follow, follow_request, poll).
import type { Context, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { notificationTypes } from '../../lib/db/notifications';
import { isId } from '../../lib/ids';
import { notify } from '../../lib/notifications/notify';
import { worker } from '../../lib/queue/worker';

const id = z.string().refine(isId, 'must be an id');

/** The message producers send (issue 3 contract). */
export const notifyMessage = z.object({
  type: z.enum(notificationTypes),
  accountId: id,
  fromAccountId: id,
  statusId: id.optional(),
});
export type NotifyMessage = z.infer<typeof notifyMessage>;

const processBatch = worker('notify', notifyMessage, async (message) => {
  await notify(message);
});

// Lambda's (event, context) signature, so callers may pass the context along.
export const handler = (event: SQSEvent, _context?: Context) => processBatch(event);
