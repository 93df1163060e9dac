// GET /api/v1/timelines/link?url= (Mastodon 4.3; functions/timelines/link.ts, lib/timelines/link.ts):
// statuses are posted through the handler with the fan-out and cards workers run inline, their
// link's page served on loopback (as test/integration/cards.test.ts does), so each share reaches
// the link's timeline through the real path: cards worker → countLinkShare → the per-link list.
// Listed newest first with Link paging, only while the link trends (else 404, as Mastodon's
// PreviewCardTrend.allowed); a viewer's blocks apply; edits, deletions and authors who left
// discovery drop out on read; bad input answers 4xx; the cost of a page is X-Db-Calls.
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as deleteStatus } from '../../functions/statuses/delete';
import { handler as updateStatus } from '../../functions/statuses/update';
import { handler as linkTimeline } from '../../functions/timelines/link';
import { handler as cardsWorker } from '../../functions/workers/cards';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { updateAccount } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import { hideTrend, unhideTrend } from '../../lib/db/trends';
import { registerInlineWorker } from '../../lib/queue';
import { aUser, anAppToken, type UserFixture } from '../support/factories';
import { forgetAllMemos } from '../../lib/memo';
import { call } from '../support/http';
import { useLoopbackPages } from '../support/loopback-pages';

process.env.EXPOSE_METRICS = '1';

const ignore = async () => ({ batchItemFailures: [] });
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('cards', cardsWorker);

// These trends are about counting and ranking, not review: unreviewed items show, as with Mastodon's
// trendable_by_default on (off by default; the review itself is test/integration/admin-trends.test.ts).
beforeAll(async () => {
  await updateInstanceSettings({ trendableByDefault: true });
});
for (const queue of ['notify', 'deliver', 'push'] as const) registerInlineWorker(queue, ignore);

const pages = useLoopbackPages('links');

/** A page on the test's host with a title (a card), and its URL as a status links it. */
function aPage(path: string): string {
  pages.server().route('GET', path, { headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<title>Page ${path}</title>` });
  return `http://${pages.host()}:${new URL(pages.server().origin).port}${path}`;
}

/** A local user who opted into discovery (Mastodon's LinkFeed lists only theirs). */
async function aDiscoverableUser(): Promise<UserFixture> {
  const user = await aUser();
  return { ...user, account: (await updateAccount(user.account.id, { discoverable: true }))! };
}

async function post(user: UserFixture, status: string, visibility = 'public'): Promise<string> {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', token: user.token, json: { status, visibility } });
  expect(res.status).toBe(200);
  return (res.body as { id: string }).id;
}

/** `n` fresh discoverable users share the URL publicly (oldest first): enough accounts make it trend. */
async function sharedBy(n: number, url: string): Promise<{ user: UserFixture; id: string }[]> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const user = await aDiscoverableUser();
    out.push({ user, id: await post(user, `read ${url} please`) });
  }
  return out;
}

const timeline = (query: Record<string, string> | string, token?: string) => call(linkTimeline, { path: '/api/v1/timelines/link', query, token });
const idsOf = (body: { id: string }[]) => body.map((s) => s.id);

/** The query of one of the Link header's links (`next` or `prev`). */
function linkQuery(header: string | undefined, rel: 'next' | 'prev'): Record<string, string> {
  const match = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(header ?? '');
  expect(match).not.toBeNull();
  return Object.fromEntries(new URL(match![1]!).searchParams);
}

