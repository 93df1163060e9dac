// Push sends per second: the push worker's handler, fed SQS-shaped batches of
// 10 messages, sending 1,000 notifications (100 recipients, one subscription
// each) to a receiver on loopback, against dynalite started in this process.
// Every send is real: the worker's reads, aes128gcm encryption to the
// subscriber's key, a VAPID-signed POST; the receiver answers 201 and one
// message in a hundred is decrypted to check it.
// Usage: npm run bench:push   (PUSH_NOTIFICATIONS=1000, PUSH_CONCURRENCY=1,4 by default)
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, printTable } from './lib';

const NOTIFICATIONS = Number(process.env.PUSH_NOTIFICATIONS ?? 1000);
const RECIPIENTS = Math.min(100, NOTIFICATIONS);
const CONCURRENCY = (process.env.PUSH_CONCURRENCY ?? '1,4').split(',').map(Number);
const BATCH = 10;

async function main() {
  const emulators = await inProcessEmulators();
  const webpush = (await import('web-push')).default;
  const vapid = webpush.generateVAPIDKeys();
  Object.assign(process.env, { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, PUSH_ALLOW_LOOPBACK: '1', QUEUE_MODE: 'inline' });
  // Imported after the environment points at the emulators.
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { createNotification } = await import('../lib/db/notifications');
  const { savePushSubscription } = await import('../lib/db/push_subscriptions');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { putItem } = await import('../lib/db/table');
  const { registerApp, createAppInput } = await import('../lib/apps');
  const { newId } = await import('../lib/ids');
  const { sealToken } = await import('../lib/push/seal');
  const { tokenBinding } = await import('../lib/push/subscription');
  const { sqsEvent } = await import('../lib/queue');
  const { issueAccessToken } = await import('../lib/tokens');
  const { handler: pushWorker } = await import('../functions/workers/push');
  const { decryptAes128gcm } = await import('../test/support/push-receiver');

  // The receiver: counts, answers 201, decrypts a sample with the recipient's key (by path).
  const secrets = new Map<string, { ecdh: ECDH; auth: Buffer }>();
  let received = 0;
  let checked = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received++;
      if (received % 100 === 0) {
        const key = secrets.get(req.url ?? '')!;
        const payload = JSON.parse(decryptAes128gcm(Buffer.concat(chunks), key.ecdh, key.auth));
        if (payload.notification_type !== 'favourite') throw new Error('unexpected payload');
        checked++;
      }
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const rows: Record<string, string | number>[] = [];
  try {
    for (const concurrency of CONCURRENCY) {
      process.env.TABLE_NAME = `push-${randomBytes(3).toString('hex')}`;
      await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
      const { app } = await registerApp(createAppInput.parse({ client_name: 'bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read push' }));
      const actor = await createLocalAccount({ id: newId(), username: `actor${newId()}`, email: `actor${newId()}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString() });
      if (!actor.ok) throw new Error('actor');
      const messages: { accountId: string; notificationId: string }[] = [];
      for (let r = 0; r < RECIPIENTS; r++) {
        const created = await createLocalAccount({ id: newId(), username: `r${r}x${newId()}`, email: `r${r}x${newId()}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString() });
        if (!created.ok) throw new Error('recipient');
        const recipient = created.account;
        const { raw, token } = await issueAccessToken(app, recipient.id, ['push']);
        const ecdh = createECDH('prime256v1');
        ecdh.generateKeys();
        const auth = randomBytes(16);
        const path = `/push/${recipient.id}`;
        secrets.set(path, { ecdh, auth });
        const saved = await savePushSubscription(
          {
            id: newId(), accountId: recipient.id, tokenId: token.id, endpoint: `${origin}${path}`, p256dh: ecdh.getPublicKey('base64url'), auth: auth.toString('base64url'),
            alerts: { follow: false, follow_request: false, favourite: true, reblog: false, mention: false, status: false, update: false, poll: false, 'admin.sign_up': false, 'admin.report': false }, policy: 'all',
            sealedToken: sealToken(raw, tokenBinding(recipient.id, token.id)), createdAt: new Date().toISOString(),
          },
          token.tokenHash,
        );
        if (!saved) throw new Error('subscription');
        // One status per notification: a notification is unique per (recipient, type, actor, status).
        for (let i = 0; i < NOTIFICATIONS / RECIPIENTS; i++) {
          const id = newId();
          const status = statusItem.parse({ id, accountId: recipient.id, createdAt: new Date().toISOString(), visibility: 'public', conversationId: id, text: `a post worth a star (${i})`, contentHtml: `<p>a post worth a star (${i})</p>` });
          await putItem(statusRecord(status));
          const notificationId = newId();
          if (!(await createNotification({ id: notificationId, type: 'favourite', accountId: recipient.id, fromAccountId: actor.account.id, statusId: status.id, createdAt: new Date().toISOString() }))) throw new Error('notification');
          messages.push({ accountId: recipient.id, notificationId });
        }
      }

      const batches: (typeof messages)[] = [];
      for (let i = 0; i < messages.length; i += BATCH) batches.push(messages.slice(i, i + BATCH));
      received = 0;
      let failures = 0;
      const started = performance.now();
      let next = 0;
      // `concurrency` invocations in flight, as that many Lambda instances would consume the queue.
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < batches.length) {
            const batch = batches[next++]!;
            const res = await pushWorker(sqsEvent('push', batch));
            failures += res.batchItemFailures.length;
          }
        }),
      );
      const ms = performance.now() - started;
      if (failures > 0 || received !== messages.length) throw new Error(`${failures} failed messages, ${received} of ${messages.length} received`);
      rows.push({
        'invocations in flight': concurrency,
        notifications: messages.length,
        'pushes received': received,
        'total ms': Math.round(ms),
        'sends/s': Math.round((received / ms) * 1000),
        'ms per send': (ms / received).toFixed(2),
      });
    }
  } finally {
    server.close();
    await emulators.stop();
  }
  process.stdout.write(`\nPush worker to a loopback receiver (batches of ${BATCH}, in-process dynalite; ${checked} sampled pushes decrypted):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
