// Trending statuses and links (GET /api/v1/trends/statuses, /links; lib/trends): counters
// kept at write time by the real favourite, reblog and reply paths (local through the
// handlers, remote through the inbox worker's logic), ranked by a score that decays, read
// for each viewer (blocks, mutes), and the operator's `trends hide` through the CLI.
// Every status here has its own author: trends show one status per author (Mastodon's
// StatusTrend.allowed), so tests that share this file's table do not shadow each other.
import { recentInstanceSettings, updateInstanceSettings } from '../../lib/db/instance';
import type { SQSEvent } from 'aws-lambda';
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as muteHandler } from '../../functions/accounts/mute';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as favouriteHandler } from '../../functions/statuses/favourite';
import { handler as reblogHandler } from '../../functions/statuses/reblog';
import { handler as unfavouriteHandler } from '../../functions/statuses/unfavourite';
import { handler as tagTrendsHandler } from '../../functions/trends/index';
import { handler as linksHandler } from '../../functions/trends/links';
import { handler as statusesHandler } from '../../functions/trends/statuses';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { main } from '../../lib/admin/cli';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { storeCardOutcome, type PreviewCard } from '../../lib/db/cards';
import { statusById, type Status } from '../../lib/db/statuses';
import { countStatusInteraction, statusTrendDays } from '../../lib/db/trends';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { countInteraction, countLinkShare, MIN_ACCOUNTS, rankLinks, rankStatuses } from '../../lib/trends';
import { activity, collectDeliveries, receive } from '../support/activities';
import { aPostedStatus, aRemoteAccount, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call, warmContainer } from '../support/http';

// X-Db-Calls on every answer: what a trends read costs is part of what is tested.
process.env.EXPOSE_METRICS = '1';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
collectDeliveries();

// These trends are about counting and ranking, not review: unreviewed items show, as with Mastodon's
// trendable_by_default on (off by default; the review itself is test/integration/admin-trends.test.ts).
beforeAll(async () => {
  await updateInstanceSettings({ trendableByDefault: true });
});

const HOUR = 60 * 60 * 1000;

type Shown = { id: string; account: { id: string }; favourites_count: number; reblogs_count: number; content: string };

const trending = async (opts: { token?: string; query?: Record<string, string> } = {}) =>
  call(statusesHandler, { path: '/api/v1/trends/statuses', token: opts.token, query: opts.query ?? { limit: '40' } });
const trendingIds = async (token?: string) => {
  const res = await trending({ token });
  expect(res.status).toBe(200);
  return (res.body as Shown[]).map((s) => s.id);
};
const act = (handler: typeof favouriteHandler, verb: string, id: string, token: string) =>
  call(handler, { method: 'POST', path: `/api/v1/statuses/${id}/${verb}`, pathParameters: { id }, token });
