// Pages held to what a Lambda response carries (lib/http/page.ts): remote statuses run to hundreds
// of KB each, and 40 of them would be over Lambda's 6 MB response payload, which API Gateway answers
// with a 500 for everyone. The page is shortened by size instead, and its Link leads on to the rest.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { handler as home } from '../../functions/timelines/home';
import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as notifications } from '../../functions/notifications/index';
import { handler as bookmarks } from '../../functions/bookmarks/index';
import { handler as context } from '../../functions/statuses/context';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { addBookmark } from '../../lib/db/interactions';
import * as keys from '../../lib/db/keys';
import { putItem } from '../../lib/db/table';
import { createNotification } from '../../lib/db/notifications';
import type { Status } from '../../lib/db/statuses';
import { LAMBDA_RESPONSE_PAYLOAD_BYTES } from '../../lib/http/limits';
import { newId } from '../../lib/ids';
import { sqsEvent } from '../../lib/queue';
import { buildEvent, lambdaContext, type Call } from '../support/http';
import { aFollow, aPostedStatus, aRemoteAccount, aUser, type RemoteAccountFixture, type UserFixture } from '../support/factories';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const COUNT = 24;

/**
 * About 250 KB of sanitized HTML, as a remote Note may carry: links whose attribute quotes are
 * escaped once in the page's JSON and again in the function's result, so the page weighs more on
 * the way out than its body's length says.
 */
const largeContent = (n: number) => `<p>${`<a href="https://remote.example/tags/t${n}" rel="nofollow noopener" class="mention hashtag">#t${n}</a> `.repeat(2_500)}</p>`;

/** Calls the handler as Lambda does, and answers the result's size as Lambda counts it (the result as JSON). */
async function invoke(handler: Handler, request: Call) {
  const result = await handler(buildEvent(request), lambdaContext());
  const payloadBytes = Buffer.byteLength(JSON.stringify(result));
  const body: unknown = JSON.parse(result.body ?? 'null');
  return { status: result.statusCode, link: String(result.headers?.Link ?? ''), body: body as { id: string; status?: { id: string } }[], payloadBytes };
}

const linkParams = (link: string, rel: 'next' | 'prev'): Record<string, string> | undefined => {
  const match = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link);
  return match ? Object.fromEntries(new URL(match[1]!).searchParams) : undefined;
};

/**
 * Every page from `start`, following `rel`, until an empty one: each within Lambda's response
 * limit, and its ids in page order (newest first).
 */
async function walk(handler: Handler, request: Call, start: Record<string, string>, rel: 'next' | 'prev', idOf: (item: { id: string; status?: { id: string } }) => string) {
  const pages: string[][] = [];
  let query: Record<string, string> | undefined = start;
  while (query) {
    const res = await invoke(handler, { ...request, query });
    expect(res.status).toBe(200);
    expect(res.payloadBytes).toBeLessThanOrEqual(LAMBDA_RESPONSE_PAYLOAD_BYTES);
    if (res.body.length === 0) break;
    pages.push(res.body.map(idOf));
    expect(pages.length).toBeLessThanOrEqual(COUNT);
    query = linkParams(res.link, rel);
  }
  return pages;
}

