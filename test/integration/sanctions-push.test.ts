// The push worker sends nothing for a notification whose actor has been suspended since it was made
// (lib/policy/sanctions.ts): a message queued before the suspension pushes nothing after it.
import webpush from 'web-push';
import { handler as createHandler } from '../../functions/push/create';
import { handler as pushWorker } from '../../functions/workers/push';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { createNotification, type Notification } from '../../lib/db/notifications';
import { newId } from '../../lib/ids';
import { useResolver } from '../../lib/push/endpoint';
import { sqsEvent } from '../../lib/queue';
import { aBareAccount, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { pushReceiver, type PushReceiver } from '../support/push-receiver';

const VAPID = webpush.generateVAPIDKeys();

beforeAll(() => {
  process.env.VAPID_PUBLIC_KEY = VAPID.publicKey;
  process.env.VAPID_PRIVATE_KEY = VAPID.privateKey;
  process.env.PUSH_ALLOW_LOOPBACK = '1';
  useResolver(async (host: string) => {
    if (host === 'localhost') return ['127.0.0.1'];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  });
});
afterAll(() => useResolver(undefined));

let alice: UserFixture;
let receiver: PushReceiver;

beforeAll(async () => {
  alice = await aUser();
  receiver = await pushReceiver();
  const res = await call(createHandler, {
    method: 'POST',
    path: '/api/v1/push/subscription',
    token: alice.token,
    json: { subscription: { endpoint: receiver.endpoint, keys: receiver.keys }, data: { alerts: { favourite: true } } },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await receiver.close();
});

async function favouriteFrom(from: Account): Promise<Notification> {
  const status = await aStoredStatus(alice.account);
  const n: Notification = { id: newId(), type: 'favourite', accountId: alice.account.id, fromAccountId: from.id, statusId: status.id, createdAt: new Date().toISOString() };
  expect(await createNotification(n)).toBe(true);
  return n;
}

const runWorker = async (n: Notification) => {
  const res = await pushWorker(sqsEvent('push', [{ accountId: alice.account.id, notificationId: n.id }]));
  expect(res.batchItemFailures).toEqual([]);
};

it("pushes an account's notification, and nothing once that account is suspended", async () => {
  const bob = await aBareAccount({ displayName: 'Bob' });
  await runWorker(await favouriteFrom(bob));
  expect(receiver.received).toHaveLength(1);

  const queued = await favouriteFrom(bob);
  await updateAccount(bob.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
  await runWorker(queued);
  expect(receiver.received).toHaveLength(1);
});
