// Delivery (lib/federation/deliver.ts, functions/workers/deliver.ts) to a remote
// inbox that is a real HTTP server on loopback (the local stage with
// FEDERATION_ALLOW_PRIVATE=1): the POST arrives signed by the local account and
// verifies; transient failures come back with attempt+1 (past SQS's 15-minute
// delay, with notBefore), other refusals are dropped, the last attempt fails for the
// dead-letter queue; a server that keeps failing is skipped until it recovers.
import type { Context, SQSEvent } from 'aws-lambda';
import { handler as deliverWorker } from '../../functions/workers/deliver';
import { serverHealthOf, recordDeliveryFailure } from '../../lib/db/server_health';
import { deliverOne, deliverTo, MAX_ATTEMPTS, RETRY_AFTER_TRUSTED_ATTEMPTS, RETRY_DELAYS_S, UNAVAILABLE_AFTER_FAILURES, UNAVAILABLE_FOR_MS } from '../../lib/federation/deliver';
import { instancePublicKey, publicKeyOf } from '../../lib/federation/keys';
import { verifyRequest } from '../../lib/federation/signatures';
import { registerInlineQueue, registerInlineWorker, sqsEvent, type HeldMessage } from '../../lib/queue';
import type { DeliverMessage } from '../../lib/queue/messages';
import { aUser, type UserFixture } from '../support/factories';
import { headersOf, remoteServer, type RemoteServer } from '../support/remote-server';

let server: RemoteServer;
let sender: UserFixture;
/** Messages the deliver queue received while the recording worker stood in for the real one. */
let requeued: DeliverMessage[] = [];

const useRealWorker = () => registerInlineWorker('deliver', (event: SQSEvent, context: Context) => deliverWorker(event, context));
const useRecordingWorker = () =>
  registerInlineWorker('deliver', async (event: SQSEvent) => {
    for (const r of event.Records) requeued.push(JSON.parse(r.body));
    return { batchItemFailures: [] };
  });

beforeEach(async () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  requeued = [];
  useRealWorker();
  server = await remoteServer();
  sender = await aUser();
});
afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  await server.close();
});

const createOf = (username: string) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `https://social.example/users/${username}/statuses/1/activity`,
  type: 'Create',
  actor: `https://social.example/users/${username}`,
  to: ['https://www.w3.org/ns/activitystreams#Public'],
  object: { id: `https://social.example/users/${username}/statuses/1`, type: 'Note', content: '<p>hello</p>' },
});

const messageTo = (inbox: string, attempt = 1): DeliverMessage => ({
  inbox,
  activity: createOf(sender.account.username),
  signer: { accountId: sender.account.id },
  attempt,
});

/** Runs the worker on one message, as SQS would hand it over. */
const work = (message: DeliverMessage) => deliverWorker(sqsEvent('deliver', [message]), {} as Context);

describe('delivering', () => {
  it('POSTs the activity to the inbox, signed by its author; the signature verifies', async () => {
    server.route('POST', '/inbox', { status: 202, body: '' });
    const activity = createOf(sender.account.username);
    await deliverTo(activity, [`${server.origin}/inbox`], { accountId: sender.account.id });
    const req = await server.request(1);
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/activity+json');
    expect(JSON.parse(req.body.toString('utf8'))).toEqual(activity);
    expect(String(req.headers.signature)).toContain(`keyId="https://social.example/users/${sender.account.username}#main-key"`);
    expect(String(req.headers.signature)).toContain('headers="(request-target) host date digest content-type"');
    const publicKeyPem = await publicKeyOf(sender.account);
    const ownerUri = `https://social.example/users/${sender.account.username}`;
    const verified = await verifyRequest({ method: 'POST', path: req.path, headers: headersOf(req), body: req.body }, async (keyId) =>
      keyId === `${ownerUri}#main-key` ? { publicKeyPem, ownerUri } : undefined,
    );
    expect(verified).toEqual({ ok: true, keyId: `${ownerUri}#main-key`, ownerUri });
  });

  it('signs as the instance actor when asked to', async () => {
    server.route('POST', '/inbox', { status: 200, body: '' });
    await deliverTo({ id: 'https://social.example/actor#x', type: 'Delete' }, [`${server.origin}/inbox`], 'instance');
    const req = await server.request(1);
    const publicKeyPem = await instancePublicKey();
    expect(String(req.headers.signature)).toContain('keyId="https://social.example/actor#main-key"');
    expect(await verifyRequest({ method: 'POST', path: req.path, headers: headersOf(req), body: req.body }, async () => ({ publicKeyPem, ownerUri: 'x' }))).toMatchObject({ ok: true });
  });

  it('sends one message per distinct inbox, never to our own URLs or to what is not a URL', async () => {
    server.route('POST', '/inbox', { status: 202, body: '' });
    server.route('POST', '/users/a/inbox', { status: 202, body: '' });
    useRecordingWorker();
    await deliverTo(createOf(sender.account.username), [
      `${server.origin}/inbox`, `${server.origin}/users/a/inbox`, `${server.origin}/inbox`,
      'https://social.example/inbox', `https://social.example/users/${sender.account.username}/inbox`, 'not a url',
    ], { accountId: sender.account.id });
    expect(requeued.map((m) => m.inbox).sort()).toEqual([`${server.origin}/inbox`, `${server.origin}/users/a/inbox`]);
    expect(requeued.every((m) => m.attempt === 1)).toBe(true);
  });

  it('a 2xx clears the failures counted against the server', async () => {
    await recordDeliveryFailure(server.host, new Date());
    server.route('POST', '/inbox', { status: 202, body: '' });
    expect(await deliverOne(messageTo(`${server.origin}/inbox`))).toBe('delivered');
    expect(await serverHealthOf(server.host)).toBeUndefined();
  });
});

