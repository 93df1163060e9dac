// Irreversible filters act on the server (issue 4): a matching status is never
// written into the home or list timelines of a recipient whose irreversible
// `home` filter matches it (fan-out time), and no notification is created about
// a status the recipient's irreversible `notifications` filter matches; filters
// added later drop older notifications on read. Expired ones stop applying.
import { z } from 'zod';
import { handler as createFilter } from '../../functions/filters/create';
import { handler as removeFilter } from '../../functions/filters/delete';
import { handler as updateFilter } from '../../functions/filters/update';
import { handler as addToList } from '../../functions/lists/add_accounts';
import { handler as createList } from '../../functions/lists/create';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { irreversibleFiltersOf } from '../../lib/db/filters';
import * as keys from '../../lib/db/keys';
import { queryAll, updateItem } from '../../lib/db/table';
import { registerInlineWorker } from '../../lib/queue';
import { aFollow, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const addFilter = async (user: UserFixture, json: Record<string, unknown>): Promise<string> => {
  const res = await call(createFilter, { method: 'POST', path: '/api/v1/filters', json, token: user.token });
  expect(res.status).toBe(200);
  return String(res.body.id);
};
const post = async (user: UserFixture, status: string): Promise<string> => {
  const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status }, token: user.token });
  expect(res.status).toBe(200);
  return String(res.body.id);
};
const entryIds = async (partition: string): Promise<string[]> =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition } }, z.object({ statusId: z.string() }).passthrough())).map((e) => e.statusId);
const notifiedStatusIds = async (user: UserFixture): Promise<string[]> =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.notificationsPartition(user.account.id) } }, z.object({ statusId: z.string().nullable() }).passthrough())).flatMap((n) => (n.statusId ? [n.statusId] : []));
const notificationsRead = async (user: UserFixture): Promise<string[]> => {
  const res = await call(notificationsHandler, { method: 'GET', path: '/api/v1/notifications', token: user.token });
  expect(res.status).toBe(200);
  return (res.body as { status?: { id: string } }[]).flatMap((n) => (n.status ? [n.status.id] : []));
};

let reader: UserFixture;
let author: UserFixture;
let bystander: UserFixture;

beforeAll(async () => {
  [reader, author, bystander] = await Promise.all([aUser({ username: 'irrreader' }), aUser(), aUser()]);
  await aFollow(reader.account, author.account);
  await aFollow(bystander.account, author.account);
});

describe('irreversible home filters at fan-out', () => {
  it('never writes a matching status into the filtering follower\'s home or lists; others and the author still get it', async () => {
    const list = await call(createList, { method: 'POST', path: '/api/v1/lists', json: { title: 'authors' }, token: reader.token });
    const listId = String(list.body.id);
    expect((await call(addToList, { method: 'POST', path: `/api/v1/lists/${listId}/accounts`, pathParameters: { id: listId }, json: { account_ids: [author.account.id] }, token: reader.token })).status).toBe(200);
    const filterId = await addFilter(reader, { phrase: 'spoiler', context: ['home'], irreversible: true, whole_word: true });

    const matching = await post(author, 'A big SPOILER about the finale');
    const partial = await post(author, 'spoilers are not whole words');
    const plain = await post(author, 'nothing to see here');

    const home = await entryIds(keys.homePartition(reader.account.id));
    expect(home).toEqual(expect.arrayContaining([partial, plain]));
    expect(home).not.toContain(matching);
    const listEntries = await entryIds(keys.listPartition(listId));
    expect(listEntries).toEqual(expect.arrayContaining([partial, plain]));
    expect(listEntries).not.toContain(matching);
    expect(await entryIds(keys.homePartition(bystander.account.id))).toEqual(expect.arrayContaining([matching, partial, plain]));
    expect(await entryIds(keys.homePartition(author.account.id))).toContain(matching);

    await call(removeFilter, { method: 'DELETE', path: `/api/v1/filters/${filterId}`, pathParameters: { id: filterId }, token: reader.token });
    expect(await irreversibleFiltersOf([reader.account.id])).toEqual(new Map());
    const after = await post(author, 'another spoiler, now unfiltered');
    expect(await entryIds(keys.homePartition(reader.account.id))).toContain(after);
  });

  it('ignores reversible, other-context and expired filters at fan-out', async () => {
    await addFilter(reader, { phrase: 'dragons', context: ['home'], irreversible: false });
    await addFilter(reader, { phrase: 'dragons', context: ['public', 'thread'], irreversible: true });
    const expiring = await addFilter(reader, { phrase: 'dragons', context: ['home'], irreversible: true, expires_in: 3600 });
    // Expire it: the summary is rewritten on every change, so change it, then move its expiry into the past.
    expect((await call(updateFilter, { method: 'PUT', path: `/api/v1/filters/${expiring}`, pathParameters: { id: expiring }, json: { expires_in: 60 }, token: reader.token })).status).toBe(200);
    const index = ((await irreversibleFiltersOf([reader.account.id])).get(reader.account.id) ?? []).findIndex((f) => f.id === expiring);
    expect(index).toBeGreaterThanOrEqual(0);
    await updateItem(
      { Key: keys.irreversibleFilters(reader.account.id), UpdateExpression: `SET filters[${index}].expiresAt = :t`, ExpressionAttributeValues: { ':t': new Date(Date.now() - 1000).toISOString() } },
      z.unknown(),
    );
    const dragons = await post(author, 'here be dragons');
    expect(await entryIds(keys.homePartition(reader.account.id))).toContain(dragons);
  });
});

describe('irreversible notification filters', () => {
  it('creates no notification about a matching status, and drops older ones on read once a filter is added', async () => {
    const before = await post(author, '@irrreader the password is swordfish');
    expect(await notifiedStatusIds(reader)).toContain(before);
    expect(await notificationsRead(reader)).toContain(before);

    await addFilter(reader, { phrase: 'swordfish', context: ['notifications'], irreversible: true });
    const matching = await post(author, '@irrreader swordfish again');
    const other = await post(author, '@irrreader hello there');

    const stored = await notifiedStatusIds(reader);
    expect(stored).not.toContain(matching);
    expect(stored).toContain(other);
    const read = await notificationsRead(reader);
    expect(read).toContain(other);
    expect(read).not.toContain(before);
  });

  it('leaves a home-only irreversible filter out of notifications', async () => {
    await addFilter(reader, { phrase: 'marmalade', context: ['home'], irreversible: true });
    const mention = await post(author, '@irrreader marmalade for breakfast');
    expect(await notifiedStatusIds(reader)).toContain(mention);
    expect(await notificationsRead(reader)).toContain(mention);
    // The mention still reaches home: a mentioned account's own filter drops it there.
    expect(await entryIds(keys.homePartition(reader.account.id))).not.toContain(mention);
  });
});
