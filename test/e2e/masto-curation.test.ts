// Curating what one sees, tried as new users would with masto on the local stack
// (issue 4's "Done when"): a locked account's follow requests, a list and its
// timeline, an irreversible filter, a block, a status scheduled six minutes
// ahead (the sweeper invoked through the Lambda endpoint with a moved clock),
// search, and a trending tag.
import type { mastodon } from 'masto';
import { z } from 'zod';
import { eventually, newUser, type MastoUser } from '../support/masto';
import { operator } from '../support/operator';
import { useStack } from '../support/stack';
import { sweepAt as sweepStackAt } from '../support/sweep';

// Eight people sign up from 127.0.0.1, each with an app of their own: more than the 5 sign-ups
// and 5 app registrations one address gets (lib/http/ratelimit.ts), and its waits poll the API
// several times a second on a busy machine; the limits themselves are tested in ratelimit-*.test.ts.
const stack = useStack({ env: { RATE_LIMIT_FACTOR: '10' } });

const MINUTE = 60_000;
/** Each step waits on workers (fan-out, notifications) that cold-start in their own invocations on a shared machine. */
const SLOW = 120_000;
/** How long to wait for what a worker does. */
const WORKERS = 60_000;

const sweepResult = z.object({
  polls: z.object({ closed: z.number() }),
  scheduled: z.object({ due: z.number(), published: z.number() }),
});

/** The sweeper's run at `at` (test/support/sweep.ts), with the counts it answers. */
const sweepAt = async (at: number): Promise<z.infer<typeof sweepResult>> => sweepResult.parse(await sweepStackAt(stack(), at));

const ids = (statuses: mastodon.v1.Status[]) => statuses.map((s) => s.id);
const accountIdsOf = (statuses: mastodon.v1.Status[]) => statuses.map((s) => s.account.id);
/** A word no other status of the run contains. */
const unique = (word: string) => `${word}${Date.now().toString(36)}`;

/**
 * Waits until today's public uses of a tag reach `uses` (the history search gives hashtags). The fan-out worker
 * counts a status's tags after its home and list writes, so the fan-out of those statuses is then done.
 */
const tagUsedToday = (client: mastodon.rest.Client, tag: string, uses: number) =>
  eventually(async () => {
    const found = (await client.v2.search.list({ q: `#${tag}`, type: 'hashtags' })).hashtags.find((t) => t.name === tag);
    return found !== undefined && Number(found.history?.[0]?.uses ?? 0) >= uses && found;
  }, `#${tag} counted ${uses} times`, WORKERS);

