// Collections (Mastodon 4.6): every /api/v1/collections route, GET /api/v1/accounts/:id/collections and
// /in_collections, through their HTTP handlers against the emulators: the entity shapes, the scopes, the limits
// (per account, per collection, under concurrent adds), who may be featured (discoverable, locked, blocks,
// suspended), what a viewer is shown, and the added_to_collection and collection_update notifications.
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as accountCollections } from '../../functions/collections/account_collections';
import { handler as addItem } from '../../functions/collections/add_item';
import { handler as createHandler } from '../../functions/collections/create';
import { handler as deleteHandler } from '../../functions/collections/delete';
import { handler as inCollections } from '../../functions/collections/in_collections';
import { handler as removeItem } from '../../functions/collections/remove_item';
import { handler as revokeItem } from '../../functions/collections/revoke_item';
import { handler as showHandler } from '../../functions/collections/show';
import { handler as updateHandler } from '../../functions/collections/update';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as groupedHandler } from '../../functions/notifications/v2_index';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { MAX_COLLECTIONS, MAX_ITEMS } from '../../lib/collections';
import { updateAccount } from '../../lib/db/accounts';
import { registerInlineWorker } from '../../lib/queue';
import { queueMessages, type QueueName } from '../../lib/queue/messages';
import { issueAccessToken } from '../../lib/tokens';
import { aFollow, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

for (const queue of Object.keys(queueMessages) as QueueName[]) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));
registerInlineWorker('notify', notifyWorker);



/** A discoverable user (the default for being featured), or as asked. */
async function someone(opts: { discoverable?: boolean; locked?: boolean } = {}): Promise<UserFixture> {
  const user = await aUser({ locked: opts.locked });
  await updateAccount(user.account.id, { discoverable: opts.discoverable ?? true, locked: opts.locked ?? false });
  return user;
}

const create = (user: UserFixture, json: Record<string, unknown>, token = user.token) =>
  call(createHandler, { method: 'POST', path: '/api/v1/collections', json, token });
const valid = (extra: Record<string, unknown> = {}) => ({ name: 'Nice people', description: 'Worth following', sensitive: false, discoverable: true, ...extra });
const show = (id: string, token?: string) => call(showHandler, { path: `/api/v1/collections/${id}`, pathParameters: { id }, token });
const update = (id: string, json: Record<string, unknown>, token: string, method = 'PATCH') =>
  call(updateHandler, { method, path: `/api/v1/collections/${id}`, pathParameters: { id }, json, token });
const destroy = (id: string, token: string) => call(deleteHandler, { method: 'DELETE', path: `/api/v1/collections/${id}`, pathParameters: { id }, token });
const add = (id: string, accountId: string | undefined, token: string) =>
  call(addItem, { method: 'POST', path: `/api/v1/collections/${id}/items`, pathParameters: { id }, json: accountId === undefined ? {} : { account_id: accountId }, token });
const remove = (id: string, itemId: string, token: string) =>
  call(removeItem, { method: 'DELETE', path: `/api/v1/collections/${id}/items/${itemId}`, pathParameters: { id, item_id: itemId }, token });
const revoke = (id: string, itemId: string, token: string) =>
  call(revokeItem, { method: 'POST', path: `/api/v1/collections/${id}/items/${itemId}/revoke`, pathParameters: { id, item_id: itemId }, token });
const listOf = (accountId: string, token?: string, query: Record<string, string> = {}) =>
  call(accountCollections, { path: `/api/v1/accounts/${accountId}/collections`, pathParameters: { id: accountId }, query, token });
const featuring = (accountId: string, token?: string, query: Record<string, string> = {}) =>
  call(inCollections, { path: `/api/v1/accounts/${accountId}/in_collections`, pathParameters: { id: accountId }, query, token });
const block = (user: UserFixture, target: string) => call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${target}/block`, pathParameters: { id: target }, token: user.token });
const notifications = (user: UserFixture, types: string[]) => call(notificationsHandler, { path: '/api/v1/notifications', query: { types }, token: user.token });

const ok = (res: Answer) => {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text}`);
  return res.body;
};
const itemAccounts = (collection: { items: { account_id?: string }[] }) => collection.items.map((i) => i.account_id);

