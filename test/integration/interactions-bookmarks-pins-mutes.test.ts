import { z } from 'zod';
import { handler as bookmark } from '../../functions/statuses/bookmark';
import { handler as unbookmark } from '../../functions/statuses/unbookmark';
import { handler as bookmarks } from '../../functions/bookmarks/index';
import { handler as pin } from '../../functions/statuses/pin';
import { handler as unpin } from '../../functions/statuses/unpin';
import { handler as mute } from '../../functions/statuses/mute';
import { handler as unmute } from '../../functions/statuses/unmute';
import { bookmarkOf, conversationMuteOf, pinOf } from '../../lib/db/interactions';
import * as keys from '../../lib/db/keys';
import { query } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

type Handler = typeof bookmark;
const post = (handler: Handler, verb: string, id: string, token?: string) =>
  call(handler, { method: 'POST', path: `/api/v1/statuses/${id}/${verb}`, pathParameters: { id }, token });

const anyItem = z.record(z.unknown());
const listOf = async (partition: string) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': partition } }, anyItem)).items;

let author: UserFixture;
beforeAll(async () => {
  author = await aUser();
});

describe('bookmarks', () => {
  it('bookmarks once, unbookmarks once, and lists newest bookmark first with Link paging', async () => {
    const reader = await aUser();
    const a = await aStoredStatus(author.account);
    const b = await aStoredStatus(author.account);
    const first = await post(bookmark, 'bookmark', b.id, reader.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: b.id, bookmarked: true });
    expect((await post(bookmark, 'bookmark', b.id, reader.token)).body.bookmarked).toBe(true);
    await post(bookmark, 'bookmark', a.id, reader.token);
    expect(await listOf(keys.accountBookmarksPartition(reader.account.id))).toHaveLength(2);

    const list = (q: Record<string, string> = {}) => call(bookmarks, { path: '/api/v1/bookmarks', query: q, token: reader.token });
    const all = await list();
    expect(all.body.map((s: { id: string }) => s.id)).toEqual([a.id, b.id]);
    const one = await list({ limit: '1' });
    const next = new URL(/<([^>]+)>; rel="next"/.exec(one.headers.link ?? '')![1]!);
    expect((await list(Object.fromEntries(next.searchParams))).body.map((s: { id: string }) => s.id)).toEqual([b.id]);

    const undo = await post(unbookmark, 'unbookmark', b.id, reader.token);
    expect(undo.body).toMatchObject({ id: b.id, bookmarked: false });
    expect((await post(unbookmark, 'unbookmark', b.id, reader.token)).status).toBe(200);
    expect(await bookmarkOf(reader.account.id, b.id)).toBeUndefined();
    expect((await list()).body.map((s: { id: string }) => s.id)).toEqual([a.id]);
  });

  it.each([
    ['an unknown id', () => newId(), 'TOKEN', 404],
    ['a malformed id', () => 'abc', 'TOKEN', 404],
    ['a private status of someone not followed', () => 'PRIVATE', 'TOKEN', 404],
    ['no token', () => 'STATUS', undefined, 401],
    ['a write:favourites token', () => 'STATUS', 'write:favourites', 403],
  ])('bookmark answers %s with an error and writes nothing', async (_n, id, token, status) => {
    const reader = await aUser();
    const open = await aStoredStatus(author.account);
    const priv = await aStoredStatus(author.account, { visibility: 'private' });
    const target = id() === 'STATUS' ? open.id : id() === 'PRIVATE' ? priv.id : id();
    const auth = token === 'TOKEN' ? reader.token : token ? (await aUser({ scopes: [token] })).token : undefined;
    const res = await post(bookmark, 'bookmark', target, auth);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await listOf(keys.accountBookmarksPartition(reader.account.id))).toEqual([]);
  });

  it.each([
    ['no token', undefined, 401],
    ['a read:favourites token', 'read:favourites', 403],
  ])('the bookmark list refuses %s', async (_n, scope, status) => {
    const token = scope ? (await aUser({ scopes: [scope] })).token : undefined;
    expect((await call(bookmarks, { path: '/api/v1/bookmarks', token })).status).toBe(status);
  });
});

