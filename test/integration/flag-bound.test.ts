// The favourite and reblog flags a page asks for, bounded by the account (lib/db/viewer_summary.ts
// `flaggedUpTo`): the highest status id the account has favourited or reblogged, raised in the
// transaction that writes such a flag, so a status newer than it has neither flag and a page does
// not ask. Driven through the real endpoints against dynalite; the rendered flags are checked
// against the flag items themselves.
import fc from 'fast-check';
import { handler as favouriteHandler } from '../../functions/statuses/favourite';
import { handler as reblogHandler } from '../../functions/statuses/reblog';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as unfavouriteHandler } from '../../functions/statuses/unfavourite';
import { handler as unreblogHandler } from '../../functions/statuses/unreblog';
import { dynamo } from '../../lib/aws';
import { accountById, updateAccount, type Account } from '../../lib/db/accounts';
import { favouriteOf, reblogFlagOf, addFavourite } from '../../lib/db/interactions';
import type { Status } from '../../lib/db/statuses';
import { padId } from '../../lib/ids';
import { QUEUES, registerInlineWorker } from '../../lib/queue';
import { call } from '../support/http';
import { aPostedStatus, aUser, type UserFixture } from '../support/factories';

type Shown = { id: string; favourited: boolean; reblogged: boolean; reblog?: Shown | null };