describe('creating a collection', () => {
  it('answers the WrappedCollection with its accepted items, and tells each local account it was added', async () => {
    const owner = await someone();
    const [a, b] = [await someone(), await someone()];
    const body = ok(await create(owner, valid({ language: 'en', tag_name: '#Fediverse', account_ids: [a.account.id, b.account.id] })));
    const c = body.collection;
    expect(Object.keys(c).sort()).toEqual(
      ['account_id', 'created_at', 'description', 'discoverable', 'id', 'item_count', 'items', 'language', 'local', 'name', 'sensitive', 'tag', 'updated_at', 'uri', 'url'].sort(),
    );
    expect(c).toMatchObject({
      account_id: owner.account.id,
      name: 'Nice people',
      description: 'Worth following',
      language: 'en',
      local: true,
      sensitive: false,
      discoverable: true,
      item_count: 2,
      tag: { name: 'Fediverse', url: expect.stringMatching(/\/tags\/fediverse$/) },
      url: null,
    });
    expect(c.uri).toMatch(new RegExp(`/users/${owner.account.username}/collections/${c.id}$`));
    expect(c.items).toEqual([
      { id: expect.any(String), account_id: a.account.id, state: 'accepted', created_at: expect.any(String) },
      { id: expect.any(String), account_id: b.account.id, state: 'accepted', created_at: expect.any(String) },
    ]);

    const told = ok(await notifications(a, ['added_to_collection']));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ type: 'added_to_collection', account: { id: owner.account.id }, collection: { id: c.id, name: 'Nice people' } });
    expect(told[0].group_key).toBe(`ungrouped-${told[0].id}`);
    const grouped = ok(await call(groupedHandler, { path: '/api/v2/notifications', query: { types: ['added_to_collection'] }, token: b.token }));
    expect(grouped.notification_groups).toEqual([expect.objectContaining({ type: 'added_to_collection', collection: expect.objectContaining({ id: c.id }) })]);
  });

  it('refuses invalid values with 422 naming each field, in Mastodon nested shape', async () => {
    const owner = await someone();
    const blank = await create(owner, valid({ name: '  ' }));
    expect(blank.status).toBe(422);
    expect(blank.body.error).toEqual({ error: "Validation failed: Name can't be blank", details: { name: [{ error: 'ERR_BLANK', description: "can't be blank" }] } });

    const long = await create(owner, valid({ name: 'x'.repeat(41), description: 'y'.repeat(101), language: 'klingon' }));
    expect(long.status).toBe(422);
    expect(Object.keys(long.body.error.details).sort()).toEqual(['description', 'language', 'name']);
    expect(long.body.error.details.name[0].error).toBe('ERR_TOO_LONG');

    const unset = await create(owner, { name: 'No flags' });
    expect(unset.status).toBe(422);
    expect(Object.keys(unset.body.error.details).sort()).toEqual(['discoverable', 'sensitive']);

    const tag = await create(owner, valid({ tag_name: 'two words' }));
    expect(tag.status).toBe(422);
    expect(Object.keys(tag.body.error.details)).toEqual(['tag_name']);

    const badType = await create(owner, valid({ sensitive: 'perhaps' }));
    expect(badType.status).toBe(422);
    expect(JSON.stringify(badType.body)).toContain('sensitive');

    expect(ok(await listOf(owner.account.id, owner.token)).collections).toEqual([]);
  });

  it('features only accounts that allow it: 404 unknown or suspended, 403 not discoverable, locked and not followed, blocked, remote', async () => {
    const owner = await someone();
    const hidden = await someone({ discoverable: false });
    const locked = await someone({ locked: true });
    const blocker = await someone();
    const blocked = await someone();
    const suspended = await someone();
    // Its actor cannot be fetched (loopback is refused here): no canFeature policy, so nobody may feature it.
    const remote = await aRemoteAccount({ uri: `http://127.0.0.1:9/users/u${Date.now()}` });
    await updateAccount(remote.account.id, { discoverable: true });
    await updateAccount(suspended.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
    ok(await block(blocker, owner.account.id));
    ok(await block(owner, blocked.account.id));

    expect((await create(owner, valid({ account_ids: ['999999999999999'] }))).status).toBe(404);
    expect((await create(owner, valid({ account_ids: ['not-an-id'] }))).status).toBe(422);
    expect((await create(owner, valid({ account_ids: [suspended.account.id] }))).status).toBe(404);
    for (const target of [hidden, locked, blocker, blocked]) {
      const res = await create(owner, valid({ account_ids: [target.account.id] }));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'This action is not allowed' });
    }
    expect((await create(owner, valid({ account_ids: [remote.account.id] }))).status).toBe(403);

    // A locked account may be featured by its followers.
    await aFollow(owner.account, locked.account);
    const created = await create(owner, valid({ account_ids: [locked.account.id] }));
    expect(created.status).toBe(200);
    expect(itemAccounts(created.body.collection)).toEqual([locked.account.id]);
  });

  it(`holds each account to ${MAX_COLLECTIONS} collections, and at most ${MAX_ITEMS} accounts in one`, async () => {
    const owner = await someone();
    const many = await Promise.all(Array.from({ length: MAX_ITEMS + 1 }, () => someone()));
    const tooMany = await create(owner, valid({ account_ids: many.map((u) => u.account.id) }));
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.error.details)).toEqual(['collection_items']);

    // Concurrent creates past the limit: exactly the limit is kept.
    const results = await Promise.all(Array.from({ length: MAX_COLLECTIONS + 3 }, (_, i) => create(owner, valid({ name: `C${i}` }))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(MAX_COLLECTIONS);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.status)).toEqual([422, 422, 422]);
    expect(refused[0]!.body.error.details).toHaveProperty('base');
    const all = ok(await listOf(owner.account.id, owner.token, { limit: '80' }));
    expect(all.collections).toHaveLength(MAX_COLLECTIONS);

    // Deleting one makes room again.
    ok(await destroy(all.collections[0].id, owner.token));
    expect((await create(owner, valid({ name: 'Again' }))).status).toBe(200);
  });
});