describe('pins', () => {
  it('pins own statuses once, up to five, and unpins', async () => {
    const owner = await aUser();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push(await aStoredStatus(owner.account, { visibility: i === 0 ? 'private' : 'public' }));
    for (const s of statuses.slice(0, 5)) {
      const res = await post(pin, 'pin', s.id, owner.token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: s.id, pinned: true });
    }
    // Pinning a pinned status again changes nothing, even at the limit.
    expect((await post(pin, 'pin', statuses[0]!.id, owner.token)).status).toBe(200);
    const over = await post(pin, 'pin', statuses[5]!.id, owner.token);
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ error: 'Validation failed: You have already pinned the maximum number of toots' });
    expect(await pinOf(owner.account.id, statuses[5]!.id)).toBeUndefined();
    expect(await listOf(keys.accountPinsPartition(owner.account.id))).toHaveLength(5);

    const undo = await post(unpin, 'unpin', statuses[0]!.id, owner.token);
    expect(undo.body).toMatchObject({ pinned: false });
    expect((await post(unpin, 'unpin', statuses[0]!.id, owner.token)).status).toBe(200);
    expect((await post(pin, 'pin', statuses[5]!.id, owner.token)).body.pinned).toBe(true);
  });

  it.each([
    ["someone else's status", 'OTHER', 422, "Validation failed: Someone else's toot cannot be pinned"],
    ['a direct message', 'DIRECT', 422, 'Validation failed: Posts that are only visible to mentioned users cannot be pinned'],
    ['a reblog', 'REBLOG', 422, 'Validation failed: A boost cannot be pinned'],
    ['an unknown id', 'UNKNOWN', 404, 'Record not found'],
    ['a malformed id', 'BAD', 404, 'Record not found'],
  ])('refuses %s and writes nothing', async (_n, kind, status, error) => {
    const owner = await aUser();
    const other = await aStoredStatus(author.account);
    const ids: Record<string, () => Promise<string>> = {
      OTHER: async () => other.id,
      DIRECT: async () => (await aStoredStatus(owner.account, { visibility: 'direct' })).id,
      REBLOG: async () => (await aStoredStatus(owner.account, { reblogOfId: other.id, conversationId: other.conversationId })).id,
      UNKNOWN: async () => newId(),
      BAD: async () => 'pin-me',
    };
    const res = await post(pin, 'pin', await ids[kind]!(), owner.token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
    expect(await listOf(keys.accountPinsPartition(owner.account.id))).toEqual([]);
  });

  it.each([
    ['a write:statuses token', 'write:statuses', 403],
    ['a read token', 'read', 403],
  ])('pin refuses %s', async (_n, scope, status) => {
    const owner = await aUser({ scopes: [scope] });
    const s = await aStoredStatus(owner.account);
    expect((await post(pin, 'pin', s.id, owner.token)).status).toBe(status);
    expect(await pinOf(owner.account.id, s.id)).toBeUndefined();
  });
});

describe('conversation mutes', () => {
  it('mutes the whole thread and unmutes it, idempotently', async () => {
    const reader = await aUser();
    const root = await aStoredStatus(author.account);
    const reply = await aStoredStatus(author.account, { conversationId: root.id, inReplyToId: root.id, inReplyToAccountId: author.account.id });
    const res = await post(mute, 'mute', reply.id, reader.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: reply.id, muted: true });
    expect((await post(mute, 'mute', root.id, reader.token)).body.muted).toBe(true);
    expect(await conversationMuteOf(reader.account.id, root.id)).toBeDefined();
    const undo = await post(unmute, 'unmute', root.id, reader.token);
    expect(undo.body).toMatchObject({ muted: false });
    expect((await post(unmute, 'unmute', reply.id, reader.token)).body.muted).toBe(false);
    expect(await conversationMuteOf(reader.account.id, root.id)).toBeUndefined();
  });

  it.each([
    ['an unknown id', 'UNKNOWN', 'TOKEN', 404],
    ['a private status of someone not followed', 'PRIVATE', 'TOKEN', 404],
    ['no token', 'OPEN', undefined, 401],
    ['a write:statuses token', 'OPEN', 'write:statuses', 403],
  ])('mute answers %s with an error and writes nothing', async (_n, kind, token, status) => {
    const reader = await aUser();
    const open = await aStoredStatus(author.account);
    const priv = await aStoredStatus(author.account, { visibility: 'private' });
    const id = kind === 'OPEN' ? open.id : kind === 'PRIVATE' ? priv.id : newId();
    const auth = token === 'TOKEN' ? reader.token : token ? (await aUser({ scopes: [token] })).token : undefined;
    const res = await post(mute, 'mute', id, auth);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await conversationMuteOf(reader.account.id, kind === 'PRIVATE' ? priv.id : open.id)).toBeUndefined();
  });

  it('accepts the legacy follow scope, which covers write:mutes', async () => {
    const reader = await aUser({ scopes: ['follow'] });
    const open = await aStoredStatus(author.account);
    expect((await post(mute, 'mute', open.id, reader.token)).status).toBe(200);
  });
});
