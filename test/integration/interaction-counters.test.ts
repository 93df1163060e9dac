// A viral post: many accounts favourite or reblog one status at the same moment. The local
// transaction layer conflicts as DynamoDB does, so counters kept inside the interaction's
// transaction made most of these requests collide on the status item (issue 27). The counts
// are now single-item ADDs after the transaction (lib/db/interactions.ts, "counters").
import { handler as favourite } from '../../functions/statuses/favourite';
import { handler as unfavourite } from '../../functions/statuses/unfavourite';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as unreblog } from '../../functions/statuses/unreblog';
import { addFavourite, favouriteOf, removeFavourite } from '../../lib/db/interactions';
import * as keys from '../../lib/db/keys';
import { statusById } from '../../lib/db/statuses';
import { updateItem } from '../../lib/db/table';
import { registerInlineWorker } from '../../lib/queue';
import { z } from 'zod';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call, warmContainer } from '../support/http';

// What a favourite or reblog sends on is not what these tests look at: the queues take the messages and drop them.
registerInlineWorker('notify', async () => ({ batchItemFailures: [] }));
registerInlineWorker('fanout', async () => ({ batchItemFailures: [] }));

const act = (handler: typeof favourite, verb: string, id: string, token: string) =>
  call(handler, { method: 'POST', path: `/api/v1/statuses/${id}/${verb}`, pathParameters: { id }, token });

const CROWD = 50;
let author: UserFixture;
let crowd: UserFixture[];
beforeAll(async () => {
  author = await aUser();
  crowd = [];
  // Made a few at a time: the fixtures are not what is measured.
  for (let i = 0; i < CROWD; i += 10) crowd.push(...(await Promise.all(Array.from({ length: 10 }, () => aUser()))));
}, 120_000);