describe('scopes and authentication', () => {
  it('asks write:collections to write and read:collections to read with a token; reading needs none', async () => {
    const owner = await someone();
    const c = ok(await create(owner, valid())).collection;
    const readOnly = await issueAccessToken(owner.app, owner.account.id, ['read']);
    const writeOnly = await issueAccessToken(owner.app, owner.account.id, ['write:statuses']);
    const fine = await issueAccessToken(owner.app, owner.account.id, ['write:collections', 'read:collections']);

    expect((await create(owner, valid(), readOnly.raw)).status).toBe(403);
    expect((await create(owner, valid(), writeOnly.raw)).status).toBe(403);
    expect((await update(c.id, { name: 'x' }, readOnly.raw)).status).toBe(403);
    expect((await destroy(c.id, readOnly.raw)).status).toBe(403);
    expect((await add(c.id, owner.account.id, readOnly.raw)).status).toBe(403);
    expect((await create(owner, valid(), fine.raw)).status).toBe(200);

    expect((await show(c.id, writeOnly.raw)).status).toBe(403);
    expect((await show(c.id, fine.raw)).status).toBe(200);
    expect((await show(c.id)).status).toBe(200);
    expect((await listOf(owner.account.id)).status).toBe(200);
    expect((await listOf(owner.account.id, writeOnly.raw)).status).toBe(403);
    expect((await create(owner, valid(), 'nonsense')).status).toBe(401);
    expect((await call(createHandler, { method: 'POST', path: '/api/v1/collections', json: valid() })).status).toBe(401);
    expect((await featuring(owner.account.id)).status).toBe(401);
    expect((await featuring(owner.account.id, writeOnly.raw)).status).toBe(403);
  });
});

