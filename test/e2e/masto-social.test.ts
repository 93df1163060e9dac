// Two people on the local stack, with masto as their app: follow, post with a
// picture and a poll, read timelines, vote, favourite, boost, get notified,
// page through a timeline by its Link headers, and delete-and-redraft.
import sharp from 'sharp';
import type { mastodon } from 'masto';
import { eventually, newUser as newUserOn, type MastoUser } from '../support/masto';
import { useStack } from '../support/stack';

const stack = useStack();

const newUser = (name: string) => newUserOn(stack().baseUrl, name);

describe('two people on the local stack', () => {
  let a: MastoUser;
  let b: MastoUser;
  let post: mastodon.v1.Status;
  let imagePost: mastodon.v1.Status;

  beforeAll(async () => {
    a = await newUser('alice');
    b = await newUser('bob');
  }, 60_000);

  it('A follows B', async () => {
    const rel = await a.client.v1.accounts.$select(b.me.id).follow();
    expect(rel).toMatchObject({ id: b.me.id, following: true });
    const [again] = await a.client.v1.accounts.relationships.fetch({ id: [b.me.id] });
    expect(again!.following).toBe(true);
    const bNow = await b.client.v1.accounts.verifyCredentials();
    expect(bNow.followersCount).toBe(1);
  });

  it('B posts with an image and a poll... as two statuses, since Mastodon does not combine them', async () => {
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#e07a5f' } }).png().toBuffer();
    const media = await b.client.v2.media.create({ file: new Blob([png], { type: 'image/png' }), description: 'a warm square' });
    expect(media.type).toBe('image');
    expect(media.meta?.original?.width).toBe(640);
    const withImage = (imagePost = await b.client.v1.statuses.create({ status: 'Look at this #sunset', mediaIds: [media.id], visibility: 'public' }));
    expect(withImage.mediaAttachments).toHaveLength(1);
    expect(withImage.tags.map((t) => t.name)).toEqual(['sunset']);
    post = await b.client.v1.statuses.create({ status: `Which one, @${a.me.username}?`, poll: { options: ['tea', 'coffee'], expiresIn: 3600 }, visibility: 'public' });
    expect(post.poll?.options.map((o) => o.title)).toEqual(['tea', 'coffee']);
    expect(post.mentions.map((m) => m.id)).toEqual([a.me.id]);
  });

  it('A sees both on the home and public timelines', async () => {
    // Each post has its own fan-out, run concurrently as SQS runs two messages: the later post may arrive first.
    const home = await eventually(async () => {
      const page = await a.client.v1.timelines.home.list({ limit: 20 });
      return [post.id, imagePost.id].every((id) => page.some((s) => s.id === id)) && page;
    }, 'the fan-outs to A\'s home');
    expect(home.filter((s) => s.account.id === b.me.id).map((s) => s.id)).toEqual([post.id, imagePost.id]);
    const pub = await a.client.v1.timelines.public.list({ local: true, limit: 40 });
    expect(pub.map((s) => s.id)).toContain(post.id);
    const tagged = await a.client.v1.timelines.tag.$select('sunset').list();
    expect(tagged).toHaveLength(1);
  });

  it('A votes, favourites and boosts; B is notified of each, and of the follow and the mention', async () => {
    const poll = await a.client.v1.polls.$select(post.poll!.id).votes.create({ choices: [1] });
    expect(poll).toMatchObject({ voted: true, ownVotes: [1], votesCount: 1 });
    const faved = await a.client.v1.statuses.$select(post.id).favourite();
    expect(faved).toMatchObject({ favourited: true, favouritesCount: 1 });
    const boost = await a.client.v1.statuses.$select(post.id).reblog();
    expect(boost.reblog?.id).toBe(post.id);

    const types = await eventually(async () => {
      const list = await b.client.v1.notifications.list();
      const seen = new Set(list.map((n) => n.type));
      return ['follow', 'favourite', 'reblog'].every((t) => seen.has(t as mastodon.v1.NotificationType)) && seen;
    }, 'B\'s notifications');
    expect([...types]).toEqual(expect.arrayContaining(['follow', 'favourite', 'reblog']));
    const mentions = await eventually(async () => {
      const list = await a.client.v1.notifications.list({ types: ['mention'] });
      return list.length > 0 && list;
    }, 'A\'s mention notification');
    expect(mentions[0]!.status?.id).toBe(post.id);
  });

  it('pages through the whole home timeline by Link headers, both ways, with no duplicate and no gap', async () => {
    for (let i = 0; i < 11; i++) await b.client.v1.statuses.create({ status: `numbered post ${i}` });
    const expected = await eventually(async () => {
      const all = await a.client.v1.timelines.home.list({ limit: 40 });
      return all.length >= 14 && all.map((s) => s.id);
    }, 'the numbered posts on A\'s home');

    const forward: string[] = [];
    for await (const page of a.client.v1.timelines.home.list({ limit: 3 })) forward.push(...page.map((s) => s.id));
    expect(forward).toEqual(expected);
    expect(new Set(forward).size).toBe(forward.length);

    // Backwards from the oldest: min_id pages, each immediately newer than the last.
    const oldest = expected.at(-1)!;
    const backward: string[] = [];
    let minId = oldest;
    for (;;) {
      const page = await a.client.v1.timelines.home.list({ minId, limit: 4 });
      if (page.length === 0) break;
      backward.push(...[...page].reverse().map((s) => s.id));
      minId = page[0]!.id;
    }
    expect([oldest, ...backward]).toEqual([...expected].reverse());
  });

  it('delete-and-redraft round-trips text, media and poll', async () => {
    const deleted = await b.client.v1.statuses.$select(post.id).remove();
    expect(deleted.text).toBe(`Which one, @${a.me.username}?`);
    expect(deleted.poll?.options.map((o) => o.title)).toEqual(['tea', 'coffee']);
    await expect(a.client.v1.statuses.$select(post.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
    const redraft = await b.client.v1.statuses.create({
      status: deleted.text!,
      poll: { options: deleted.poll!.options.map((o) => o.title), expiresIn: 600, multiple: deleted.poll!.multiple },
    });
    expect(redraft.content).toContain('Which one');

    const deletedImage = await b.client.v1.statuses.$select(imagePost.id).remove();
    expect(deletedImage.mediaAttachments).toHaveLength(1);
    const redrawn = await b.client.v1.statuses.create({ status: deletedImage.text!, mediaIds: deletedImage.mediaAttachments.map((m) => m.id) });
    expect(redrawn.mediaAttachments.map((m) => m.id)).toEqual(deletedImage.mediaAttachments.map((m) => m.id));
    await eventually(async () => {
      const home = await a.client.v1.timelines.home.list({ limit: 40 });
      return !home.some((s) => s.id === post.id || s.reblog?.id === post.id) && home;
    }, 'the deleted status to leave A\'s home');
  });
});
