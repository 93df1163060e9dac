// POST /api/v1/notifications/requests/accept (https://docs.joinmastodon.org/methods/notifications/#accept-multiple-requests):
// accepts each of the viewer's requests among `id[]`; ids that are not theirs are passed over.
import { http, type Ctx } from '../../lib/http';
import { acceptRequest, bulkRequestIds, viewerRequests, type BulkRequestIds } from '../../lib/notifications/policy';

export async function run(input: BulkRequestIds, ctx: Ctx<'user'>) {
  for (const request of await viewerRequests(ctx.account.id, input.id)) await acceptRequest(request);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema: bulkRequestIds });