describe('showing a collection', () => {
  it('answers CollectionWithAccounts: the owner and each account shown', async () => {
    const owner = await someone();
    const a = await someone();
    const c = ok(await create(owner, valid({ account_ids: [a.account.id] }))).collection;
    const body = ok(await show(c.id));
    expect(body.collection).toEqual(c);
    expect(body.accounts.map((x: { id: string }) => x.id)).toEqual([owner.account.id, a.account.id]);
    expect(body.accounts[0]).toHaveProperty('username', owner.account.username);
  });

  it('404s an unknown or malformed id and a suspended owner; 403s a viewer the owner blocks', async () => {
    const owner = await someone();
    const shut = await someone();
    const c = ok(await create(owner, valid())).collection;
    expect((await show('999999999999999')).status).toBe(404);
    expect((await show('abc')).status).toBe(404);
    ok(await block(owner, shut.account.id));
    const res = await show(c.id, shut.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is not allowed' });
    // The owner's listing answers an empty list to it rather than an error.
    expect(ok(await listOf(owner.account.id, shut.token))).toEqual({ collections: [] });

    const gone = await someone();
    const theirs = ok(await create(gone, valid())).collection;
    await updateAccount(gone.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
    expect((await show(theirs.id)).status).toBe(404);
    expect((await listOf(gone.account.id)).status).toBe(404);
  });

  it('leaves out, for each viewer, the accounts it blocks and the accounts suspended since', async () => {
    const owner = await someone();
    const [a, b, c] = [await someone(), await someone(), await someone()];
    const viewer = await someone();
    const col = ok(await create(owner, valid({ account_ids: [a.account.id, b.account.id, c.account.id] }))).collection;
    ok(await block(viewer, a.account.id));
    await updateAccount(c.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
    const seen = ok(await show(col.id, viewer.token));
    expect(itemAccounts(seen.collection)).toEqual([b.account.id]);
    expect(seen.accounts.map((x: { id: string }) => x.id)).toEqual([owner.account.id, b.account.id]);
    expect(seen.collection.item_count).toBe(3);
    const anonymous = ok(await show(col.id));
    expect(itemAccounts(anonymous.collection)).toEqual([a.account.id, b.account.id]);
  });
});

describe('updating and deleting', () => {
  it('changes the fields, 403 for another owner, 404 unknown; tells featured accounts of a new name or description only', async () => {
    const owner = await someone();
    const other = await someone();
    const a = await someone();
    const c = ok(await create(owner, valid({ account_ids: [a.account.id] }))).collection;

    const changed = ok(await update(c.id, { sensitive: true, language: 'de', tag_name: '' }, owner.token)).collection;
    expect(changed).toMatchObject({ name: 'Nice people', sensitive: true, language: 'de', tag: null });
    expect(ok(await notifications(a, ['collection_update']))).toEqual([]);

    const renamed = ok(await update(c.id, { name: 'Nicer people' }, owner.token, 'PUT')).collection;
    expect(renamed.name).toBe('Nicer people');
    const told = ok(await notifications(a, ['collection_update']));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ type: 'collection_update', account: { id: owner.account.id }, collection: { id: c.id, name: 'Nicer people' } });
    ok(await update(c.id, { description: 'Still worth it' }, owner.token));
    expect(ok(await notifications(a, ['collection_update']))).toHaveLength(2);

    const bad = await update(c.id, { name: '' }, owner.token);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.name[0].error).toBe('ERR_BLANK');
    expect((await update(c.id, { name: 'Mine now' }, other.token)).status).toBe(403);
    expect((await update('999999999999999', { name: 'x' }, owner.token)).status).toBe(404);
    expect((await destroy(c.id, other.token)).status).toBe(403);
    expect(ok(await show(c.id)).collection.name).toBe('Nicer people');

    expect(ok(await destroy(c.id, owner.token))).toEqual({});
    expect((await show(c.id)).status).toBe(404);
    expect((await destroy(c.id, owner.token)).status).toBe(404);
    expect(ok(await featuring(a.account.id, a.token)).collections).toEqual([]);
    // The notifications of a collection gone are gone with it.
    expect(ok(await notifications(a, ['collection_update', 'added_to_collection']))).toEqual([]);
  });
});

