// POST /api/v1/notifications/requests/dismiss (https://docs.joinmastodon.org/methods/notifications/#dismiss-multiple-requests):
// dismisses each of the viewer's requests among `id[]`; ids that are not theirs are passed over.
import { http, type Ctx } from '../../lib/http';
import { dismissRequest, bulkRequestIds, viewerRequests, type BulkRequestIds } from '../../lib/notifications/policy';

export async function run(input: BulkRequestIds, ctx: Ctx<'user'>) {
  for (const request of await viewerRequests(ctx.account.id, input.id)) await dismissRequest(request);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema: bulkRequestIds });