describe('counters of a status that many accounts act on at once', () => {
  it('50 concurrent favourites all succeed and count exactly 50', async () => {
    const status = await aStoredStatus(author.account);
    const answers = await Promise.all(crowd.map((u) => act(favourite, 'favourite', status.id, u.token)));
    expect(answers.map((a) => a.status)).toEqual(crowd.map(() => 200));
    expect((await statusById(status.id))?.favouritesCount).toBe(CROWD);
  }, 120_000);

  it('50 concurrent reblogs all succeed and count exactly 50; unreblogging them all brings it back to 0', async () => {
    const status = await aStoredStatus(author.account);
    const answers = await Promise.all(crowd.map((u) => act(reblog, 'reblog', status.id, u.token)));
    expect(answers.map((a) => a.status)).toEqual(crowd.map(() => 200));
    expect((await statusById(status.id))?.reblogsCount).toBe(CROWD);
    const undone = await Promise.all(crowd.map((u) => act(unreblog, 'unreblog', status.id, u.token)));
    expect(undone.map((a) => a.status)).toEqual(crowd.map(() => 200));
    expect((await statusById(status.id))?.reblogsCount).toBe(0);
  }, 120_000);

  it('favourites and unfavourites racing end at the number of accounts whose favourite stays', async () => {
    const status = await aStoredStatus(author.account);
    const [early, late] = [crowd.slice(0, 25), crowd.slice(25)];
    await Promise.all(early.map((u) => act(favourite, 'favourite', status.id, u.token)));
    // The early ones take theirs back while the late ones favourite, and each of the late ones asks twice.
    const answers = await Promise.all([
      ...early.map((u) => act(unfavourite, 'unfavourite', status.id, u.token)),
      ...late.map((u) => act(favourite, 'favourite', status.id, u.token)),
      ...late.map((u) => act(favourite, 'favourite', status.id, u.token)),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect((await statusById(status.id))?.favouritesCount).toBe(late.length);
  }, 120_000);

  it('one account favouriting and unfavouriting at once ends counted as its favourite ends', async () => {
    const status = await aStoredStatus(author.account);
    const [fan] = crowd;
    await Promise.all([
      act(favourite, 'favourite', status.id, fan!.token),
      act(unfavourite, 'unfavourite', status.id, fan!.token),
      act(favourite, 'favourite', status.id, fan!.token),
    ]);
    const flag = await favouriteOf(fan!.account.id, status.id);
    expect((await statusById(status.id))?.favouritesCount).toBe(flag ? 1 : 0);
  });

  it('a retried favourite request never counts twice', async () => {
    const status = await aStoredStatus(author.account);
    const [fan] = crowd;
    const answers = await Promise.all([1, 2, 3].map(() => act(favourite, 'favourite', status.id, fan!.token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const again = await act(favourite, 'favourite', status.id, fan!.token);
    expect(again.body).toMatchObject({ favourited: true, favourites_count: 1 });
    expect((await statusById(status.id))?.favouritesCount).toBe(1);
  });

  it('a favourite whose count was never applied (the invocation ended after the transaction) is counted by the next toggle', async () => {
    const status = await aStoredStatus(author.account);
    const [fan, other] = crowd;
    expect(await addFavourite(fan!.account.id, status.id)).toBe('changed');
    // What a crash between the transaction and the count leaves: the flag still marked uncounted, the count not moved.
    await updateItem(
      { Key: keys.favourite(fan!.account.id, status.id), UpdateExpression: 'SET uncounted = :t', ExpressionAttributeValues: { ':t': true } },
      z.unknown(),
    );
    await updateItem({ Key: keys.status(status.id), UpdateExpression: 'ADD favouritesCount :m', ExpressionAttributeValues: { ':m': -1 } }, z.unknown());
    expect((await statusById(status.id))?.favouritesCount).toBe(0);
    // The same favourite asked again (a client's retry) applies the owed count once.
    const retried = await act(favourite, 'favourite', status.id, fan!.token);
    expect(retried.body).toMatchObject({ favourited: true, favourites_count: 1 });
    expect(await act(favourite, 'favourite', status.id, fan!.token)).toMatchObject({ body: { favourites_count: 1 } });

    // An uncounted favourite taken back is not counted down.
    expect(await addFavourite(other!.account.id, status.id)).toBe('changed');
    await updateItem(
      { Key: keys.favourite(other!.account.id, status.id), UpdateExpression: 'SET uncounted = :t', ExpressionAttributeValues: { ':t': true } },
      z.unknown(),
    );
    await updateItem({ Key: keys.status(status.id), UpdateExpression: 'ADD favouritesCount :m', ExpressionAttributeValues: { ':m': -1 } }, z.unknown());
    expect(await removeFavourite(other!.account.id, status.id)).toBe('changed');
    expect((await statusById(status.id))?.favouritesCount).toBe(1);
  });

  it('a favourite of a status deleted meanwhile answers 404 and leaves no favourite behind', async () => {
    const status = await aStoredStatus(author.account);
    const { deleteItem } = await import('../../lib/db/table');
    await deleteItem(keys.status(status.id), z.unknown());
    expect(await addFavourite(crowd[0]!.account.id, status.id)).toBe('gone');
    expect(await favouriteOf(crowd[0]!.account.id, status.id)).toBeUndefined();
    expect(await statusById(status.id)).toBeUndefined();
  });

  // Before issue 27 a favourite made 10 calls, 2 of them writes, 12 write units (the transaction of four items, 8;
  // the trend and daily counters, 4). Now 12 calls, 4 writes, 12 units: three items (6), the claim and the ADD (1 each).
  it('a favourite writes one transaction of three items and two single-item updates: as many write units as before', async () => {
    process.env.EXPOSE_METRICS = '1';
    try {
      await warmContainer();
      const status = await aStoredStatus(author.account);
      const res = await act(favourite, 'favourite', status.id, crowd[1]!.token);
      expect(res.status).toBe(200);
      expect({ calls: res.headers['x-db-calls'], writes: res.headers['x-db-writes'], units: res.headers['x-db-write-units'] }).toEqual({ calls: '12', writes: '4', units: '12' });
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });
});