const favourite = async (user: UserFixture, id: string) => expect((await act(favouriteHandler, 'favourite', id, user.token)).status).toBe(200);
const reblog = async (user: UserFixture, id: string) => expect((await act(reblogHandler, 'reblog', id, user.token)).status).toBe(200);
const post = async (user: UserFixture, json: Record<string, unknown>) => {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const admin = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

/** A local user who opted into discovery (Mastodon trends only discoverable authors). */
async function aDiscoverableUser(): Promise<UserFixture> {
  const user = await aUser();
  const account = await updateAccount(user.account.id, { discoverable: true });
  return { ...user, account: account ?? user.account };
}

/** A fresh public status by a fresh discoverable author. */
async function aTrendCandidate(overrides: Partial<Status> = {}): Promise<{ author: UserFixture; status: Status }> {
  const author = await aDiscoverableUser();
  return { author, status: await aPostedStatus(author.account, overrides) };
}

/** `n` users who favourite the status through the endpoint. */
async function favouritedBy(n: number, statusId: string): Promise<UserFixture[]> {
  const fans = await Promise.all(Array.from({ length: n }, () => aUser()));
  for (const fan of fans) await favourite(fan, statusId);
  return fans;
}

const rankOf = async (statusId: string) => (await rankStatuses()).find((r) => r.statusId === statusId);

describe('trending statuses', () => {
  let fans: UserFixture[];

  beforeAll(async () => {
    fans = await Promise.all(Array.from({ length: 4 }, () => aUser()));
  });

  it('are made by favourites and reblogs through the endpoints, best first, rendered as Status entities', async () => {
    const [most, fewer, lone] = await Promise.all([aTrendCandidate(), aTrendCandidate(), aTrendCandidate()]);
    for (const fan of fans.slice(0, 3)) await favourite(fan, most.status.id);
    await reblog(fans[3]!, most.status.id);
    await favourite(fans[0]!, fewer.status.id);
    await reblog(fans[1]!, fewer.status.id);
    await favourite(fans[0]!, lone.status.id);

    const res = await trending({ token: fans[0]!.token });
    expect(res.status).toBe(200);
    const shown = res.body as Shown[];
    const ids = shown.map((s) => s.id);
    expect(ids).toContain(most.status.id);
    expect(ids).toContain(fewer.status.id);
    expect(ids.indexOf(most.status.id)).toBeLessThan(ids.indexOf(fewer.status.id));
    // One account is below MIN_ACCOUNTS: not trending.
    expect(MIN_ACCOUNTS).toBe(2);
    expect(ids).not.toContain(lone.status.id);
    expect(shown.find((s) => s.id === most.status.id)).toMatchObject({
      account: { id: most.author.account.id },
      favourites_count: 3,
      reblogs_count: 1,
      content: `<p>status ${most.status.id}</p>`,
      favourited: true,
      filtered: [],
    });
    expect((await rankOf(most.status.id))?.accounts).toBe(4);
    // Signed out, the same list.
    expect(await trendingIds()).toEqual(expect.arrayContaining([most.status.id, fewer.status.id]));
  });

  it('never counts the author, and counts each account once whatever it does and however often', async () => {
    const { author, status } = await aTrendCandidate();
    await favourite(author, status.id);
    await reblog(author, status.id);
    const [fan, other] = fans;
    await favourite(fan!, status.id);
    expect((await act(unfavouriteHandler, 'unfavourite', status.id, fan!.token)).status).toBe(200);
    await favourite(fan!, status.id);
    await reblog(fan!, status.id);
    // Counted again (a worker's retry): still once.
    await countInteraction((await statusById(status.id))!, 'favourite', fan!.account.id);
    expect(await rankOf(status.id)).toBeUndefined();
    expect(await trendingIds()).not.toContain(status.id);

    await favourite(other!, status.id);
    expect(await rankOf(status.id)).toMatchObject({ accounts: 2 });
    expect(await trendingIds()).toContain(status.id);
  });

  it.each<[string, Partial<Status>]>([
    ['unlisted', { visibility: 'unlisted' }],
    ['followers-only', { visibility: 'private' }],
    ['marked sensitive', { sensitive: true }],
    ['behind a content warning', { spoilerText: 'spoilers' }],
  ])('leave out a status %s (its public twin trends)', async (_what, overrides) => {
    const [twin, excluded] = await Promise.all([aTrendCandidate(), aTrendCandidate(overrides)]);
    for (const fan of fans.slice(0, 2)) {
      await favourite(fan, twin.status.id);
      // A followers-only status is favourited by its author's followers: counted as the endpoint would count it.
      if (overrides.visibility === 'private') await countInteraction(excluded.status, 'favourite', fan.account.id);
      else await favourite(fan, excluded.status.id);
    }
    const ids = await trendingIds();
    expect(ids).toContain(twin.status.id);
    expect(ids).not.toContain(excluded.status.id);
    expect(await rankOf(excluded.status.id)).toBeUndefined();
  });

  it('leave out an author who did not opt into discovery, and a reply', async () => {
    const hidden = await aUser();
    const undiscoverable = await aPostedStatus(hidden.account);
    const parentAuthor = await aDiscoverableUser();
    const parent = await aPostedStatus(parentAuthor.account);
    const replyAuthor = await aDiscoverableUser();
    const reply = await aPostedStatus(replyAuthor.account, { inReplyToId: parent.id, inReplyToAccountId: parentAuthor.account.id, conversationId: parent.conversationId });
    for (const fan of fans.slice(0, 3)) {
      await favourite(fan, undiscoverable.id);
      await favourite(fan, reply.id);
    }
    const ids = await trendingIds();
    expect(ids).not.toContain(undiscoverable.id);
    expect(ids).not.toContain(reply.id);

    // Opting in counts the next interactions.
    await updateAccount(hidden.account.id, { discoverable: true });
    await favourite(fans[3]!, undiscoverable.id);
    const late = await aUser();
    await favourite(late, undiscoverable.id);
    expect(await trendingIds()).toContain(undiscoverable.id);
  });

  it('count public replies (through the fan-out worker), not private ones', async () => {
    const { status } = await aTrendCandidate();
    const privately = await aUser();
    await post(privately, { status: 'just between us', in_reply_to_id: status.id, visibility: 'private' });
    expect(await rankOf(status.id)).toBeUndefined();
    const [a, b] = await Promise.all([aUser(), aUser()]);
    await post(a, { status: 'good one', in_reply_to_id: status.id });
    expect(await rankOf(status.id)).toBeUndefined(); // one account so far
    await post(b, { status: 'agreed', in_reply_to_id: status.id, visibility: 'unlisted' });
    expect(await rankOf(status.id)).toMatchObject({ accounts: 2 });
    expect(await trendingIds()).toContain(status.id);
  });

  it('count Likes and Announces received from other servers (once per actor)', async () => {
    const { author, status } = await aTrendCandidate();
    const remote = async (domain: string) => (await aRemoteAccount({ domain, keyless: true })).account as Account & { uri: string; followersUrl: string };
    const [alice, bob] = await Promise.all([remote('trends-a.example'), remote('trends-b.example')]);
    const object = apUrls.status(author.account.username, status.id);
    expect(await receive(activity(alice, 'Like', object))).toBe('applied');
    expect(await receive(activity(alice, 'Announce', object, { to: [AS_PUBLIC], cc: [alice.followersUrl], published: new Date(Date.now() - 1000).toISOString() }))).toBe('applied');
    expect(await rankOf(status.id)).toBeUndefined();
    expect(await receive(activity(bob, 'Announce', object, { to: [AS_PUBLIC], cc: [bob.followersUrl], published: new Date(Date.now() - 1000).toISOString() }))).toBe('applied');
    expect(await rankOf(status.id)).toMatchObject({ accounts: 2 });
    expect(await trendingIds()).toContain(status.id);
  });

  it('hide the statuses of accounts the viewer blocks or mutes, for that viewer only', async () => {
    const [blockedOne, mutedOne] = await Promise.all([aTrendCandidate(), aTrendCandidate()]);
    for (const fan of fans.slice(0, 2)) {
      await favourite(fan, blockedOne.status.id);
      await favourite(fan, mutedOne.status.id);
    }
    const viewer = await aUser();
    const relate = (handler: typeof blockHandler, verb: string, id: string) =>
      call(handler, { method: 'POST', path: `/api/v1/accounts/${id}/${verb}`, pathParameters: { id }, token: viewer.token });
    const before = await trendingIds(viewer.token);
    expect(before).toEqual(expect.arrayContaining([blockedOne.status.id, mutedOne.status.id]));
    expect((await relate(blockHandler, 'block', blockedOne.author.account.id)).status).toBe(200);
    expect((await relate(muteHandler, 'mute', mutedOne.author.account.id)).status).toBe(200);
    const after = await trendingIds(viewer.token);
    expect(after).not.toContain(blockedOne.status.id);
    expect(after).not.toContain(mutedOne.status.id);
    // Everyone else still sees them.
    expect(await trendingIds(fans[0]!.token)).toEqual(expect.arrayContaining([blockedOne.status.id, mutedOne.status.id]));
  });

  it('show one status per author, its best', async () => {
    const author = await aDiscoverableUser();
    const [better, worse] = [await aPostedStatus(author.account), await aPostedStatus(author.account)];
    for (const fan of fans.slice(0, 3)) await favourite(fan, better.id);
    for (const fan of fans.slice(0, 2)) await favourite(fan, worse.id);
    const ids = await trendingIds();
    expect(ids).toContain(better.id);
    expect(ids).not.toContain(worse.id);
  });

  it('page by offset and limit, with Link next and prev as Mastodon', async () => {
    for (let i = 0; i < 3; i++) {
      const { status } = await aTrendCandidate();
      for (const fan of fans.slice(0, 2)) await favourite(fan, status.id);
    }
    const all = await trendingIds();
    expect(all.length).toBeGreaterThanOrEqual(5);
    const seen: string[] = [];
    for (let offset = 0; offset < all.length; offset += 2) {
      const res = await trending({ query: { limit: '2', offset: String(offset) } });
      expect(res.status).toBe(200);
      seen.push(...(res.body as Shown[]).map((s) => s.id));
      const link = res.headers.link ?? '';
      if (offset + 2 < all.length) expect(link).toContain(`/api/v1/trends/statuses?limit=2&offset=${offset + 2}>; rel="next"`);
      else expect(link).not.toContain('rel="next"');
      if (offset > 0) expect(link).toContain(`/api/v1/trends/statuses?limit=2&offset=${offset - 2}>; rel="prev"`);
      else expect(link).not.toContain('rel="prev"');
    }
    expect(seen).toEqual(all);
    const past = await trending({ query: { offset: String(all.length) } });
    expect(past.body).toEqual([]);
  });

  it('cost the same few DynamoDB calls however many statuses trend and however many are shown', async () => {
    const calls = async (query: Record<string, string>, token?: string) => {
      // The instance settings (trendable_by_default) come from the container's memo, read once per 30 s: kept fresh here.
      await recentInstanceSettings();
      const res = await trending({ token, query });
      expect(res.status).toBe(200);
      return { calls: Number(res.headers['x-db-calls']), shown: (res.body as Shown[]).length };
    };
    for (let i = 0; i < 3; i++) {
      const { status } = await aTrendCandidate();
      for (const fan of fans.slice(0, 2)) await favourite(fan, status.id);
    }
    await calls({ limit: '1' }, fans[0]!.token); // the operator's domain blocks, cached for a while, are read here
    const one = await calls({ limit: '1' }, fans[0]!.token);
    const many = await calls({ limit: '40' }, fans[0]!.token);
    expect(one.shown).toBe(1);
    expect(many.shown).toBeGreaterThanOrEqual(3);
    expect(many.calls).toBe(one.calls);
    // The token and rate-limit counter, hidden items, two day partitions, the viewer's blocks, blockers and mutes,
    // the page's statuses, rendering (with the viewer's flags and filters): 13 when written.
    expect(many.calls).toBeLessThanOrEqual(14);
    const signedOut = await calls({ limit: '40' });
    expect(signedOut.calls).toBeLessThan(many.calls);
  });
});

describe('the trend score', () => {
  // A day far from the real clock, so that these counters share no partition with the endpoint tests.
  const T0 = new Date('2031-03-09T02:00:00Z');
  const at = (hours: number) => new Date(T0.getTime() + hours * HOUR);

  async function aStatusAt(postedAt: Date): Promise<Status> {
    const author = await aDiscoverableUser();
    return aStoredStatus(author.account, { id: newId(postedAt), createdAt: postedAt.toISOString() });
  }
  const countAt = async (status: Status, actors: number, when: Date) => {
    for (let i = 0; i < actors; i++) await countInteraction(status, 'favourite', newId(), when);
  };
  const scoreAt = async (status: Status, now: Date) => (await rankStatuses(now)).find((r) => r.statusId === status.id)?.score;

  it('halves every eight hours, across midnight, and newer interactions outrank older ones', async () => {
    const older = await aStatusAt(at(-1));
    await countAt(older, 4, T0);
    expect(await scoreAt(older, T0)).toBeCloseTo(4, 6);
    expect(await scoreAt(older, at(8))).toBeCloseTo(2, 6);
    // The next UTC day reads yesterday's partition converted to today's units.
    expect(await scoreAt(older, at(24))).toBeCloseTo(0.5, 6);

    const newer = await aStatusAt(at(15));
    await countAt(newer, 2, at(16));
    expect(await scoreAt(newer, at(16))).toBeCloseTo(2, 6);
    const ranked = (await rankStatuses(at(16))).map((r) => r.statusId);
    expect(ranked.indexOf(newer.id)).toBeLessThan(ranked.indexOf(older.id));
    // Before the newer one's interactions, the older one led.
    expect((await rankStatuses(at(1))).map((r) => r.statusId)).toContain(older.id);
  });

  it('stops counting and showing a status two days after it was posted', async () => {
    const status = await aStatusAt(at(-30));
    await countAt(status, 2, at(-6)); // 24 hours old: counted
    expect(await scoreAt(status, at(-6))).toBeGreaterThan(0);
    await countAt(status, 2, at(20)); // 50 hours old: not counted
    expect((await statusTrendDays(['2031-03-09'])).get('2031-03-09')?.find((d) => d.statusId === status.id)).toBeUndefined();
    expect((await rankStatuses(at(20))).find((r) => r.statusId === status.id)).toBeUndefined();
  });
});

describe('the day partition', () => {
  it('admits candidates up to its cap, and still counts into those admitted; a repeat counts nothing', async () => {
    const day = new Date('2031-05-01T10:00:00Z');
    const status = () => ({ id: newId(day), accountId: newId(), domain: null });
    const [first, second, third] = [status(), status(), status()];
    const cap = 2;
    expect(await countStatusInteraction(first, 'a1', day, 1, cap)).toBe('counted');
    expect(await countStatusInteraction(second, 'a1', day, 1, cap)).toBe('counted');
    expect(await countStatusInteraction(third, 'a1', day, 1, cap)).toBe('day-full');
    expect(await countStatusInteraction(first, 'a2', day, 1, cap)).toBe('counted');
    expect(await countStatusInteraction(first, 'a2', day, 1, cap)).toBe('already-counted');
    const stored = (await statusTrendDays(['2031-05-01'])).get('2031-05-01') ?? [];
    expect(stored.map((d) => [d.statusId, d.accounts]).sort()).toEqual([[first.id, 2], [second.id, 1]].sort());
  });
});

describe('trending links', () => {
  const cardOf = (url: string, title: string): PreviewCard => ({
    url,
    title,
    description: 'a page',
    type: 'link',
    authorName: '',
    authorUrl: '',
    providerName: 'Example',
    providerUrl: '',
    html: '',
    width: 0,
    height: 0,
    imageKey: null,
    imageDescription: '',
    embedUrl: '',
    blurhash: null,
    language: 'en',
    publishedAt: null,
  });
  const links = (query: Record<string, string> = {}) => call(linksHandler, { path: '/api/v1/trends/links', query });
  const urlsOf = async () => ((await links({ limit: '20' })).body as { url: string }[]).map((l) => l.url);
  /** `n` distinct accounts share the URL in public statuses (as the cards worker reports them). */
  async function sharedBy(n: number, url: string, overrides: Partial<Status> = {}): Promise<void> {
    for (let i = 0; i < n; i++) {
      const sharer = await aUser();
      await countLinkShare(url, await aPostedStatus(sharer.account, { text: url, ...overrides }));
    }
  }

  it('rank links by the distinct accounts sharing them, each with its card and a week of history', async () => {
    const popular = `https://news.example/${newId()}`;
    const quieter = `https://news.example/${newId()}`;
    const lone = `https://news.example/${newId()}`;
    const uncarded = `https://news.example/${newId()}`;
    await Promise.all([popular, quieter, lone].map((url) => storeCardOutcome({ url, card: cardOf(url, `About ${url}`), fetchedAt: new Date().toISOString() })));
    await sharedBy(3, popular);
    await sharedBy(2, quieter);
    await sharedBy(1, lone);
    await sharedBy(2, uncarded);
    // The same status reported twice, and the same account sharing again: one use more, no account more.
    const again = await aUser();
    const status = await aPostedStatus(again.account, { text: popular });
    await countLinkShare(popular, status);
    await countLinkShare(popular, status);
    await countLinkShare(popular, await aPostedStatus(again.account, { text: popular }));

    // The instance settings (trendable_by_default) come from the container's memo, read once per 30 s: kept fresh here.
    await recentInstanceSettings();
    await warmContainer();
    const res = await links();
    expect(res.status).toBe(200);
    // The request's rate-limit counter, the reviews, two day partitions, the page's cards, its week of history
    // (7 keys a link: one BatchGet for up to 14 links).
    expect(res.headers['x-db-calls']).toBe('6');
    const body = res.body as { url: string; title: string; history: { day: string; uses: string; accounts: string }[] }[];
    const urls = body.map((l) => l.url);
    expect(urls.indexOf(popular)).toBeGreaterThanOrEqual(0);
    expect(urls.indexOf(popular)).toBeLessThan(urls.indexOf(quieter));
    expect(urls).not.toContain(lone);
    expect(urls).not.toContain(uncarded);
    const top = body.find((l) => l.url === popular)!;
    expect(top).toMatchObject({ title: `About ${popular}`, type: 'link', provider_name: 'Example' });
    expect(top.history).toHaveLength(7);
    const midnight = String(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) / 1000);
    expect(top.history[0]).toEqual({ day: midnight, uses: '5', accounts: '4' });
    expect(top.history.slice(1).every((h) => h.uses === '0' && h.accounts === '0')).toBe(true);
  });

  it('count only public statuses without a warning', async () => {
    const url = `https://news.example/${newId()}`;
    await storeCardOutcome({ url, card: cardOf(url, 'x'), fetchedAt: new Date().toISOString() });
    await sharedBy(2, url, { visibility: 'unlisted' });
    await sharedBy(2, url, { spoilerText: 'cw' });
    expect((await rankLinks()).find((l) => l.url === url)).toBeUndefined();
    await sharedBy(2, url);
    expect(await urlsOf()).toContain(url);
  });
});

