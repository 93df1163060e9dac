// Sanctions on notifications (lib/policy/sanctions.ts, through the real notify worker and the v1 and grouped
// lists): a suspended account's notifications disappear and no new one is made; a silenced account's reach
// only those who follow it, others get them filtered (Mastodon 4.3's for_limited_accounts, `filter` by default).
import { handler as v1Index } from '../../functions/notifications/index';
import { handler as v2Index } from '../../functions/notifications/v2_index';
import { handler as requestsIndex } from '../../functions/notifications/requests_index';
import { handler as requestShow } from '../../functions/notifications/requests_show';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { updateAccount } from '../../lib/db/accounts';
import type { NotificationType } from '../../lib/db/notifications';
import type { Status } from '../../lib/db/statuses';
import { sqsEvent } from '../../lib/queue';
import { call } from '../support/http';
import { aFollow, aStoredStatus, aUser, type UserFixture } from '../support/factories';

type Message = { type: NotificationType; accountId: string; fromAccountId: string; statusId?: string };

async function deliver(...messages: Message[]) {
  const res = await notifyWorker(sqsEvent('notify', messages));
  expect(res.batchItemFailures).toEqual([]);
}

const v1 = async (token: string) => (await call(v1Index, { path: '/api/v1/notifications', token })).body as { type: string; account: { id: string } }[];
const v2 = async (token: string) =>
  (await call(v2Index, { path: '/api/v2/notifications', token })).body as { notification_groups: { sample_account_ids: string[] }[]; accounts: { id: string }[] };
const v1From = async (token: string) => (await v1(token)).map((n) => n.account.id);
const v2From = async (token: string) => (await v2(token)).notification_groups.flatMap((g) => g.sample_account_ids);

let alice: UserFixture;
let aliceStatus: Status;

beforeAll(async () => {
  alice = await aUser();
  aliceStatus = await aStoredStatus(alice.account);
});

describe('from a suspended account', () => {
  it('are gone from the v1 and grouped lists once it is suspended, and no new one is made', async () => {
    const mallory = await aUser();
    await deliver({ type: 'favourite', accountId: alice.account.id, fromAccountId: mallory.account.id, statusId: aliceStatus.id });
    await deliver({ type: 'follow', accountId: alice.account.id, fromAccountId: mallory.account.id });
    expect(await v1From(alice.token)).toContain(mallory.account.id);
    expect(await v2From(alice.token)).toContain(mallory.account.id);

    await updateAccount(mallory.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
    expect(await v1From(alice.token)).not.toContain(mallory.account.id);
    const grouped = await v2(alice.token);
    expect(grouped.notification_groups.flatMap((g) => g.sample_account_ids)).not.toContain(mallory.account.id);
    expect(grouped.accounts.map((a) => a.id)).not.toContain(mallory.account.id);

    // A new one (a message queued before the suspension) is not made.
    const other = await aStoredStatus(alice.account);
    await deliver({ type: 'favourite', accountId: alice.account.id, fromAccountId: mallory.account.id, statusId: other.id });
    await updateAccount(mallory.account.id, { suspendedAt: null });
    expect((await v1(alice.token)).filter((n) => n.account.id === mallory.account.id)).toHaveLength(2);
  });
});

describe('from a silenced account', () => {
  it('reach a follower, and are filtered for the others (mentions, favourites, follows)', async () => {
    const [silenced, bob] = await Promise.all([aUser(), aUser()]);
    await updateAccount(silenced.account.id, { silencedAt: new Date().toISOString() });
    await aFollow(bob.account, silenced.account);
    const mention = await aStoredStatus(silenced.account, { mentions: [{ id: alice.account.id, username: alice.account.username, acct: alice.account.username, url: '' }, { id: bob.account.id, username: bob.account.username, acct: bob.account.username, url: '' }] });
    const bobStatus = await aStoredStatus(bob.account);
    await deliver(
      { type: 'mention', accountId: alice.account.id, fromAccountId: silenced.account.id, statusId: mention.id },
      { type: 'favourite', accountId: alice.account.id, fromAccountId: silenced.account.id, statusId: aliceStatus.id },
      { type: 'follow', accountId: alice.account.id, fromAccountId: silenced.account.id },
      { type: 'mention', accountId: bob.account.id, fromAccountId: silenced.account.id, statusId: mention.id },
      { type: 'favourite', accountId: bob.account.id, fromAccountId: silenced.account.id, statusId: bobStatus.id },
    );
    expect(await v1From(alice.token)).not.toContain(silenced.account.id);
    expect(await v2From(alice.token)).not.toContain(silenced.account.id);
    expect((await v1(bob.token)).filter((n) => n.account.id === silenced.account.id).map((n) => n.type).sort()).toEqual(['favourite', 'mention']);
    expect(await v2From(bob.token)).toContain(silenced.account.id);
  });
});

describe('requests from an account suspended afterwards', () => {
  it('are left out of the requests list and answer 404, as Mastodon lists requests without suspended senders', async () => {
    const [sender, carol] = await Promise.all([aUser(), aUser()]);
    await updateAccount(sender.account.id, { silencedAt: new Date().toISOString() });
    await deliver({ type: 'follow', accountId: carol.account.id, fromAccountId: sender.account.id });
    const listed = async () => (await call(requestsIndex, { path: '/api/v1/notifications/requests', token: carol.token })).body as { id: string; account: { id: string } }[];
    const request = (await listed()).find((r) => r.account.id === sender.account.id);
    expect(request).toBeDefined();

    await updateAccount(sender.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
    expect((await listed()).map((r) => r.account.id)).not.toContain(sender.account.id);
    const shown = await call(requestShow, { path: `/api/v1/notifications/requests/${request!.id}`, pathParameters: { id: request!.id }, token: carol.token });
    expect(shown.status).toBe(404);
  });
});
