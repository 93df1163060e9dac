// lib/policy: who may see a status, what a viewer sees of a page in each place,
// and who receives a status at fan-out, asked directly.
import { meterDb, type DbMeter } from '../../lib/aws';
import { statusItem, type Status } from '../../lib/db/statuses';
import { addFilter } from '../../lib/filters';
import { block, mute } from '../../lib/graph/blocks';
import { entersHome, entersList, hiddenFor, mayView, visibleTo } from '../../lib/policy';
import { aFollow, aStoredStatus, aUser, type UserFixture } from '../support/factories';

const ids = (statuses: Status[]) => statuses.map((s) => s.id);
const mentionOf = (id: string) => ({ id, username: id, acct: id, url: `https://example.test/@${id}` });

async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const meter: DbMeter = { calls: 0, writes: 0 };
  const result = await meterDb(meter, fn);
  return { result, calls: meter.calls };
}

describe('mayView', () => {
  let author: UserFixture;
  let follower: UserFixture;
  let stranger: UserFixture;
  beforeAll(async () => {
    [author, follower, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
  });

  it('shows public and unlisted statuses to anyone, signed out included', async () => {
    for (const visibility of ['public', 'unlisted'] as const) {
      const status = await aStoredStatus(author.account, { visibility });
      expect(await mayView(undefined, status)).toBe(true);
      expect(await mayView(stranger.account, status)).toBe(true);
    }
  });

  it('shows a followers-only status to the author, followers and mentioned accounts only', async () => {
    const status = await aStoredStatus(author.account, {
      visibility: 'private',
      mentions: [mentionOf(stranger.account.id)],
    });
    const other = await aUser();
    expect(await mayView(author.account, status)).toBe(true);
    expect(await mayView(follower.account, status)).toBe(true);
    expect(await mayView(stranger.account, status)).toBe(true);
    expect(await mayView(other.account, status)).toBe(false);
    expect(await mayView(undefined, status)).toBe(false);
  });

  it('shows a direct status to its author and mentioned accounts, never to followers', async () => {
    const status = await aStoredStatus(author.account, {
      visibility: 'direct',
      mentions: [mentionOf(stranger.account.id)],
    });
    expect(await mayView(stranger.account, status)).toBe(true);
    expect(await mayView(follower.account, status)).toBe(false);
  });

  it('reads no follow edge when the caller already knows whether the viewer follows the author', async () => {
    const status = await aStoredStatus(author.account, { visibility: 'private' });
    const { result, calls } = await counted(() => mayView(stranger.account, status, { followsAuthor: true }));
    expect(result).toBe(true);
    expect(calls).toBe(0);
  });
});

describe('visibleTo', () => {
  let viewer: UserFixture;
  let followed: UserFixture;
  let muted: UserFixture;
  let blocked: UserFixture;
  let unfollowed: UserFixture;
  beforeAll(async () => {
    [viewer, followed, muted, blocked, unfollowed] = await Promise.all([aUser(), aUser(), aUser(), aUser(), aUser()]);
    await aFollow(viewer.account, followed.account);
    await mute(viewer.account, muted.account.id, { notifications: true, duration: 0 });
    await block(viewer.account, blocked.account.id);
    await addFilter(viewer.account.id, { phrase: 'spoilers', context: ['home'], irreversible: true });
  });

  it('applies visibility, blocks, mutes and irreversible home filters in one call on home', async () => {
    const kept = await aStoredStatus(followed.account, { visibility: 'private' });
    const own = await aStoredStatus(viewer.account, { text: 'my own spoilers stay' });
    const page = [
      kept,
      await aStoredStatus(unfollowed.account, { visibility: 'private' }),
      await aStoredStatus(muted.account),
      await aStoredStatus(blocked.account),
      await aStoredStatus(followed.account, { text: 'big SPOILERS ahead' }),
      await aStoredStatus(followed.account, { inReplyToId: kept.id, inReplyToAccountId: blocked.account.id }),
      own,
    ];
    expect(ids(await visibleTo(viewer.account, page, 'home'))).toEqual([kept.id, own.id]);
  });

  it('leaves home filters out of public timelines and mutes out of an account’s statuses', async () => {
    const filtered = await aStoredStatus(followed.account, { text: 'spoilers here' });
    const fromMuted = await aStoredStatus(muted.account);
    expect(ids(await visibleTo(viewer.account, [filtered, fromMuted], 'public'))).toEqual([filtered.id]);
    expect(ids(await visibleTo(viewer.account, [filtered, fromMuted], 'account'))).toEqual([filtered.id, fromMuted.id]);
  });

  it('hides nothing but non-public statuses from a signed-out reader, reading nothing', async () => {
    const open = await aStoredStatus(muted.account);
    const closed = await aStoredStatus(followed.account, { visibility: 'private' });
    const { result, calls } = await counted(() => visibleTo(undefined, [open, closed], 'thread'));
    expect(ids(result)).toEqual([open.id]);
    expect(calls).toBe(0);
  });

  it('reuses the hidden sets a caller already read', async () => {
    const hidden = await hiddenFor(viewer.account.id);
    const page = [await aStoredStatus(followed.account), await aStoredStatus(muted.account)];
    const { result, calls } = await counted(() => visibleTo(viewer.account, page, 'search', { hidden }));
    expect(ids(result)).toEqual([page[0]!.id]);
    // No block or mute read again: the one call left is the viewer's filters (hide filters apply to search, Mastodon 4).
    expect(calls).toBe(1);
  });
});

describe('delivery predicates', () => {
  const status = (overrides: Partial<Status>): Status =>
    statusItem.parse({ id: '1', accountId: 'author', createdAt: new Date().toISOString(), visibility: 'public', conversationId: '1', text: 'x', contentHtml: '<p>x</p>', ...overrides });

  it('lets a direct status into the homes of mentioned accounts only, followers or not', () => {
    const direct = status({ visibility: 'direct', mentions: [mentionOf('reader')] });
    expect(entersHome(direct, { accountId: 'reader', follows: undefined, followsRepliedTo: false })).toBe(true);
    expect(entersHome(direct, { accountId: 'fan', follows: { showReblogs: true }, followsRepliedTo: false })).toBe(false);
  });

  it('lets a followers-only status reach a non-follower’s home only when it mentions them', () => {
    const closed = status({ visibility: 'private', mentions: [mentionOf('reader')] });
    expect(entersHome(closed, { accountId: 'reader', follows: undefined, followsRepliedTo: false })).toBe(true);
    expect(entersHome(status({ visibility: 'public', mentions: [mentionOf('reader')] }), { accountId: 'reader', follows: undefined, followsRepliedTo: false })).toBe(false);
  });

  it('keeps reblogs out of the home of a follower who turned them off', () => {
    const reblog = status({ reblogOfId: '0' });
    expect(entersHome(reblog, { accountId: 'fan', follows: { showReblogs: false }, followsRepliedTo: false })).toBe(false);
    expect(entersHome(reblog, { accountId: 'fan', follows: { showReblogs: true }, followsRepliedTo: false })).toBe(true);
  });

  it('keeps direct statuses out of lists and follows each list’s replies policy', () => {
    const list = (repliesPolicy: 'followed' | 'list' | 'none') => ({ id: 'l', ownerId: 'owner', repliesPolicy });
    const reply = status({ inReplyToId: '0', inReplyToAccountId: 'third' });
    const base = { follows: { showReblogs: true }, followsRepliedTo: true, repliedToInList: false };
    expect(entersList(status({ visibility: 'direct', mentions: [mentionOf('owner')] }), { list: list('followed'), ...base })).toBe(false);
    expect(entersList(reply, { list: list('followed'), ...base })).toBe(true);
    expect(entersList(reply, { list: list('list'), ...base })).toBe(false);
    expect(entersList(reply, { list: list('list'), ...base, repliedToInList: true })).toBe(true);
    expect(entersList(reply, { list: list('none'), ...base })).toBe(false);
  });
});