describe('a trending link’s timeline', () => {
  it('lists the public statuses sharing it, newest first, paged through Link, at a fixed cost', async () => {
    const url = aPage('/story');
    // Shared by someone out of discovery (counts toward the trend, as Mastodon's links do, but is not listed)
    // and, unlisted, by a discoverable user (counts for nothing).
    const hidden = await aUser();
    const undiscoverable = await post(hidden, `see ${url}`);
    const unlisted = await post(await aDiscoverableUser(), `quietly ${url}`, 'unlisted');
    const [first, second, third] = await sharedBy(3, url);

    // A cold container: what it keeps (lib/memo.ts) is read by this request, whatever ran before it.
    forgetAllMemos();
    const res = await timeline({ url, limit: '2' });
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([third!.id, second!.id]);
    expect(res.body[0]).toMatchObject({ url: expect.any(String), card: { url, title: 'Page /story' }, account: { id: third!.user.account.id } });
    // The operator's IP rules and the address's rate-limit counter, the instance settings (public preview: signed
    // out; both kept afterwards, lib/memo.ts), the trend state ∥ the
    // card ∥ the page's Query, the statuses, their authors (discoverable?), the instance's domain blocks (kept
    // afterwards too), the rendering's one batch read (signed out: no relationships, blocks or filters to read).
    // The domain blocks were counted only when the setup above took more than their 10 s in memory: they are a
    // memo now, which forgetAllMemos() forgets like the others.
    expect(res.headers['x-db-calls']).toBe('10');

    const next = linkQuery(res.headers.link, 'next');
    expect(next).toEqual({ url, limit: '2', max_id: second!.id });
    const older = await timeline(next);
    expect(older.status).toBe(200);
    expect(idsOf(older.body)).toEqual([first!.id]);
    expect(idsOf(older.body)).not.toContain(undiscoverable);
    expect(idsOf(older.body)).not.toContain(unlisted);
    const oldest = await timeline(linkQuery(older.headers.link, 'next'));
    expect(oldest.body).toEqual([]);
    expect(oldest.headers.link).toBeUndefined();

    const prev = linkQuery(res.headers.link, 'prev');
    expect(prev).toEqual({ url, limit: '2', min_id: third!.id });
    expect((await timeline(prev)).body).toEqual([]);
    expect(idsOf((await timeline({ url, min_id: first!.id, limit: '1' })).body)).toEqual([second!.id]);
    expect(idsOf((await timeline({ url, since_id: first!.id, limit: '1' })).body)).toEqual([third!.id]);

    // Leaving discovery takes an author out on the next read; coming back brings them back.
    await updateAccount(hidden.account.id, { discoverable: true });
    expect(idsOf((await timeline({ url })).body)).toEqual([third!.id, second!.id, first!.id, undiscoverable]);
    await updateAccount(third!.user.account.id, { discoverable: false });
    expect(idsOf((await timeline({ url })).body)).toEqual([second!.id, first!.id, undiscoverable]);
  });

  it('drops statuses edited to another link or deleted', async () => {
    const url = aPage('/shared');
    const other = aPage('/other');
    const [first, second, third] = await sharedBy(3, url);
    expect(idsOf((await timeline({ url })).body)).toEqual([third!.id, second!.id, first!.id]);

    const edited = await call(updateStatus, { method: 'PUT', path: `/api/v1/statuses/${second!.id}`, pathParameters: { id: second!.id }, token: second!.user.token, json: { status: `rather ${other}` } });
    expect(edited.status).toBe(200);
    const deleted = await call(deleteStatus, { method: 'DELETE', path: `/api/v1/statuses/${third!.id}`, pathParameters: { id: third!.id }, token: third!.user.token });
    expect(deleted.status).toBe(200);

    expect(idsOf((await timeline({ url })).body)).toEqual([first!.id]);
  });

  it('hides an author the viewer blocks, not from others', async () => {
    const url = aPage('/blocked');
    const [first, second] = await sharedBy(2, url);
    const viewer = await aUser();
    const blocked = await call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${second!.user.account.id}/block`, pathParameters: { id: second!.user.account.id }, token: viewer.token });
    expect(blocked.status).toBe(200);

    const seen = await timeline({ url }, viewer.token);
    expect(seen.status).toBe(200);
    expect(idsOf(seen.body)).toEqual([first!.id]);
    // Signed in, besides the 7 of a signed-out page less the settings: the token and its account, the viewer's
    // block, blocked-by and mute partitions and filters (lib/policy), the rendering's relationships and filters.
    expect(Number(seen.headers['x-db-calls'])).toBeLessThanOrEqual(14);
    expect(idsOf((await timeline({ url }, (await aUser()).token)).body)).toEqual([second!.id, first!.id]);
    expect(idsOf((await timeline({ url })).body)).toEqual([second!.id, first!.id]);
  });
});

describe('a link that does not trend', () => {
  const notFound = { status: 404, body: { error: 'Record not found' } };
  const answer = async (url: string) => {
    const res = await timeline({ url });
    return { status: res.status, body: res.body };
  };

  it('answers 404 until enough accounts share it', async () => {
    const url = aPage('/rising');
    await sharedBy(1, url);
    expect(await answer(url)).toEqual(notFound);
    await sharedBy(1, url);
    expect((await answer(url)).status).toBe(200);
  });

  it('answers 404 for a link nobody shared, or one without a card', async () => {
    expect(await answer(aPage('/unknown'))).toEqual(notFound);
    // Shared by enough accounts, but the page makes no card (no title): it is no trending link.
    pages.server().route('GET', '/untitled', { headers: { 'content-type': 'text/html' }, body: '<p>no title</p>' });
    const untitled = `http://${pages.host()}:${new URL(pages.server().origin).port}/untitled`;
    await sharedBy(2, untitled);
    expect(await answer(untitled)).toEqual(notFound);
  });

  it('answers 404 while the operator hides it, and lists it again once unhidden', async () => {
    const url = aPage('/hidden');
    const [first, second] = await sharedBy(2, url);
    expect(idsOf((await answer(url)).body)).toEqual([second!.id, first!.id]);
    expect(await hideTrend('link', url)).toBe(true);
    try {
      expect(await answer(url)).toEqual(notFound);
    } finally {
      expect(await unhideTrend('link', url)).toBe(true);
    }
    expect(idsOf((await answer(url)).body)).toEqual([second!.id, first!.id]);
  });

  it('finds a link written with another host case or a fragment, as its card is stored', async () => {
    const url = aPage('/normalised');
    const [only, also] = await sharedBy(2, url);
    const res = await timeline({ url: `${url.replace(pages.host(), pages.host().toUpperCase())}#comments` });
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([also!.id, only!.id]);
  });
});