/** The keys of flag items a request reads (favourites and reblog flags), as DynamoDB is asked. */
async function flagKeysRead<T>(run: () => Promise<T>): Promise<{ result: T; keys: string[] }> {
  const keys: string[] = [];
  const stop = dynamo().observe((op, input) => {
    if (op !== 'BatchGetItem') return;
    for (const { Keys } of Object.values((input as { RequestItems: Record<string, { Keys: { PK: string }[] }> }).RequestItems)) {
      for (const key of Keys) if (/^(FAV|REBLOGGED)#/.test(key.PK)) keys.push(key.PK);
    }
  });
  try {
    return { result: await run(), keys };
  } finally {
    stop();
  }
}

const show = async (viewer: UserFixture, status: Status): Promise<Shown> => {
  const res = await call(showStatus, { path: `/api/v1/statuses/${status.id}`, pathParameters: { id: status.id }, token: viewer.token });
  expect(res.status).toBe(200);
  return res.body as Shown;
};

const act = async (handler: typeof favouriteHandler, action: string, viewer: UserFixture, status: Status) => {
  const res = await call(handler, { method: 'POST', path: `/api/v1/statuses/${status.id}/${action}`, pathParameters: { id: status.id }, token: viewer.token });
  expect(res.status).toBe(200);
  return res.body as Shown;
};

const boundOf = async (account: Account) => (await accountById(account.id))!.flaggedUpTo;

// What a favourite or reblog sets off (notifications, fan-out) is not what is tested here.
for (const queue of QUEUES) registerInlineWorker(queue, async () => undefined);

let author: UserFixture;
beforeAll(async () => {
  author = await aUser();
});

describe('the bound on the account', () => {
  it('a new account has flagged nothing: a status is shown without reading its flags', async () => {
    const viewer = await aUser();
    expect(await boundOf(viewer.account)).toBe(padId('0'));
    const status = await aPostedStatus(author.account, { text: 'new' });
    const { result, keys } = await flagKeysRead(() => show(viewer, status));
    expect(result).toMatchObject({ favourited: false, reblogged: false });
    expect(keys).toEqual([]);
  });

  it('a favourite raises it to the status; newer statuses are not asked, older and equal ones are', async () => {
    const viewer = await aUser();
    const older = await aPostedStatus(author.account, { text: 'older' });
    const liked = await aPostedStatus(author.account, { text: 'liked' });
    const newer = await aPostedStatus(author.account, { text: 'newer' });
    expect(await act(favouriteHandler, 'favourite', viewer, liked)).toMatchObject({ favourited: true });
    expect(await boundOf(viewer.account)).toBe(padId(liked.id));
    expect((await flagKeysRead(() => show(viewer, newer))).keys).toEqual([]);
    const equal = await flagKeysRead(() => show(viewer, liked));
    expect(equal.result).toMatchObject({ favourited: true, reblogged: false });
    expect(equal.keys).toHaveLength(2);
    expect((await flagKeysRead(() => show(viewer, older))).keys).toHaveLength(2);
  });

  it('a favourite of an older status leaves it as it is, and shows', async () => {
    const viewer = await aUser();
    const older = await aPostedStatus(author.account, { text: 'older' });
    const newer = await aPostedStatus(author.account, { text: 'newer' });
    await act(favouriteHandler, 'favourite', viewer, newer);
    expect(await act(favouriteHandler, 'favourite', viewer, older)).toMatchObject({ favourited: true });
    expect(await boundOf(viewer.account)).toBe(padId(newer.id));
    expect(await show(viewer, older)).toMatchObject({ favourited: true });
  });

  it('a reblog raises it in the reblogger\'s own update, and the original shows reblogged', async () => {
    const viewer = await aUser();
    const original = await aPostedStatus(author.account, { text: 'boost me' });
    const reblog = await act(reblogHandler, 'reblog', viewer, original);
    expect(reblog).toMatchObject({ reblog: { id: original.id, reblogged: true } });
    expect(await boundOf(viewer.account)).toBe(padId(original.id));
    expect(await accountById(viewer.account.id)).toMatchObject({ statusesCount: 1 });
    expect(await show(viewer, original)).toMatchObject({ reblogged: true });
  });

  it('raised meanwhile by another request: the flag is written without lowering it', async () => {
    const viewer = await aUser();
    const first = await aPostedStatus(author.account, { text: 'first' });
    const second = await aPostedStatus(author.account, { text: 'second' });
    // This request read the account before another raised the bound past `first`.
    const stale = (await accountById(viewer.account.id))!;
    await addFavourite(viewer.account.id, second.id);
    expect(await boundOf(viewer.account)).toBe(padId(second.id));
    expect(await addFavourite(stale, first.id)).toBe('changed');
    expect(await boundOf(viewer.account)).toBe(padId(second.id));
    expect(await favouriteOf(viewer.account.id, first.id)).toBeDefined();
    expect(await show(viewer, first)).toMatchObject({ favourited: true });
  });

  it('an account made before the bound keeps none and has every flag read', async () => {
    const viewer = await aUser();
    await updateAccount(viewer.account.id, { flaggedUpTo: null });
    const status = await aPostedStatus(author.account, { text: 'legacy' });
    expect(await act(favouriteHandler, 'favourite', viewer, status)).toMatchObject({ favourited: true });
    expect(await boundOf(viewer.account)).toBeNull();
    const later = await aPostedStatus(author.account, { text: 'later' });
    expect((await flagKeysRead(() => show(viewer, later))).keys).toHaveLength(2);
  });
});

describe('the flags shown', () => {
  it('are the flags stored, after any sequence of favourites, reblogs and their undoing', async () => {
    const viewer = await aUser();
    const statuses: Status[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await aPostedStatus(author.account, { text: `status ${i}` }));
    const actions = [
      [favouriteHandler, 'favourite'],
      [unfavouriteHandler, 'unfavourite'],
      [reblogHandler, 'reblog'],
      [unreblogHandler, 'unreblog'],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(3), fc.nat(5)), { minLength: 1, maxLength: 8 }), async (steps) => {
        for (const [a, s] of steps) await act(actions[a]![0], actions[a]![1], viewer, statuses[s]!);
        for (const status of statuses) {
          const shown = await show(viewer, status);
          expect(shown.favourited).toBe((await favouriteOf(viewer.account.id, status.id)) !== undefined);
          expect(shown.reblogged).toBe((await reblogFlagOf(viewer.account.id, status.id)) !== undefined);
        }
      }),
      { numRuns: 12 },
    );
  });
});
