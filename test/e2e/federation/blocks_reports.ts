// Blocks and reports between two servers of ours, as people meet them: ann on the
// first server and ben on the second follow each other; ann blocks ben, and the
// follows end on both servers, ben's server shows him `blocked_by`, and his new
// posts stop reaching hers; ann unblocks. Then ben reports ann, forwarding the
// report: it arrives on ann's server as a report from ben's server, which its
// operator sees with `npm run admin -- reports` (run here against that stack's table).
import type { mastodon } from 'masto';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { HOP_MS, STEP_MS, acctOn, followAcross, need, resolveAccount, resolveStatus, adminOn } from './pair';

const relationshipOf = async (viewer: MastoUser, other: mastodon.v1.Account) =>
  (await viewer.client.v1.accounts.relationships.fetch({ id: [other.id] }))[0];

export function blocksReportsSteps(pair: () => [Stack, Stack]) {
  describe('blocks and reports', () => {
    let ann: MastoUser | undefined;
    let ben: MastoUser | undefined;
    /** cal, on ann's server, follows nobody: the witness that ben's server still reaches hers. */
    let cal: MastoUser | undefined;
    /** ben as ann's server knows him, ann as ben's server knows her. */
    let benOnFirst: mastodon.v1.Account | undefined;
    let annOnSecond: mastodon.v1.Account | undefined;
    /** ann's post, as ben's server knows it (he reports it). */
    let annsPost: mastodon.v1.Status | undefined;

    beforeAll(async () => {
      const [first, second] = pair();
      [ann, ben, cal] = await Promise.all([newUser(first.baseUrl, 'ann'), newUser(second.baseUrl, 'ben'), newUser(first.baseUrl, 'cal')]);
    }, STEP_MS);

    it('ann and ben follow each other across the servers', async () => {
      const [first, second] = pair();
      const a = need(ann, 'ann');
      const b = need(ben, 'ben');
      benOnFirst = await resolveAccount(a, acctOn(b, second));
      annOnSecond = await resolveAccount(b, acctOn(a, first));
      await followAcross(a, benOnFirst);
      await followAcross(b, annOnSecond);
      expect(await relationshipOf(a, benOnFirst)).toMatchObject({ following: true, followedBy: true });
    }, STEP_MS);

    it('ann blocks ben: the follows end on both servers and ben’s server shows him blocked_by', async () => {
      const a = need(ann, 'ann');
      const b = need(ben, 'ben');
      const benThere = need(benOnFirst, 'ben on the first server');
      const annThere = need(annOnSecond, 'ann on the second server');
      expect(await a.client.v1.accounts.$select(benThere.id).block()).toMatchObject({ blocking: true, following: false, followedBy: false });
      const seen = await eventually(
        async () => {
          const r = await relationshipOf(b, annThere);
          return r?.blockedBy && !r.following && !r.followedBy ? r : undefined;
        },
        'ben’s server hears of the block',
        HOP_MS,
      );
      expect(seen).toMatchObject({ blockedBy: true, blocking: false, following: false, followedBy: false });
    }, STEP_MS);

    it('ben’s new posts stop reaching ann’s server, while a mention of cal still does', async () => {
      const [first] = pair();
      const b = need(ben, 'ben');
      const c = need(cal, 'cal');
      const benThere = need(benOnFirst, 'ben on the first server');
      const unseen = await b.client.v1.statuses.create({ status: 'after the block', visibility: 'public' });
      // Sent after it, to cal on the same server: once it arrived, the first post would have too, had it gone.
      const calThere = await resolveAccount(b, acctOn(c, first));
      const witness = await b.client.v1.statuses.create({ status: `@${calThere.acct} are you there?`, visibility: 'direct' });
      await eventually(
        async () => (await c.client.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === witness.uri),
        'cal is mentioned by ben',
        HOP_MS,
      );
      const known = await c.client.v1.accounts.$select(benThere.id).statuses.list({ limit: 40 });
      expect(known.map((s) => s.uri)).not.toContain(unseen.uri);
    }, STEP_MS);

    it('ann unblocks ben: both servers drop the block (the follows stay ended)', async () => {
      const a = need(ann, 'ann');
      const b = need(ben, 'ben');
      const benThere = need(benOnFirst, 'ben on the first server');
      const annThere = need(annOnSecond, 'ann on the second server');
      expect(await a.client.v1.accounts.$select(benThere.id).unblock()).toMatchObject({ blocking: false });
      const seen = await eventually(
        async () => {
          const r = await relationshipOf(b, annThere);
          return r && !r.blockedBy ? r : undefined;
        },
        'ben’s server hears of the unblock',
        HOP_MS,
      );
      expect(seen).toMatchObject({ blockedBy: false, following: false, followedBy: false });
    }, STEP_MS);

    it('ben reports ann with forward: her server stores a report from his server, which its operator lists and shows', async () => {
      const [first, second] = pair();
      const a = need(ann, 'ann');
      const b = need(ben, 'ben');
      const annThere = need(annOnSecond, 'ann on the second server');
      const post = await a.client.v1.statuses.create({ status: 'something to report', visibility: 'public' });
      annsPost = await resolveStatus(b, post.uri);
      const filed = await b.client.v1.reports.create({ accountId: annThere.id, statusIds: [annsPost.id], comment: 'reported across', forward: true });
      expect(filed).toMatchObject({ forwarded: true, comment: 'reported across', actionTaken: false });

      const line = await eventually(
        async () => (await adminOn(first, ['reports', 'list'])).split('\n').find((l) => l.includes(`about ${a.me.username}`)),
        'the report on ann’s server',
        HOP_MS,
      );
      expect(line).toContain(`from ${second.domain}`);
      const id = line.split(/\s+/)[0]!;
      const shown = await adminOn(first, ['reports', 'show', id]);
      expect(shown).toContain('comment:     reported across');
      expect(shown).toContain(`statuses:    ${post.id}`);
      // ben is named nowhere on ann's server: the Flag came from his server's instance actor.
      expect(shown).not.toContain(b.me.username);
    }, STEP_MS);
  });
}
