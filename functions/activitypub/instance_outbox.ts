// GET /actor/outbox: the instance actor's outbox, always empty (an actor has one; this one posts nothing).
import { http } from '../../lib/http';
import { instanceOutboxDocument } from '../../lib/federation/documents';
import { activityReply } from '../../lib/federation/serving';

export async function run() {
  return activityReply(instanceOutboxDocument());
}

export const handler = http(run, { auth: 'public' });