describe('the operator hides trending items (npm run admin -- trends ...)', () => {
  it('hides and unhides a status', async () => {
    const { status } = await aTrendCandidate();
    const fans = await favouritedBy(2, status.id);
    expect(await trendingIds(fans[0]!.token)).toContain(status.id);

    const hidden = await admin('trends', 'hide', 'status', status.id);
    expect(hidden).toMatchObject({ code: 0, out: `Hidden from trends: status ${status.id}.` });
    expect(await trendingIds(fans[0]!.token)).not.toContain(status.id);
    expect(await trendingIds()).not.toContain(status.id);
    const listed = await admin('trends', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(new RegExp(`^  ${status.id}  score \\d+\\.\\d\\d  accounts 2  by \\S+  \\[hidden\\]$`, 'm'));
    expect(listed.out).toContain(`Hidden\n`);
    expect(listed.out).toMatch(new RegExp(`^  status ${status.id}$`, 'm'));

    expect(await admin('trends', 'hide', 'status', status.id)).toMatchObject({ code: 0, out: `Already hidden from trends: status ${status.id}.` });
    expect(await admin('trends', 'unhide', 'status', status.id)).toMatchObject({ code: 0, out: `May trend again: status ${status.id}.` });
    expect(await trendingIds()).toContain(status.id);
    expect(await admin('trends', 'unhide', 'status', status.id)).toMatchObject({ code: 0, out: `Was not hidden: status ${status.id}.` });
  });

  it('hides a link and a tag', async () => {
    const url = `https://hide.example/${newId()}`;
    await storeCardOutcome({
      url,
      card: { url, title: 't', description: '', type: 'link', authorName: '', authorUrl: '', providerName: '', providerUrl: '', html: '', width: 0, height: 0, imageKey: null, imageDescription: '', embedUrl: '', blurhash: null, language: null, publishedAt: null },
      fetchedAt: new Date().toISOString(),
    });
    for (let i = 0; i < 2; i++) {
      const sharer = await aUser();
      await countLinkShare(url, await aPostedStatus(sharer.account, { text: url }));
    }
    const linkUrls = async () => ((await call(linksHandler, { path: '/api/v1/trends/links', query: { limit: '20' } })).body as { url: string }[]).map((l) => l.url);
    expect(await linkUrls()).toContain(url);
    expect((await admin('trends', 'hide', 'link', url)).code).toBe(0);
    expect(await linkUrls()).not.toContain(url);
    expect((await admin('trends', 'list')).out).toContain(`  ${url}  score`);

    const tag = `hidden${Date.now().toString(36)}`;
    for (let i = 0; i < 3; i++) await post(await aUser(), { status: `about #${tag}` });
    const tagNames = async () => ((await call(tagTrendsHandler, { path: '/api/v1/trends/tags', query: { limit: '20' } })).body as { name: string }[]).map((t) => t.name.toLowerCase());
    expect(await tagNames()).toContain(tag);
    expect(await admin('trends', 'hide', 'tag', `#${tag.toUpperCase()}`)).toMatchObject({ code: 0, out: `Hidden from trends: tag #${tag}.` });
    expect(await tagNames()).not.toContain(tag);
    expect((await admin('trends', 'list')).out).toMatch(new RegExp(`#${tag}  score \\d+\\.\\d\\d  \\[hidden\\]`));
    expect((await admin('trends', 'unhide', 'tag', tag)).code).toBe(0);
    expect(await tagNames()).toContain(tag);
  });

  it.each<[string, string[], RegExp]>([
    ['an unknown kind', ['trends', 'hide', 'account', '1'], /Unknown kind "account"/],
    ['a missing kind', ['trends', 'hide'], /Unknown kind ""/],
    ['a missing id', ['trends', 'hide', 'status'], /Missing the status id/],
    ['a malformed id', ['trends', 'hide', 'status', 'abc'], /Not a status id: abc/],
    ['an unknown status', ['trends', 'hide', 'status', '12345'], /No status with id 12345/],
    ['a URL that is not http(s)', ['trends', 'hide', 'link', 'ftp://files.example/x'], /Not an http\(s\) URL/],
    ['not a URL', ['trends', 'hide', 'link', 'nope'], /Not an http\(s\) URL/],
    ['a tag with a space', ['trends', 'hide', 'tag', 'two words'], /Not a hashtag/],
    ['an extra argument', ['trends', 'list', 'more'], /Unexpected argument "more"/],
    ['an unknown command', ['trends', 'frobnicate'], /Unknown command "trends frobnicate"/],
  ])('refuses %s', async (_what, argv, message) => {
    const res = await admin(...argv);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(message);
  });

  it('answers the good twins of those refusals', async () => {
    const { status } = await aTrendCandidate();
    expect((await admin('trends', 'hide', 'status', status.id)).code).toBe(0);
    expect((await admin('trends', 'hide', 'link', 'https://files.example/x')).code).toBe(0);
    expect((await admin('trends', 'hide', 'tag', 'oneword')).code).toBe(0);
    expect((await admin('trends', 'list')).code).toBe(0);
    for (const [kind, value] of [['status', status.id], ['link', 'https://files.example/x'], ['tag', 'oneword']] as const) {
      expect((await admin('trends', 'unhide', kind, value)).code).toBe(0);
    }
  });
});

describe('bad input', () => {
  let user: UserFixture;
  let pushOnly: string;

  beforeAll(async () => {
    user = await aUser();
    pushOnly = (await aUser({ scopes: ['push'] })).token;
  });

  // The statuses are read for a viewer (an invalid token is refused); links are the same for everyone (no token is read).
  it.each<[string, { path: string; handler: typeof statusesHandler; badToken: number }]>([
    ['statuses', { path: '/api/v1/trends/statuses', handler: statusesHandler, badToken: 401 }],
    ['links', { path: '/api/v1/trends/links', handler: linksHandler, badToken: 200 }],
  ])('%s: refuses bad parameters and tokens, answers their good twins', async (_name, endpoint) => {
    const get = (query: Record<string, string>, token?: string) => call(endpoint.handler, { path: endpoint.path, query, token });
    const cases: [string, Record<string, string>, string | undefined, number][] = [
      ['limit not a number', { limit: 'many' }, undefined, 422],
      ['limit a number', { limit: '3' }, undefined, 200],
      ['limit negative', { limit: '-1' }, undefined, 422],
      ['limit above the largest (clamped)', { limit: '1000' }, undefined, 200],
      ['limit oversize string', { limit: '9'.repeat(400) }, undefined, 422],
      ['offset not a number', { offset: 'x' }, undefined, 422],
      ['offset negative', { offset: '-5' }, undefined, 422],
      ['offset fractional', { offset: '1.5' }, undefined, 422],
      ['offset too large', { offset: '10001' }, undefined, 422],
      ['offset at the largest', { offset: '10000' }, undefined, 200],
      ['offset oversize string', { offset: '1'.repeat(5000) }, undefined, 422],
      ['a token that is not one', {}, 'not-a-token', endpoint.badToken],
      ['a real token', {}, user.token, 200],
      ['a token of any scope (trends need none)', {}, pushOnly, 200],
    ];
    for (const [what, query, token, status] of cases) {
      const res = await get(query, token);
      expect({ what, status: res.status }).toEqual({ what, status });
      if (status !== 200) expect(res.body).toEqual({ error: expect.any(String) });
      else expect(Array.isArray(res.body)).toBe(true);
    }
  });
});
