// Polls across two servers of ours, through masto: a poll posted on the first
// server is voted on from the second (the vote travels as Create(Note) with
// `name`) and the counts show on both; a vote by the author's neighbour reaches
// the second server only through the sweeper's Update(Question); the second
// server's multiple-choice poll takes the first server's votes likewise; and
// when the first poll closes, the second server sees it closed.
//
// Closing: polls run five minutes at least (the API's minimum), so the sweeper
// is invoked through the Lambda endpoint with its clock moved past the end (as
// test/e2e/masto-curation.test.ts does for scheduled statuses). The closing
// Update(Question) carries `closed`; the receiving server reads a closing time
// still ahead as "now" (closed means ended), so the other side shows the poll
// ended at once, while the first server, whose real clock has not reached the
// end, still shows it running: that is the moved clock, not the federation.
import type { mastodon } from 'masto';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { sweepAt } from '../../support/sweep';
import { HOP_MS, STEP_MS, acctOn, followAcross, need, resolveAccount, resolveStatus } from './pair';

const countsOf = (poll: mastodon.v1.Poll | null | undefined) => poll?.options.map((o) => o.votesCount);

/** `viewer`'s server's rendering of the status, read again until `holds` says it shows what is expected. */
const pollWhen = (viewer: MastoUser, statusId: string, holds: (poll: mastodon.v1.Poll) => boolean, what: string) =>
  eventually(
    async () => {
      const poll = (await viewer.client.v1.statuses.$select(statusId).fetch()).poll;
      return poll && holds(poll) ? poll : undefined;
    },
    what,
    HOP_MS,
  );

export function pollsSteps(pair: () => [Stack, Stack]) {
  describe('polls', () => {
    let ann: MastoUser; // on the first server: posts a poll, votes on cat's
    let ben: MastoUser; // on the first server: votes on ann's poll
    let cat: MastoUser; // on the second server: follows ann, votes on her poll, posts one
    let annsPoll: mastodon.v1.Status | undefined; // on the first server
    let annsPollOnSecond: mastodon.v1.Status | undefined;

    beforeAll(async () => {
      const [first, second] = pair();
      [ann, ben, cat] = await Promise.all([newUser(first.baseUrl, 'pann'), newUser(first.baseUrl, 'pben'), newUser(second.baseUrl, 'pcat')]);
    }, STEP_MS);

    it('a poll posted on the first server reaches the second as a poll (Question)', async () => {
      const [first] = pair();
      await followAcross(cat, await resolveAccount(cat, acctOn(ann, first)));
      annsPoll = await ann.client.v1.statuses.create({ status: 'tea or coffee?', visibility: 'public', poll: { options: ['tea', 'coffee'], expiresIn: 300 } });
      const seen = await resolveStatus(cat, annsPoll.uri);
      annsPollOnSecond = seen;
      expect(seen.poll).toMatchObject({ expired: false, multiple: false, votesCount: 0, voted: false, options: [{ title: 'tea', votesCount: 0 }, { title: 'coffee', votesCount: 0 }] });
      expect(Date.parse(seen.poll!.expiresAt!)).toBe(Date.parse(annsPoll.poll!.expiresAt!));
    }, STEP_MS);

    it('a vote from the second server is counted on both', async () => {
      const there = need(annsPollOnSecond, 'ann\'s poll on the second server');
      const voted = await cat.client.v1.polls.$select(there.poll!.id).votes.create({ choices: [1] });
      expect(voted).toMatchObject({ voted: true, ownVotes: [1], votesCount: 1 });
      const here = need(annsPoll, 'ann\'s poll');
      const counted = await pollWhen(ann, here.id, (p) => p.votesCount === 1, 'cat\'s vote counted on the first server');
      expect(countsOf(counted)).toEqual([0, 1]);
      expect(counted.votersCount).toBe(1);
      // Cat's server remembers the vote: a second one is refused there.
      await expect(cat.client.v1.polls.$select(there.poll!.id).votes.create({ choices: [0] })).rejects.toMatchObject({ statusCode: 422 });
    }, STEP_MS);

    it('a vote on the first server reaches the second through Update(Question)', async () => {
      const [first] = pair();
      const here = need(annsPoll, 'ann\'s poll');
      await ben.client.v1.polls.$select(here.poll!.id).votes.create({ choices: [0] });
      // The sweeper sends the Update once a minute; run it now rather than wait for the schedule.
      await sweepAt(first, Date.now());
      const there = need(annsPollOnSecond, 'ann\'s poll on the second server');
      const updated = await pollWhen(cat, there.id, (p) => p.votesCount === 2, 'the Update(Question) on the second server');
      expect(countsOf(updated)).toEqual([1, 1]);
      expect(updated).toMatchObject({ votersCount: 2, voted: true, ownVotes: [1] });
    }, STEP_MS);

    it('the second server\'s multiple-choice poll takes a vote from the first', async () => {
      const [, second] = pair();
      await followAcross(ann, await resolveAccount(ann, acctOn(cat, second)));
      const catsPoll = await cat.client.v1.statuses.create({ status: 'which colours?', visibility: 'public', poll: { options: ['red', 'green', 'blue'], expiresIn: 600, multiple: true } });
      const seen = await resolveStatus(ann, catsPoll.uri);
      expect(seen.poll).toMatchObject({ multiple: true, expired: false, votesCount: 0 });
      const voted = await ann.client.v1.polls.$select(seen.poll!.id).votes.create({ choices: [0, 2] });
      expect(voted).toMatchObject({ voted: true, ownVotes: [0, 2], votesCount: 2, votersCount: 1 });
      const counted = await pollWhen(cat, catsPoll.id, (p) => p.votesCount === 2, 'ann\'s two choices counted on the second server');
      expect(countsOf(counted)).toEqual([1, 0, 1]);
      expect(counted.votersCount).toBe(1);
    }, STEP_MS);

    it('when the first server\'s poll closes, the second sees it closed, with its final counts', async () => {
      const [first] = pair();
      const here = need(annsPoll, 'ann\'s poll');
      const there = need(annsPollOnSecond, 'ann\'s poll on the second server');
      expect((await cat.client.v1.statuses.$select(there.id).fetch()).poll?.expired).toBe(false);
      await sweepAt(first, Date.parse(here.poll!.expiresAt!) + 60_000);
      const closed = await pollWhen(cat, there.id, (p) => p.expired, 'the poll closed on the second server');
      expect(countsOf(closed)).toEqual([1, 1]);
      expect(Date.parse(closed.expiresAt!)).toBeLessThanOrEqual(Date.now());
      // Closed there: a vote is refused by the second server itself.
      const late = await newUser(pair()[1].baseUrl, 'plate');
      const lateView = await resolveStatus(late, here.uri);
      await expect(late.client.v1.polls.$select(lateView.poll!.id).votes.create({ choices: [0] })).rejects.toMatchObject({ statusCode: 422 });
    }, STEP_MS);
  });
}