describe('items', () => {
  it('adds, refuses duplicates, a missing account_id and another owner, and removes', async () => {
    const owner = await someone();
    const other = await someone();
    const a = await someone();
    const c = ok(await create(owner, valid())).collection;

    const added = ok(await add(c.id, a.account.id, owner.token));
    expect(added).toEqual({ collection_item: { id: expect.any(String), account_id: a.account.id, state: 'accepted', created_at: expect.any(String) } });
    const dup = await add(c.id, a.account.id, owner.token);
    expect(dup.status).toBe(422);
    expect(dup.body.error).toBe('Validation failed: Account has already been taken');
    const missing = await add(c.id, undefined, owner.token);
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe('`account_id` parameter is missing');
    expect((await add(c.id, a.account.id, other.token)).status).toBe(403);
    expect((await add('999999999999999', a.account.id, owner.token)).status).toBe(404);
    expect((await add(c.id, '999999999999999', owner.token)).status).toBe(404);
    expect(ok(await notifications(a, ['added_to_collection']))).toHaveLength(1);

    const itemId = added.collection_item.id;
    expect((await remove(c.id, itemId, other.token)).status).toBe(403);
    expect((await remove(c.id, '999999999999999', owner.token)).status).toBe(404);
    expect(ok(await remove(c.id, itemId, owner.token))).toEqual({});
    const after = ok(await show(c.id)).collection;
    expect(after.items).toEqual([]);
    expect(after.item_count).toBe(0);
    // Removed, the account may be added again.
    expect((await add(c.id, a.account.id, owner.token)).status).toBe(200);
  });

  it(`keeps ${MAX_ITEMS} items under concurrent adds at the limit`, async () => {
    const owner = await someone();
    const first = await Promise.all(Array.from({ length: MAX_ITEMS - 2 }, () => someone()));
    const c = ok(await create(owner, valid({ account_ids: first.map((u) => u.account.id) }))).collection;
    const racers = await Promise.all(Array.from({ length: 6 }, () => someone()));
    const results = await Promise.all(racers.map((r) => add(c.id, r.account.id, owner.token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 422)).toHaveLength(4);
    const after = ok(await show(c.id, owner.token)).collection;
    expect(after.items).toHaveLength(MAX_ITEMS);
    expect(after.item_count).toBe(MAX_ITEMS);
    expect(new Set(itemAccounts(after)).size).toBe(MAX_ITEMS);
  });

  it('lets the featured account revoke its item, and no one else', async () => {
    const owner = await someone();
    const a = await someone();
    const b = await someone();
    const c = ok(await create(owner, valid({ account_ids: [a.account.id, b.account.id] }))).collection;
    const itemOfA = c.items[0].id;
    expect(ok(await featuring(a.account.id, a.token)).collections.map((x: { id: string }) => x.id)).toEqual([c.id]);

    expect((await revoke(c.id, itemOfA, owner.token)).status).toBe(403);
    expect((await revoke(c.id, itemOfA, b.token)).status).toBe(403);
    expect((await revoke(c.id, '999999999999999', a.token)).status).toBe(404);
    expect(ok(await revoke(c.id, itemOfA, a.token))).toEqual({});

    const shown = ok(await show(c.id, owner.token)).collection;
    expect(itemAccounts(shown)).toEqual([b.account.id]);
    expect(shown.item_count).toBe(2);
    expect(ok(await featuring(a.account.id, a.token)).collections).toEqual([]);
    // The revoked row stays: the owner cannot add the account again (Mastodon's uniqueness holds).
    expect((await add(c.id, a.account.id, owner.token)).status).toBe(422);
    // Its notification names an item no longer there.
    expect(ok(await notifications(a, ['added_to_collection']))).toEqual([]);
  });
});

describe('listing collections', () => {
  it("lists an account's collections newest first, the undiscoverable ones only to their owner, paged by offset", async () => {
    const owner = await someone();
    const viewer = await someone();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(ok(await create(owner, valid({ name: `L${i}`, discoverable: i !== 1 }))).collection);
    const mine = ok(await listOf(owner.account.id, owner.token));
    expect(mine.collections.map((c: { name: string }) => c.name)).toEqual(['L2', 'L1', 'L0']);
    const theirs = ok(await listOf(owner.account.id, viewer.token));
    expect(theirs.collections.map((c: { name: string }) => c.name)).toEqual(['L2', 'L0']);

    const first = await listOf(owner.account.id, owner.token, { limit: '2' });
    expect(first.body.collections.map((c: { name: string }) => c.name)).toEqual(['L2', 'L1']);
    expect(first.headers.link).toMatch(/offset=2.*rel="next"/);
    const second = await listOf(owner.account.id, owner.token, { limit: '2', offset: '2' });
    expect(second.body.collections.map((c: { name: string }) => c.name)).toEqual(['L0']);
    expect(second.headers.link).toMatch(/rel="prev"/);
    expect(second.headers.link).not.toMatch(/rel="next"/);

    expect((await listOf('999999999999999')).status).toBe(404);
    expect((await listOf(owner.account.id, undefined, { limit: 'many' })).status).toBe(422);
    expect(made).toHaveLength(3);
  });

  it('lists the collections an account is in to that account only', async () => {
    const owner = await someone();
    const a = await someone();
    const c1 = ok(await create(owner, valid({ name: 'One', account_ids: [a.account.id] }))).collection;
    const c2 = ok(await create(owner, valid({ name: 'Two', discoverable: false }))).collection;
    ok(await add(c2.id, a.account.id, owner.token));
    const listed = ok(await featuring(a.account.id, a.token));
    expect(listed.collections.map((c: { id: string }) => c.id)).toEqual([c2.id, c1.id]);
    const paged = await featuring(a.account.id, a.token, { limit: '1' });
    expect(paged.body.collections.map((c: { id: string }) => c.id)).toEqual([c2.id]);
    expect(paged.headers.link).toMatch(/rel="next"/);
    expect((await featuring(a.account.id, owner.token)).status).toBe(403);
    expect((await featuring('999999999999999', a.token)).status).toBe(404);
  });
});
