// Worker: the home-feed fan-out (DESIGN.md "Timelines are built on write").
// `create` writes a status's home entries; `delete` removes them everywhere.
import { z } from 'zod';
import { fanOut, fanOutDelete } from '../../lib/timelines/fanout';
import { worker } from '../../lib/queue/worker';
import { statusById } from '../../lib/db/statuses';
import { recordTagUses } from '../../lib/db/tags';

const id = z.string().regex(/^\d{1,20}$/);

export const fanoutMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('create'), statusId: id }),
  z.object({
    type: z.literal('delete'),
    statusId: id,
    accountId: id,
    mentionIds: z.array(id).default([]),
    /** The streams the deleted status reached (absent in messages queued before it existed: every public stream, no hashtag). */
    deleted: z.object({ visibility: z.enum(['public', 'unlisted', 'private', 'direct']), tags: z.array(z.string()).max(100), hasMedia: z.boolean() }).optional(),
  }),
]);
export type FanoutMessage = z.infer<typeof fanoutMessage>;

export async function processFanout(message: FanoutMessage): Promise<void> {
  if (message.type === 'create') {
    await fanOut(message.statusId);
    // Hashtag usage counters (trends, featured tags) are kept here, off the POST path.
    const status = await statusById(message.statusId);
    if (status) await recordTagUses(status);
  }
  else await fanOutDelete(message.statusId, message.accountId, message.mentionIds, { deleted: message.deleted });
}

export { fanOut };

export const handler = worker('fanout', fanoutMessage, processFanout);