describe('failures', () => {
  beforeEach(useRecordingWorker);

  it.each([500, 502, 503, 408, 429, 401])('a %i comes back later as attempt 2, counted against the server', async (status) => {
    server.route('POST', '/inbox', { status, body: '' });
    expect(await work(messageTo(`${server.origin}/inbox`))).toEqual({ batchItemFailures: [] });
    expect(server.received).toHaveLength(1);
    expect(requeued).toEqual([{ ...messageTo(`${server.origin}/inbox`), attempt: 2 }]);
    expect(await serverHealthOf(server.host)).toMatchObject({ failures: 1, unavailableUntil: null });
  });

  it('a server that does not listen (a network failure) comes back later too', async () => {
    const port = new URL(server.origin).port;
    await server.close();
    await work(messageTo(`http://127.0.0.1:${port}/inbox`, 3));
    expect(requeued).toEqual([expect.objectContaining({ attempt: 4 })]);
    server = await remoteServer();
  });

  it.each([400, 403, 404, 410, 422, 501])('a %i is the server\'s final answer: dropped, not retried', async (status) => {
    server.route('POST', '/inbox', { status, body: '' });
    expect(await work(messageTo(`${server.origin}/inbox`))).toEqual({ batchItemFailures: [] });
    expect(server.received).toHaveLength(1);
    expect(requeued).toEqual([]);
    expect(await serverHealthOf(server.host)).toBeUndefined();
  });

  describe('a server that says when to come back (Retry-After)', () => {
    let held: HeldMessage[] = [];
    beforeEach(() => {
      held = [];
      registerInlineQueue('deliver', (m) => held.push(m));
    });

    it('is asked again when it says, sooner than our schedule, and its health is not counted against it', async () => {
      server.route('POST', '/inbox', { status: 503, headers: { 'retry-after': '3' }, body: 'try again' });
      expect(await deliverOne(messageTo(`${server.origin}/inbox`))).toBe('retrying');
      expect(held).toEqual([{ body: { ...messageTo(`${server.origin}/inbox`), attempt: 2 }, delaySeconds: 3 }]);
      expect(await serverHealthOf(server.host)).toBeUndefined();
    });

    it('a 401 whose key fetch failed lately (an HTTP date) is asked again then, not dropped', async () => {
      const at = new Date(Date.now() + 40_000).toUTCString();
      server.route('POST', '/inbox', { status: 401, headers: { 'retry-after': at }, body: '' });
      expect(await deliverOne(messageTo(`${server.origin}/inbox`, 2))).toBe('retrying');
      expect(held).toHaveLength(1);
      expect(held[0]!.body).toMatchObject({ attempt: 3 });
      expect(held[0]!.delaySeconds).toBeGreaterThanOrEqual(38);
      expect(held[0]!.delaySeconds).toBeLessThanOrEqual(41);
    });

    it(`after ${RETRY_AFTER_TRUSTED_ATTEMPTS} retries it never brings an attempt before our schedule, but may put it later`, async () => {
      const attempt = RETRY_AFTER_TRUSTED_ATTEMPTS + 1;
      const scheduled = RETRY_DELAYS_S[attempt - 1]!;
      server.route('POST', '/inbox', { status: 429, headers: { 'retry-after': '2' }, body: '' });
      await deliverOne(messageTo(`${server.origin}/inbox`, attempt));
      server.route('POST', '/inbox', { status: 429, headers: { 'retry-after': String(scheduled + 100) }, body: '' });
      const now = new Date();
      await deliverOne(messageTo(`${server.origin}/inbox`, attempt), now);
      expect(held.map((m) => m.delaySeconds)).toEqual([Math.min(scheduled, 900), Math.min(scheduled + 100, 900)]);
      // Past SQS's fifteen minutes the message carries when it is due.
      expect(held[1]!.body).toMatchObject({ notBefore: new Date(now.getTime() + (scheduled + 100) * 1000).toISOString() });
    });

    it('an unreadable Retry-After is our schedule', async () => {
      server.route('POST', '/inbox', { status: 503, headers: { 'retry-after': 'soon' }, body: '' });
      await deliverOne(messageTo(`${server.origin}/inbox`));
      expect(held.map((m) => m.delaySeconds)).toEqual([RETRY_DELAYS_S[0]]);
      expect(await serverHealthOf(server.host)).toMatchObject({ failures: 1 });
    });
  });

  it('a destination the guard refuses is dropped without a request', async () => {
    expect(await deliverOne(messageTo('http://169.254.169.254/inbox'))).toBe('dropped');
    expect(requeued).toEqual([]);
  });

  it('waits longer after each attempt: past fifteen minutes the message carries the time it is due', async () => {
    server.route('POST', '/inbox', { status: 500, body: '' });
    const now = new Date();
    expect(await deliverOne(messageTo(`${server.origin}/inbox`, 3), now)).toBe('retrying');
    expect(requeued[0]).toMatchObject({ attempt: 4 });
    expect(requeued[0]!.notBefore).toBeUndefined();
    expect(await deliverOne(messageTo(`${server.origin}/inbox`, 4), now)).toBe('retrying');
    expect(requeued[1]).toMatchObject({ attempt: 5, notBefore: new Date(now.getTime() + RETRY_DELAYS_S[3] * 1000).toISOString() });
    expect(RETRY_DELAYS_S.reduce((a, b) => a + b, 0)).toBeGreaterThan(7 * 3600);
  });

  it('where the queue cannot hold a message (inline workers) it is not held back for its notBefore', async () => {
    server.route('POST', '/inbox', { status: 202, body: '' });
    const due = new Date(Date.now() + 3600_000).toISOString();
    expect(await deliverOne({ ...messageTo(`${server.origin}/inbox`, 5), notBefore: due })).toBe('delivered');
  });

  it(`fails the last attempt (${MAX_ATTEMPTS}) so that the queue's redrive parks it in the dead-letter queue`, async () => {
    server.route('POST', '/inbox', { status: 503, body: '' });
    const message = messageTo(`${server.origin}/inbox`, MAX_ATTEMPTS);
    const event = sqsEvent('deliver', [message]);
    expect(await deliverWorker(event, {} as Context)).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] });
    expect(requeued).toEqual([]);
  });

  it('a batch is worked side by side, each record failing on its own', async () => {
    server.route('POST', '/ok', { status: 202, body: '' });
    server.route('POST', '/bad', { status: 500, body: '' });
    const event = sqsEvent('deliver', [messageTo(`${server.origin}/ok`), messageTo(`${server.origin}/bad`, MAX_ATTEMPTS), messageTo(`${server.origin}/ok`)]);
    expect(await deliverWorker(event, {} as Context)).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[1]!.messageId }] });
    expect(server.received).toHaveLength(3);
  });
});

