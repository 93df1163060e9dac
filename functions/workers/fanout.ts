// Worker: the home-feed fan-out (DESIGN.md "Timelines are built on write"), one
// page of followers per message (lib/timelines/fanout_queue.ts): `create` writes
// a status's home entries; `delete` removes them everywhere.
import { worker } from '../../lib/queue/worker';
import { processFanout } from '../../lib/timelines/fanout_queue';

export { processFanout } from '../../lib/timelines/fanout_queue';
export { fanOut } from '../../lib/timelines/fanout';

export const handler = worker('fanout', processFanout);
