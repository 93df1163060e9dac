// GET /api/v2/notifications held to what a Lambda response carries: a page of groups whose statuses
// are large is cut to the whole groups that fit, and paging by the Link walks every notification
// exactly once, though groups interleave by notification id (a group reappears on later pages with
// its older members, as Mastodon's page_min_id/page_max_id say).
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { handler as v1Index } from '../../functions/notifications/index';
import { handler as v2Index } from '../../functions/notifications/v2_index';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { LAMBDA_RESPONSE_PAYLOAD_BYTES } from '../../lib/http/limits';
import { sqsEvent } from '../../lib/queue';
import { buildEvent, lambdaContext, type Call } from '../support/http';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type Group = { group_key: string; page_min_id: string; page_max_id: string; status_id?: string };
type Grouped = { notification_groups: Group[]; statuses: { id: string }[] };

const COUNT = 24;
const largeContent = (n: number) => `<p>${`<a href="https://remote.example/tags/t${n}" rel="nofollow noopener" class="mention hashtag">#t${n}</a> `.repeat(2_500)}</p>`;

async function invoke(handler: Handler, request: Call) {
  const result = await handler(buildEvent(request), lambdaContext());
  expect(result.statusCode).toBe(200);
  expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(LAMBDA_RESPONSE_PAYLOAD_BYTES);
  return { link: String(result.headers?.Link ?? ''), body: JSON.parse(result.body ?? 'null') as unknown };
}

const linkParams = (link: string, rel: 'next' | 'prev'): Record<string, string> | undefined => {
  const match = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link);
  return match ? Object.fromEntries(new URL(match[1]!).searchParams) : undefined;
};

describe('a grouped page of notifications on large statuses', () => {
  let owner: UserFixture;
  /** Every notification's id → its group key, from the v1 list. */
  const groupOf = new Map<string, string>();

  beforeAll(async () => {
    owner = await aUser();
    const fans = [await aUser(), await aUser(), await aUser()];
    const statuses = [];
    for (let i = 0; i < COUNT; i++) statuses.push(await aStoredStatus(owner.account, { text: `#t${i}`, contentHtml: largeContent(i) }));
    // Round by round, so each status's group has members far apart: the groups interleave by id.
    for (const fan of fans) {
      for (const status of statuses) {
        const res = await notifyWorker(sqsEvent('notify', [{ type: 'favourite', accountId: owner.account.id, fromAccountId: fan.account.id, statusId: status.id }]));
        expect(res.batchItemFailures).toEqual([]);
      }
    }
    let query: Record<string, string> | undefined = { limit: '40' };
    while (query) {
      const res = await invoke(v1Index as Handler, { path: '/api/v1/notifications', token: owner.token, query });
      const page = res.body as { id: string; group_key: string }[];
      if (page.length === 0) break;
      for (const n of page) groupOf.set(n.id, n.group_key);
      query = linkParams(res.link, 'next');
    }
    expect(groupOf.size).toBe(COUNT * 3);
  }, 180_000);

  /** The notifications a page's groups stand for: each group's members within its page_min_id..page_max_id. */
  const covered = (groups: Group[]) =>
    groups.flatMap((g) => [...groupOf].filter(([id, key]) => key === g.group_key && BigInt(id) >= BigInt(g.page_min_id) && BigInt(id) <= BigInt(g.page_max_id)).map(([id]) => id));

  it.each([
    ['downwards', { limit: '40' }, 'next'],
    ['upwards from min_id', { limit: '40', min_id: '0' }, 'prev'],
  ] as const)('is cut to whole groups under the limit, and walking it %s covers every notification once', async (_name, start, rel) => {
    const seen: string[] = [];
    let pages = 0;
    let query: Record<string, string> | undefined = { ...start };
    while (query) {
      const res = await invoke(v2Index as Handler, { path: '/api/v2/notifications', token: owner.token, query });
      const body = res.body as Grouped;
      if (body.notification_groups.length === 0) break;
      pages++;
      expect(body.notification_groups.length).toBeLessThan(COUNT);
      // Only the statuses the kept groups name travel with them.
      expect(body.statuses.map((s) => s.id).sort()).toEqual([...new Set(body.notification_groups.map((g) => g.status_id!))].sort());
      seen.push(...covered(body.notification_groups));
      expect(pages).toBeLessThanOrEqual(COUNT * 3);
      query = linkParams(res.link, rel);
    }
    expect(pages).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual([...groupOf.keys()].sort());
  }, 120_000);
});
