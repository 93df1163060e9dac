// Favourites and boosts across two servers of ours, through masto, both ways: a
// person on each server favourites and boosts the other's post (Like, Announce);
// the author's server shows the counts, favourited_by and reblogged_by, the
// author's notifications, and the boost (as a reblog) in the home of the
// booster's follower there; unfavouriting and unboosting (Undo) take it all back.
import type { mastodon } from 'masto';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { HOP_MS, STEP_MS, acctOn, followAcross, need, resolveAccount, resolveStatus } from './pair';

/** One direction: `author` posted `post`; `fan` (other server) favourites and boosts it; `reader` (author's server) follows `fan`. */
type Direction = { author: MastoUser; fan: MastoUser; reader: MastoUser; authorStack: Stack; fanStack: Stack; post?: mastodon.v1.Status; seen?: mastodon.v1.Status };

/** The post as its author's server shows it, read again until `holds` says it shows what is expected. */
const postWhen = (d: Direction, holds: (s: mastodon.v1.Status) => boolean, what: string) =>
  eventually(
    async () => {
      const status = await d.author.client.v1.statuses.$select(need(d.post, 'the post').id).fetch();
      return holds(status) ? status : undefined;
    },
    what,
    HOP_MS,
  );

/** The fan's boost of the post in the reader's home, when it is there. */
async function boostInHome(d: Direction): Promise<mastodon.v1.Status | undefined> {
  const home = await d.reader.client.v1.timelines.home.list({ limit: 40 });
  return home.find((s) => s.reblog?.id === d.post?.id && s.account.acct === acctOn(d.fan, d.fanStack));
}

async function favouriteAndBoost(d: Direction): Promise<void> {
  d.post = await d.author.client.v1.statuses.create({ status: `boost me, from ${d.author.me.username}`, visibility: 'public' });
  d.seen = await resolveStatus(d.fan, d.post.uri);
  await d.fan.client.v1.statuses.$select(d.seen.id).favourite();
  await d.fan.client.v1.statuses.$select(d.seen.id).reblog();
  const fanAcct = acctOn(d.fan, d.fanStack);

  const counted = await postWhen(d, (s) => s.favouritesCount === 1 && s.reblogsCount === 1, 'the favourite and the boost counted on the author\'s server');
  expect(counted).toMatchObject({ favouritesCount: 1, reblogsCount: 1 });
  const postId = d.post.id;
  expect((await d.author.client.v1.statuses.$select(postId).favouritedBy.list()).map((a) => a.acct)).toEqual([fanAcct]);
  expect((await d.author.client.v1.statuses.$select(postId).rebloggedBy.list()).map((a) => a.acct)).toEqual([fanAcct]);
  const notified = await eventually(
    async () => {
      const ns = (await d.author.client.v1.notifications.list({ types: ['favourite', 'reblog'] })).filter((n) => n.status?.id === postId && n.account.acct === fanAcct);
      return ns.length === 2 ? ns : undefined;
    },
    'the author notified of the favourite and the boost',
    HOP_MS,
  );
  expect(notified.map((n) => n.type).sort()).toEqual(['favourite', 'reblog']);
  const boost = await eventually(() => boostInHome(d), "the boost in the home of the booster's follower", HOP_MS);
  expect(boost).toMatchObject({ account: { acct: fanAcct }, reblog: { id: postId, uri: d.post.uri } });
}

async function takeBack(d: Direction): Promise<void> {
  const seen = need(d.seen, 'the post on the fan\'s server');
  await d.fan.client.v1.statuses.$select(seen.id).unfavourite();
  await d.fan.client.v1.statuses.$select(seen.id).unreblog();
  const uncounted = await postWhen(d, (s) => s.favouritesCount === 0 && s.reblogsCount === 0, 'the favourite and the boost taken back on the author\'s server');
  expect(uncounted).toMatchObject({ favouritesCount: 0, reblogsCount: 0 });
  const postId = need(d.post, 'the post').id;
  expect(await d.author.client.v1.statuses.$select(postId).favouritedBy.list()).toEqual([]);
  expect(await d.author.client.v1.statuses.$select(postId).rebloggedBy.list()).toEqual([]);
  await eventually(async () => (await boostInHome(d)) === undefined, "the boost gone from the home of the booster's follower", HOP_MS);
}

export function likesBoostsSteps(pair: () => [Stack, Stack]) {
  describe('likes and boosts', () => {
    // ann (first) and bo (second) favourite and boost each other's posts; ada (first) follows bo, bea (second) follows ann.
    let there: Direction | undefined; // bo's favourite and boost of ann's post, seen on the first server
    let back: Direction | undefined; // ann's of bo's post, seen on the second

    beforeAll(async () => {
      const [first, second] = pair();
      const [ann, ada, bo, bea] = await Promise.all([newUser(first.baseUrl, 'lann'), newUser(first.baseUrl, 'lada'), newUser(second.baseUrl, 'lbo'), newUser(second.baseUrl, 'lbea')]);
      there = { author: ann, fan: bo, reader: ada, authorStack: first, fanStack: second };
      back = { author: bo, fan: ann, reader: bea, authorStack: second, fanStack: first };
    }, STEP_MS);

    it("each booster is followed by someone on the other's server", async () => {
      const [first, second] = pair();
      const d = need(there, 'the users');
      await followAcross(d.reader, await resolveAccount(d.reader, acctOn(d.fan, second)));
      const e = need(back, 'the users');
      await followAcross(e.reader, await resolveAccount(e.reader, acctOn(e.fan, first)));
    }, STEP_MS);

    it('a favourite and a boost from the second server show on the first', () => favouriteAndBoost(need(there, 'the users')), STEP_MS);

    it('a favourite and a boost from the first server show on the second', () => favouriteAndBoost(need(back, 'the users')), STEP_MS);

    it('unfavouriting and unboosting on the second server take them back on the first', () => takeBack(need(there, 'the users')), STEP_MS);

    it('unfavouriting and unboosting on the first server take them back on the second', () => takeBack(need(back, 'the users')), STEP_MS);
  });
}
