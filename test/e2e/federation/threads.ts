// Replies, threads and mentions across two servers of ours, through masto. A
// thread that goes back and forth (a person on the first server posts, one on the
// second replies, another on the first replies to that) is shown whole in
// `context` to someone on the second server who follows only the last replier;
// a thread written entirely on the first server reaches the second through its
// last reply alone, and the second server fetches the ancestors it never received;
// a post mentioning `@user@otherserver` never resolved before reaches them and
// notifies them.
import type { mastodon } from 'masto';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { HOP_MS, STEP_MS, acctOn, followAcross, need, resolveAccount, resolveStatus } from './pair';

/** The status `uri` once it is stored on `viewer`'s server, found by search WITHOUT resolving: only what arrived there by itself. */
const arrivedAt = (viewer: MastoUser, uri: string): Promise<mastodon.v1.Status> =>
  eventually(
    async () => (await viewer.client.v2.search.list({ q: uri, type: 'statuses', resolve: false })).statuses.find((s) => s.uri === uri),
    `${uri} delivered to ${viewer.me.username}'s server`,
    HOP_MS,
  );

const urisOf = (list: mastodon.v1.Status[]) => list.map((s) => s.uri);

export function threadsSteps(pair: () => [Stack, Stack]) {
  describe('threads and mentions', () => {
    let ada: MastoUser; // first server: posts the root
    let bea: MastoUser; // second server: replies to ada
    let cyd: MastoUser; // first server: replies to bea's reply
    let dov: MastoUser; // second server: follows only cyd
    let eli: MastoUser; // first server: a thread of her own answered by cyd
    let fay: MastoUser; // second server: mentioned by handle, never resolved on the first before
    let root: mastodon.v1.Status | undefined;
    let beasReply: mastodon.v1.Status | undefined;

    beforeAll(async () => {
      const [first, second] = pair();
      [ada, bea, cyd, dov, eli, fay] = await Promise.all([
        newUser(first.baseUrl, 'tada'),
        newUser(second.baseUrl, 'tbea'),
        newUser(first.baseUrl, 'tcyd'),
        newUser(second.baseUrl, 'tdov'),
        newUser(first.baseUrl, 'teli'),
        newUser(second.baseUrl, 'tfay'),
      ]);
      const cydOnSecond = await resolveAccount(dov, acctOn(cyd, first));
      await followAcross(dov, cydOnSecond);
    }, STEP_MS);

    it('a reply from the second server to a post of the first is linked, counted and notified there', async () => {
      const [first, second] = pair();
      root = await ada.client.v1.statuses.create({ status: 'where do threads go?', visibility: 'public' });
      const rootOnSecond = await resolveStatus(bea, root.uri);
      beasReply = await bea.client.v1.statuses.create({ status: `@${acctOn(ada, first)} everywhere`, inReplyToId: rootOnSecond.id, visibility: 'public' });
      expect(beasReply.inReplyToId).toBe(rootOnSecond.id);

      const mention = await eventually(
        async () => (await ada.client.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === beasReply!.uri),
        'ada notified of bea\'s reply',
        HOP_MS,
      );
      expect(mention.account.acct).toBe(acctOn(bea, second));
      expect(mention.status!.inReplyToId).toBe(root.id);
      const counted = await eventually(async () => {
        const seen = await ada.client.v1.statuses.$select(root!.id).fetch();
        return seen.repliesCount === 1 ? seen : undefined;
      }, 'the reply counted on the root', HOP_MS);
      expect(counted.repliesCount).toBe(1);
    }, STEP_MS);

    it('a reply to that reply from the first server shows the whole thread on the second to one who follows only its author', async () => {
      const [, second] = pair();
      const reply = need(beasReply, 'bea\'s reply');
      const replyOnFirst = await arrivedAt(cyd, reply.uri);
      const cydsReply = await cyd.client.v1.statuses.create({ status: `@${acctOn(bea, second)} and back`, inReplyToId: replyOnFirst.id, visibility: 'public' });

      const onSecond = await arrivedAt(dov, cydsReply.uri);
      const context = await dov.client.v1.statuses.$select(onSecond.id).context.fetch();
      expect(urisOf(context.ancestors)).toEqual([need(root, 'the root').uri, reply.uri]);
      // bea was mentioned: her server notifies her of the answer.
      await eventually(
        async () => (await bea.client.v1.notifications.list({ types: ['mention'] })).some((n) => n.status?.uri === cydsReply.uri),
        'bea notified of cyd\'s answer',
        HOP_MS,
      );
    }, STEP_MS);

    it('a thread written on the first server alone reaches the second through its last reply, and the second fetches the rest', async () => {
      const start = await eli.client.v1.statuses.create({ status: 'a thread of my own', visibility: 'public' });
      const more = await eli.client.v1.statuses.create({ status: 'continued', inReplyToId: start.id, visibility: 'public' });
      // The second server has no follower of eli: only cyd's answer is delivered there (dov follows cyd).
      const answer = await cyd.client.v1.statuses.create({ status: 'an answer', inReplyToId: more.id, visibility: 'public' });

      const onSecond = await arrivedAt(dov, answer.uri);
      expect(onSecond.inReplyToId).not.toBeNull();
      const context = await dov.client.v1.statuses.$select(onSecond.id).context.fetch();
      expect(urisOf(context.ancestors)).toEqual([start.uri, more.uri]);
      // The fetched ancestors are stored, not distributed: dov's home has cyd's answer (he follows cyd) and nothing of eli's.
      const home = await dov.client.v1.timelines.home.list({ limit: 40 });
      expect(urisOf(home)).not.toContain(start.uri);
      expect(urisOf(home)).not.toContain(more.uri);
    }, STEP_MS);

    it('a post mentioning @user@otherserver never resolved here before reaches them and notifies them', async () => {
      const [, second] = pair();
      const handle = acctOn(fay, second);
      const post = await eli.client.v1.statuses.create({ status: `hello @${handle}`, visibility: 'public' });
      expect(post.mentions.map((m) => m.acct)).toEqual([handle]);
      expect(post.content).toContain('class="u-url mention"');
      const notified = await eventually(
        async () => (await fay.client.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === post.uri),
        'fay notified',
        HOP_MS,
      );
      expect(notified.account.acct).toBe(acctOn(eli, pair()[0]));

      // A direct post to her alone arrives too, direct.
      const direct = await ada.client.v1.statuses.create({ status: `just you @${handle}`, visibility: 'direct' });
      const dm = await eventually(
        async () => (await fay.client.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === direct.uri),
        'fay notified of the direct post',
        HOP_MS,
      );
      expect(dm.status!.visibility).toBe('direct');
    }, STEP_MS);
  });
}