describe('bad input', () => {
  let url: string;
  beforeEach(async () => {
    url = aPage('/input');
    await sharedBy(2, url);
  });

  it.each([
    ['no url', () => ({}), 422, /^Validation failed: url can't be blank$/],
    ['an empty url', () => ({ url: '' }), 422, /^Validation failed: url is not a valid http\(s\) URL$/],
    ['not a URL', () => ({ url: 'not a url' }), 422, /^Validation failed: url is not a valid http\(s\) URL$/],
    ['not http(s)', () => ({ url: url.replace(/^http:/, 'ftp:') }), 422, /^Validation failed: url is not a valid http\(s\) URL$/],
    ['a 4 KB url', () => ({ url: `${url}?q=${'a'.repeat(4096)}` }), 422, /^Validation failed: url is too long/],
    ['two urls', () => `url[]=${encodeURIComponent(url)}&url[]=${encodeURIComponent(url)}`, 422, /^Validation failed: url must be a string$/],
    ['a limit that is no number', () => ({ url, limit: 'many' }), 422, /^Validation failed: limit must be a number$/],
    ['a max_id that is no id', () => ({ url, max_id: 'abc' }), 422, /^Validation failed: max_id /],
    ['a since_id that is no id', () => ({ url, since_id: '-1' }), 422, /^Validation failed: since_id /],
  ])('%s', async (_name, query, status, message) => {
    const res = await timeline(query());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
  });

  it.each([
    ['a good url', () => ({ url })],
    ['a good limit', () => ({ url, limit: '1' })],
    ['a limit above the maximum, capped', () => ({ url, limit: '400' })],
    ['a good max_id', () => ({ url, max_id: '9'.repeat(20) })],
  ])('its good twin, %s: 200', async (_name, query) => {
    const res = await timeline(query());
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
  });

  it.each([
    ['an unknown token', async () => 'not-a-token', 401],
    ['a token without read:statuses', async () => (await anAppToken(['write:statuses'])).token, 403],
    ['an app token with read:statuses', async () => (await anAppToken(['read:statuses'])).token, 200],
    ['a user token with read', async () => (await aUser({ scopes: ['read'] })).token, 200],
  ])('%s', async (_name, token, status) => {
    const res = await timeline({ url }, await token());
    expect(res.status).toBe(status);
  });

  it('needs a token when the instance turned public preview off', async () => {
    await updateInstanceSettings({ publicPreview: false });
    try {
      const res = await timeline({ url });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'This API requires an authenticated user' });
      expect((await timeline({ url }, (await anAppToken(['read:statuses'])).token)).status).toBe(200);
    } finally {
      await updateInstanceSettings({ publicPreview: true });
    }
    expect((await timeline({ url })).status).toBe(200);
  });
});