describe('a page of large remote statuses', () => {
  let reader: UserFixture;
  let remote: RemoteAccountFixture;
  let statuses: Status[];
  const newestFirst = () => statuses.map((s) => s.id).reverse();

  beforeAll(async () => {
    reader = await aUser();
    remote = await aRemoteAccount({ domain: 'large.example' });
    await aFollow(reader.account, remote.account);
    const base = Date.now() - 60_000;
    statuses = [];
    for (let i = 0; i < COUNT; i++) {
      const id = newId(base + i);
      const status = await aPostedStatus(remote.account, {
        id,
        uri: `https://large.example/statuses/${id}`,
        url: `https://large.example/@x/${id}`,
        text: `#t${i}`,
        contentHtml: largeContent(i),
        tags: [],
      });
      const res = await fanoutWorker(sqsEvent('fanout', [{ type: 'create', statusId: status.id }]));
      expect(res.batchItemFailures).toEqual([]);
      statuses.push(status);
    }
  }, 120_000);

  it.each([
    ['public', publicTimeline, () => ({ path: '/api/v1/timelines/public' })],
    ['home', home, () => ({ path: '/api/v1/timelines/home', token: reader.token })],
  ] as const)('the %s timeline answers a page shortened under the limit, whose next links walk every status once', async (_name, handler, request) => {
    const first = await invoke(handler as Handler, { ...request(), query: { limit: '40' } });
    expect(first.status).toBe(200);
    expect(first.payloadBytes).toBeLessThanOrEqual(LAMBDA_RESPONSE_PAYLOAD_BYTES);
    expect(first.body.length).toBeGreaterThan(0);
    expect(first.body.length).toBeLessThan(COUNT);
    // The next page starts right after the last status the page carries.
    expect(linkParams(first.link, 'next')?.max_id).toBe(first.body.at(-1)!.id);

    const pages = await walk(handler as Handler, request(), { limit: '40' }, 'next', (s) => s.id);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual(newestFirst());
  }, 60_000);

  it('walks the public timeline upwards from min_id, each page the oldest that fit, nothing skipped or repeated', async () => {
    const pages = await walk(publicTimeline as Handler, { path: '/api/v1/timelines/public' }, { limit: '40', min_id: '0' }, 'prev', (s) => s.id);
    expect(pages.length).toBeGreaterThan(1);
    // Each page newest first, the pages oldest first.
    expect(pages.reverse().flat()).toEqual(newestFirst());
  }, 60_000);

  it('shortens a page of notifications that carry the large statuses, whose next links walk every notification once', async () => {
    const from = statuses[0]!.accountId;
    const notificationIds: string[] = [];
    for (const status of statuses) {
      const id = newId();
      expect(await createNotification({ id, type: 'mention', accountId: reader.account.id, fromAccountId: from, statusId: status.id, createdAt: new Date().toISOString() })).toBe(true);
      notificationIds.push(id);
    }
    const request = { path: '/api/v1/notifications', token: reader.token };
    const pages = await walk(notifications as Handler, request, { limit: '40' }, 'next', (n) => n.id);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual([...notificationIds].reverse());

    const upwards = await walk(notifications as Handler, request, { limit: '40', min_id: '0' }, 'prev', (n) => n.id);
    expect(upwards.reverse().flat()).toEqual([...notificationIds].reverse());
  }, 60_000);

  it('pages bookmarks by bookmark id, not status id, when shortening them', async () => {
    const reader2 = await aUser();
    // Bookmarked newest first, so the bookmarks' order is the statuses' reversed.
    for (const status of [...statuses].reverse()) expect(await addBookmark(reader2.account.id, status.id)).toBe('changed');
    const pages = await walk(bookmarks as Handler, { path: '/api/v1/bookmarks', token: reader2.token }, { limit: '40' }, 'next', (s) => s.id);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual(statuses.map((s) => s.id));
  }, 60_000);

  it('bounds a thread\'s context by size: the nearest ancestors, the first descendants in thread order', async () => {
    // A chain of large replies: the root's descendants and the last reply's ancestors are the whole chain.
    const author = statuses[0]!.accountId;
    const chain: Status[] = [];
    let parent = statuses[0]!;
    for (let i = 0; i < COUNT; i++) {
      const id = newId();
      const reply = await aPostedStatus(remote.account, {
        id,
        uri: `https://large.example/statuses/${id}`,
        url: `https://large.example/@x/${id}`,
        contentHtml: largeContent(i),
        inReplyToId: parent.id,
        inReplyToAccountId: author,
        conversationId: statuses[0]!.conversationId,
      });
      await putItem({ ...keys.reply(parent.id, reply.id), statusId: reply.id, accountId: author, parentId: parent.id });
      chain.push(reply);
      parent = reply;
    }
    const contextOf = async (id: string) => {
      const result = await (context as Handler)(buildEvent({ path: `/api/v1/statuses/${id}/context`, pathParameters: { id }, token: reader.token }), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(LAMBDA_RESPONSE_PAYLOAD_BYTES);
      const body = JSON.parse(result.body ?? '{}') as { ancestors: { id: string }[]; descendants: { id: string }[] };
      return { ancestors: body.ancestors.map((s) => s.id), descendants: body.descendants.map((s) => s.id) };
    };

    const ofRoot = await contextOf(statuses[0]!.id);
    expect(ofRoot.ancestors).toEqual([]);
    expect(ofRoot.descendants.length).toBeGreaterThan(0);
    expect(ofRoot.descendants.length).toBeLessThan(COUNT);
    expect(ofRoot.descendants).toEqual(chain.slice(0, ofRoot.descendants.length).map((s) => s.id));

    const ofLast = await contextOf(chain.at(-1)!.id);
    const above = [statuses[0]!, ...chain.slice(0, -1)].map((s) => s.id);
    expect(ofLast.descendants).toEqual([]);
    expect(ofLast.ancestors.length).toBeGreaterThan(0);
    expect(ofLast.ancestors.length).toBeLessThan(COUNT);
    expect(ofLast.ancestors).toEqual(above.slice(above.length - ofLast.ancestors.length));
  }, 120_000);
});