describe('curating what one sees, with masto on the local stack', () => {
  let lena: MastoUser; // locks her account
  let ray: MastoUser; // whose request she authorizes
  let rita: MastoUser; // whose request she rejects
  let ana: MastoUser; // builds a list, filters, blocks, schedules, searches
  let bob: MastoUser;
  let carl: MastoUser;
  let dave: MastoUser; // whom ana blocks
  let erin: MastoUser; // found by search

  beforeAll(async () => {
    // Trends wait for a moderator's review unless the instance lets them trend first (Mastodon's trendable_by_default):
    // set before any request, so that no function keeps the old setting in its memo.
    const set = await operator(stack(), 'settings', 'set', 'trendable-by-default', 'on');
    if (set.code !== 0) throw new Error(`settings set trendable-by-default: ${set.stderr}`);
    // One at a time: registration is the slowest request (argon2), and the machine is shared.
    lena = await newUser(stack().baseUrl, 'lena');
    ray = await newUser(stack().baseUrl, 'ray');
    rita = await newUser(stack().baseUrl, 'rita');
    ana = await newUser(stack().baseUrl, 'ana');
    bob = await newUser(stack().baseUrl, 'bob');
    carl = await newUser(stack().baseUrl, 'carl');
    dave = await newUser(stack().baseUrl, 'dave');
    erin = await newUser(stack().baseUrl, 'erin');
  }, 120_000);

  describe('a locked account', () => {
    let beforeAuthorization: mastodon.v1.Status;

    it('answers a follow with a request: requested in the relationship, a follow_request notification, follow_requests_count in source', async () => {
      const locked = await lena.client.v1.accounts.updateCredentials({ locked: true });
      expect(locked.locked).toBe(true);
      beforeAuthorization = await lena.client.v1.statuses.create({ status: 'for my followers only', visibility: 'private' });

      const asked = await ray.client.v1.accounts.$select(lena.me.id).follow();
      expect(asked).toMatchObject({ id: lena.me.id, following: false, requested: true });
      expect(await rita.client.v1.accounts.$select(lena.me.id).follow()).toMatchObject({ following: false, requested: true });

      const requests = await lena.client.v1.followRequests.list();
      expect(requests.map((a) => a.id).sort()).toEqual([ray.me.id, rita.me.id].sort());
      const [fromLena] = await lena.client.v1.accounts.relationships.fetch({ id: [ray.me.id] });
      expect(fromLena).toMatchObject({ followedBy: false, requestedBy: true });
      expect((await lena.client.v1.accounts.verifyCredentials()).source.followRequestsCount).toBe(2);
      expect((await lena.client.v1.accounts.$select(lena.me.id).fetch()).followersCount).toBe(0);

      const notes = await eventually(async () => {
        const list = await lena.client.v1.notifications.list({ types: ['follow_request'] });
        return list.length === 2 && list;
      }, 'lena\'s follow_request notifications', WORKERS);
      expect(notes.map((n) => n.account.id).sort()).toEqual([ray.me.id, rita.me.id].sort());
      // A request is not a follow: her followers-only post stays hidden from the requester.
      await expect(ray.client.v1.statuses.$select(beforeAuthorization.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
    }, SLOW);

    it('authorizing a request makes the follow: the follower sees the locked account\'s later posts', async () => {
      const rel = await lena.client.v1.followRequests.$select(ray.me.id).authorize();
      expect(rel).toMatchObject({ id: ray.me.id, followedBy: true, requestedBy: false });
      const [fromRay] = await ray.client.v1.accounts.relationships.fetch({ id: [lena.me.id] });
      expect(fromRay).toMatchObject({ following: true, requested: false });
      expect((await lena.client.v1.accounts.verifyCredentials()).source.followRequestsCount).toBe(1);
      expect((await lena.client.v1.accounts.$select(lena.me.id).fetch()).followersCount).toBe(1);

      const later = await lena.client.v1.statuses.create({ status: 'welcome to the inner circle', visibility: 'private' });
      await eventually(async () => ids(await ray.client.v1.timelines.home.list()).includes(later.id), 'lena\'s private post in ray\'s home', WORKERS);
      expect((await ray.client.v1.statuses.$select(later.id).fetch()).content).toContain('welcome to the inner circle');
      // Now a follower, he may read her earlier followers-only post too.
      expect((await ray.client.v1.statuses.$select(beforeAuthorization.id).fetch()).id).toBe(beforeAuthorization.id);
    }, SLOW);

    it('rejecting a request leaves neither a follow nor a request, and nothing of hers to see', async () => {
      const rel = await lena.client.v1.followRequests.$select(rita.me.id).reject();
      expect(rel).toMatchObject({ id: rita.me.id, followedBy: false, requestedBy: false });
      const [fromRita] = await rita.client.v1.accounts.relationships.fetch({ id: [lena.me.id] });
      expect(fromRita).toMatchObject({ following: false, requested: false });
      expect(await lena.client.v1.followRequests.list()).toEqual([]);
      expect((await lena.client.v1.accounts.verifyCredentials()).source.followRequestsCount).toBe(0);
      expect((await lena.client.v1.accounts.$select(lena.me.id).fetch()).followersCount).toBe(1);
      await expect(rita.client.v1.statuses.$select(beforeAuthorization.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
      // Her earlier request does not turn into a follow on a second look either.
      await expect(lena.client.v1.followRequests.$select(rita.me.id).authorize()).rejects.toMatchObject({ statusCode: 404 });
    }, SLOW);
  });

  it('a list gathers followed accounts: its timeline is filled by the fan-out, backfilled on add, and emptied of a removed member', async () => {
    await ana.client.v1.accounts.$select(bob.me.id).follow();
    await ana.client.v1.accounts.$select(carl.me.id).follow();
    const list = await ana.client.v1.lists.create({ title: 'Close friends' });
    expect(list).toMatchObject({ title: 'Close friends' });
    await ana.client.v1.lists.$select(list.id).accounts.create({ accountIds: [bob.me.id] });
    expect((await ana.client.v1.lists.$select(list.id).accounts.list()).map((a) => a.id)).toEqual([bob.me.id]);
    expect((await ana.client.v1.accounts.$select(bob.me.id).lists.list()).map((l) => l.id)).toEqual([list.id]);

    const listTag = unique('listcheck');
    const fromBob = await bob.client.v1.statuses.create({ status: `bob for the list #${listTag}` });
    const fromCarl = await carl.client.v1.statuses.create({ status: `carl, not listed yet #${listTag}` });
    await tagUsedToday(ana.client, listTag, 2);
    const timeline = await ana.client.v1.timelines.list.$select(list.id).list();
    expect(ids(timeline)).toEqual([fromBob.id]);
    expect(ids(await ana.client.v1.timelines.home.list())).toEqual(expect.arrayContaining([fromBob.id, fromCarl.id]));

    // Adding carl backfills his recent statuses.
    await ana.client.v1.lists.$select(list.id).accounts.create({ accountIds: [carl.me.id] });
    expect(ids(await ana.client.v1.timelines.list.$select(list.id).list())).toEqual([fromCarl.id, fromBob.id]);

    // Removing bob takes his statuses out, and his next one stays out.
    await ana.client.v1.lists.$select(list.id).accounts.remove({ accountIds: [bob.me.id] });
    expect((await ana.client.v1.lists.$select(list.id).accounts.list()).map((a) => a.id)).toEqual([carl.me.id]);
    expect(ids(await ana.client.v1.timelines.list.$select(list.id).list())).toEqual([fromCarl.id]);
    const bobAgain = await bob.client.v1.statuses.create({ status: `bob after leaving the list #${listTag}` });
    const carlAgain = await carl.client.v1.statuses.create({ status: `carl still listed #${listTag}` });
    await tagUsedToday(ana.client, listTag, 4);
    expect(ids(await ana.client.v1.timelines.list.$select(list.id).list())).toEqual([carlAgain.id, fromCarl.id]);
    expect(ids(await ana.client.v1.timelines.home.list())).toEqual(expect.arrayContaining([bobAgain.id, carlAgain.id]));
  }, SLOW);

  it('an irreversible home filter keeps a matching status of a followed account out of home, while a non-matching one arrives', async () => {
    const phrase = unique('spoiler');
    const filter = await ana.client.v1.filters.create({ phrase, context: ['home'], irreversible: true, wholeWord: true });
    expect(filter).toMatchObject({ phrase, context: ['home'], irreversible: true, wholeWord: true });

    const filterTag = unique('filtercheck');
    const matching = await bob.client.v1.statuses.create({ status: `the ending: ${phrase} ahead #${filterTag}` });
    const calm = await bob.client.v1.statuses.create({ status: `nothing to hide here #${filterTag}` });
    // Both fan-outs are done once both uses are counted.
    await tagUsedToday(ana.client, filterTag, 2);
    const home = ids(await ana.client.v1.timelines.home.list({ limit: 40 }));
    expect(home).toContain(calm.id);
    expect(home).not.toContain(matching.id);
    // Only home drops it: the status itself and bob's profile still show it.
    expect((await ana.client.v1.statuses.$select(matching.id).fetch()).id).toBe(matching.id);
    expect(ids(await ana.client.v1.accounts.$select(bob.me.id).statuses.list())).toContain(matching.id);
  }, SLOW);

  it('blocking someone makes them vanish from home, public, tag, context, notifications and search, and severs follows both ways', async () => {
    await ana.client.v1.accounts.$select(dave.me.id).follow();
    await dave.client.v1.accounts.$select(ana.me.id).follow();
    const question = await ana.client.v1.statuses.create({ status: 'what should I read next?', visibility: 'public' });
    const word = unique('quokka');
    const tag = unique('blockcheck');
    const reply = await dave.client.v1.statuses.create({ status: `@${ana.me.username} anything about ${word}`, inReplyToId: question.id, visibility: 'public' });
    const daves = await dave.client.v1.statuses.create({ status: `my thoughts on ${word} #${tag}`, visibility: 'public' });
    await dave.client.v1.statuses.$select(question.id).favourite();

    // Everywhere first, so that the absence below means something.
    await tagUsedToday(ana.client, tag, 1);
    await eventually(async () => ids(await dave.client.v1.timelines.home.list()).includes(question.id), 'ana\'s question in dave\'s home', WORKERS);
    expect(ids(await ana.client.v1.timelines.home.list({ limit: 40 }))).toEqual(expect.arrayContaining([reply.id, daves.id]));
    expect(ids(await ana.client.v1.timelines.public.list({ local: true, limit: 40 }))).toContain(daves.id);
    expect(ids(await ana.client.v1.timelines.tag.$select(tag).list())).toEqual([daves.id]);
    expect(ids((await ana.client.v1.statuses.$select(question.id).context.fetch()).descendants)).toEqual([reply.id]);
    const fromDave = (list: mastodon.v1.Notification[]) => list.filter((n) => n.account.id === dave.me.id).map((n) => n.type).sort();
    await eventually(async () => fromDave(await ana.client.v1.notifications.list()).length === 3, 'ana\'s notifications from dave', WORKERS);
    expect(fromDave(await ana.client.v1.notifications.list())).toEqual(['favourite', 'follow', 'mention']);
    expect(ids((await ana.client.v2.search.list({ q: word, type: 'statuses' })).statuses).sort()).toEqual([reply.id, daves.id].sort());
    expect((await ana.client.v2.search.list({ q: dave.me.username, type: 'accounts' })).accounts.map((a) => a.id)).toEqual([dave.me.id]);

    const rel = await ana.client.v1.accounts.$select(dave.me.id).block();
    expect(rel).toMatchObject({ id: dave.me.id, blocking: true, following: false, followedBy: false });

    expect(accountIdsOf(await ana.client.v1.timelines.home.list({ limit: 40 }))).not.toContain(dave.me.id);
    expect(accountIdsOf(await ana.client.v1.timelines.public.list({ local: true, limit: 40 }))).not.toContain(dave.me.id);
    expect(await ana.client.v1.timelines.tag.$select(tag).list()).toEqual([]);
    expect((await ana.client.v1.statuses.$select(question.id).context.fetch()).descendants).toEqual([]);
    expect(fromDave(await ana.client.v1.notifications.list())).toEqual([]);
    const after = await ana.client.v2.search.list({ q: word });
    expect(after.statuses).toEqual([]);
    // The exact name still finds him, as on Mastodon, so that he can be unblocked by name; a partial one does not.
    expect((await ana.client.v2.search.list({ q: dave.me.username, type: 'accounts' })).accounts.map((a) => a.id)).toEqual([dave.me.id]);
    expect((await ana.client.v2.search.list({ q: dave.me.username.slice(0, -1), type: 'accounts' })).accounts.map((a) => a.id)).not.toContain(dave.me.id);

    // Severed both ways, and the counters say so.
    const [fromDaveSide] = await dave.client.v1.accounts.relationships.fetch({ id: [ana.me.id] });
    expect(fromDaveSide).toMatchObject({ following: false, followedBy: false, blockedBy: true });
    const anaNow = await ana.client.v1.accounts.verifyCredentials();
    const daveNow = await dave.client.v1.accounts.verifyCredentials();
    expect([anaNow.followersCount, daveNow.followersCount, daveNow.followingCount]).toEqual([0, 0, 0]);
    // ...and the blocker vanishes from the blocked account's home as well.
    expect(accountIdsOf(await dave.client.v1.timelines.home.list({ limit: 40 }))).not.toContain(ana.me.id);
  }, SLOW);

  describe('a status scheduled six minutes ahead', () => {
    let scheduled: mastodon.v1.ScheduledStatus;
    const text = `six minutes from now ${unique('sched')}`;

    it('is swept by a schedule the local stack runs every minute, as EventBridge does in AWS (infra/local/schedule.ts)', () => {
      expect(stack().output()).toMatch(/sweeper: rate\(1 minute\), from \d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z/);
    });

    it('is listed among the scheduled statuses and not published before its time', async () => {
      await bob.client.v1.accounts.$select(ana.me.id).follow();
      const at = new Date(Date.now() + 6 * MINUTE).toISOString();
      scheduled = await ana.client.v1.statuses.create({ status: text, scheduledAt: at, visibility: 'public' });
      expect(scheduled).toMatchObject({ scheduledAt: at, params: { text, visibility: 'public' } });
      expect((await ana.client.v1.scheduledStatuses.list()).map((s) => s.id)).toEqual([scheduled.id]);

      // The sweeper at the real time: nothing is due.
      const now = await sweepAt(Date.now());
      expect(now.scheduled).toEqual({ due: 0, published: 0 });
      expect((await ana.client.v1.scheduledStatuses.$select(scheduled.id).fetch()).id).toBe(scheduled.id);
      expect((await ana.client.v1.accounts.$select(ana.me.id).statuses.list()).map((s) => s.content).join('\n')).not.toContain(text);
    }, SLOW);

    it('two sweeps at once with the clock moved past it publish it exactly once: on the profile and in the follower\'s home, gone from the scheduled list', async () => {
      const moved = Date.parse(scheduled.scheduledAt) + 30_000;
      const runs = await Promise.all([sweepAt(moved), sweepAt(moved)]);
      expect(runs[0]!.scheduled.published + runs[1]!.scheduled.published).toBe(1);

      const profile = (await ana.client.v1.accounts.$select(ana.me.id).statuses.list()).filter((s) => s.content.includes(text));
      expect(profile).toHaveLength(1);
      const published = profile[0]!;
      expect(published).toMatchObject({ visibility: 'public', account: { id: ana.me.id } });
      // Published now, by the real clock, though the sweep judged it at the moved time.
      expect(Date.parse(published.createdAt)).toBeLessThan(Date.parse(scheduled.scheduledAt));
      expect(await ana.client.v1.scheduledStatuses.list()).toEqual([]);
      await expect(ana.client.v1.scheduledStatuses.$select(scheduled.id).fetch()).rejects.toMatchObject({ statusCode: 404 });

      const home = await eventually(async () => {
        const page = await bob.client.v1.timelines.home.list({ limit: 40 });
        return page.some((s) => s.id === published.id) && page;
      }, 'the published status in bob\'s home', WORKERS);
      expect(home.filter((s) => s.content.includes(text)).map((s) => s.id)).toEqual([published.id]);

      // A later sweep finds nothing left to publish.
      expect((await sweepAt(moved + MINUTE)).scheduled).toEqual({ due: 0, published: 0 });
      expect((await ana.client.v1.accounts.$select(ana.me.id).statuses.list()).filter((s) => s.content.includes(text))).toHaveLength(1);
    }, SLOW);
  });

  it('search finds an account by username prefix and by display name, a status by its full text, and a hashtag by prefix', async () => {
    const updated = await erin.client.v1.accounts.updateCredentials({ displayName: 'Quintessa Marlowe' });
    expect(updated.displayName).toBe('Quintessa Marlowe');
    const words = `${unique('marmalade')} zeppelin`;
    const tag = unique('aeronautics');
    const status = await erin.client.v1.statuses.create({ status: `the ${words} leaves at dawn #${tag}`, visibility: 'public' });

    const byPrefix = await ana.client.v2.search.list({ q: erin.me.username.slice(0, 6), type: 'accounts' });
    expect(byPrefix.accounts.map((a) => a.id)).toContain(erin.me.id);
    const byName = await ana.client.v2.search.list({ q: 'quintessa marl', type: 'accounts' });
    expect(byName.accounts.map((a) => a.id)).toEqual([erin.me.id]);

    const found = await eventually(async () => {
      const res = await ana.client.v2.search.list({ q: words, type: 'statuses' });
      return res.statuses.length > 0 && res;
    }, 'the status in the search index', WORKERS);
    expect(ids(found.statuses)).toEqual([status.id]);
    // Every word must match: one that is not in it finds nothing.
    expect((await ana.client.v2.search.list({ q: `${words} submarine`, type: 'statuses' })).statuses).toEqual([]);

    const tags = await eventually(async () => {
      const res = await ana.client.v2.search.list({ q: `#${tag.slice(0, -3)}`, type: 'hashtags' });
      return res.hashtags.length > 0 && res;
    }, 'the hashtag in the search index', WORKERS);
    expect(tags.hashtags.map((t) => t.name)).toEqual([tag]);

    // All three kinds at once, as clients ask.
    const all = await ana.client.v2.search.list({ q: 'quintessa' });
    expect(all.accounts.map((a) => a.id)).toEqual([erin.me.id]);
  }, SLOW);

  it('trends show a tag that three accounts used today, and not one that a single account used', async () => {
    const trending = unique('bakeoff');
    const lonely = unique('solo');
    await bob.client.v1.statuses.create({ status: `my entry for the #${trending}`, visibility: 'public' });
    await carl.client.v1.statuses.create({ status: `#${trending} day!`, visibility: 'public' });
    await erin.client.v1.statuses.create({ status: `judging the #${trending} and a #${lonely} loaf`, visibility: 'public' });
    await erin.client.v1.statuses.create({ status: `another #${lonely} loaf`, visibility: 'public' });
    await tagUsedToday(ana.client, trending, 3);
    await tagUsedToday(ana.client, lonely, 2);

    const trends = await ana.client.v1.trends.tags.list();
    const shown = trends.find((t) => t.name === trending);
    expect(shown).toBeDefined();
    expect(shown!.history?.[0]).toMatchObject({ uses: '3', accounts: '3' });
    expect(shown!.history).toHaveLength(7);
    expect(trends.map((t) => t.name)).not.toContain(lonely);
  }, SLOW);
});