describe('server health', () => {
  beforeEach(useRecordingWorker);

  it(`marks a server unavailable after ${UNAVAILABLE_AFTER_FAILURES} failures spanning an hour, skips it, and forgets it on a success`, async () => {
    server.route('POST', '/inbox', { status: 500, body: '' });
    const inbox = `${server.origin}/inbox`;
    const start = Date.now() - 2 * 3600_000;
    // Ten failures within ten minutes: not yet an hour of failing.
    for (let i = 0; i < UNAVAILABLE_AFTER_FAILURES; i++) await deliverOne(messageTo(inbox), new Date(start + i * 60_000));
    expect(await serverHealthOf(server.host)).toMatchObject({ failures: UNAVAILABLE_AFTER_FAILURES, unavailableUntil: null });
    // One more, an hour after the first: unavailable for six hours.
    const later = new Date(start + 61 * 60_000);
    await deliverOne(messageTo(inbox), later);
    expect(await serverHealthOf(server.host)).toMatchObject({
      failures: UNAVAILABLE_AFTER_FAILURES + 1,
      unavailableUntil: new Date(later.getTime() + UNAVAILABLE_FOR_MS).toISOString(),
    });
    const sent = server.received.length;

    // New deliveries skip it; a pending retry is dropped without a request.
    requeued = [];
    await deliverTo(createOf(sender.account.username), [inbox], { accountId: sender.account.id });
    expect(requeued).toEqual([]);
    expect(await deliverOne(messageTo(inbox, 3))).toBe('skipped');
    expect(server.received).toHaveLength(sent);

    // Six hours on, it is tried again; a success forgets its failures.
    server.route('POST', '/inbox', { status: 202, body: '' });
    expect(await deliverOne(messageTo(inbox), new Date(later.getTime() + UNAVAILABLE_FOR_MS + 1000))).toBe('delivered');
    expect(await serverHealthOf(server.host)).toBeUndefined();
    await deliverTo(createOf(sender.account.username), [inbox], { accountId: sender.account.id });
    expect(requeued).toHaveLength(1);
  });
});
