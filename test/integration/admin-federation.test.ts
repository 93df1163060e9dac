// The operator's federation commands through the command line (lib/admin/cli.ts main): domain blocks
// (block, unblock, list, the two settings), failing servers, the deliver queue's dead letters (against a
// stand-in SQS speaking the JSON protocol the SDK uses, as the emulators have no SQS) and a refetch of a
// remote account from a fake peer. Each bad command line is paired with its good twin.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { main } from '../../lib/admin/cli';
import { suspensionSettle } from '../../lib/admin/federation_commands';
import { instanceSettings } from '../../lib/db/instance';
import { instanceDomainBlockOf } from '../../lib/db/instance_domain_blocks';
import { remoteAccountByUri } from '../../lib/db/remote';
import { recordDeliveryFailure } from '../../lib/db/server_health';
import { accountByActorUri } from '../../lib/federation/actors';
import { aRemoteAccount } from '../support/factories';
import { aRemoteActor, remoteServer, type RemoteServer } from '../support/remote-server';

// A suspension's second pass waits for the functions' cached block lists; nothing here holds one.
beforeAll(() => {
  suspensionSettle.ms = 0;
});

/** Runs one command line; answers its exit code and what it printed. */
async function admin(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  // The line naming the stage and table every command starts with is admin-cli.test.ts's concern.
  const code = await main(argv, { out: (t) => (out += `${t}\n`), err: (t) => void (/^Stage \S+, table /.test(t) || (err += `${t}\n`)) });
  return { code, out, err };
}

const aDomain = (what: string) => `${what}-${randomUUID().slice(0, 8)}.example`;

describe('domains', () => {
  it('blocks with a severity and comments, lists, changes and unblocks', async () => {
    const domain = aDomain('spam');
    const blocked = await admin('domains', 'block', domain.toUpperCase(), '--severity', 'silence', '--public-comment', 'spam', '--private-comment', 'ticket 12');
    expect(blocked).toMatchObject({ code: 0, err: '' });
    expect(blocked.out).toContain(`Blocked ${domain} (silence)`);
    expect(await instanceDomainBlockOf(domain)).toMatchObject({ domain, severity: 'silence', publicComment: 'spam', privateComment: 'ticket 12' });

    const list = await admin('domains', 'list');
    expect(list.code).toBe(0);
    expect(list.out).toContain(`${domain}  silence`);
    expect(list.out).toContain('public comment:  spam');
    expect(list.out).toContain('private comment: ticket 12');

    const changed = await admin('domains', 'block', domain, '--severity', 'suspend');
    expect(changed.code).toBe(0);
    expect(changed.out).toContain('to suspend');
    // The comments stay when not given again.
    expect(await instanceDomainBlockOf(domain)).toMatchObject({ severity: 'suspend', publicComment: 'spam' });

    const unblocked = await admin('domains', 'unblock', domain);
    expect(unblocked).toMatchObject({ code: 0 });
    expect(await instanceDomainBlockOf(domain)).toBeUndefined();
    const again = await admin('domains', 'unblock', domain);
    expect(again.code).toBe(1);
    expect(again.err).toContain('is not blocked');
  });

  it('suspends by default and removes what is stored from the domain', async () => {
    const domain = aDomain('gone');
    const { account } = await aRemoteAccount({ domain, keyless: true });
    const res = await admin('domains', 'block', domain);
    expect(res.code).toBe(0);
    expect(res.out).toContain('(suspend)');
    expect(res.out).toContain('Removed 1 account');
    expect(await remoteAccountByUri(account.uri!)).toBeUndefined();
  });

  it.each([
    [['domains', 'block', 'bad.example', '--severity', 'noop'], /--severity must be one of silence, suspend/],
    [['domains', 'block', 'not a domain'], /Not a domain/],
    [['domains', 'block', 'social.example'], /own domain/],
    [['domains', 'block'], /Missing the domain/],
    [['domains', 'list', '--severity', 'silence'], /belong to `domains block`/],
    [['domains', 'list', 'extra'], /Unexpected argument "extra"/],
    [['domains', 'toString'], /Unknown command "domains toString"/],
    [['domains', 'block', 'long.example', '--public-comment', 'x'.repeat(1001)], /too long/],
  ])('refuses %s', async (argv, message) => {
    const res = await admin(...argv);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(message);
    expect(await instanceDomainBlockOf('bad.example')).toBeUndefined();
    expect(await instanceDomainBlockOf('long.example')).toBeUndefined();
  });

  it('switches the two settings', async () => {
    expect((await admin('settings', 'set', 'authorized-fetch', 'on')).code).toBe(0);
    expect((await admin('settings', 'set', 'domain-blocks-public', 'on')).code).toBe(0);
    expect(await instanceSettings()).toMatchObject({ authorizedFetch: true, domainBlocksPublic: true });
    const shown = await admin('settings', 'show');
    expect(shown.out).toMatch(/authorized-fetch:\s+on/);
    expect(shown.out).toMatch(/domain-blocks-public:\s*on/);
    const bad = await admin('settings', 'set', 'authorized-fetch', 'maybe');
    expect(bad.code).toBe(1);
    expect((await admin('settings', 'set', 'authorized-fetch', 'off')).code).toBe(0);
    expect((await instanceSettings()).authorizedFetch).toBe(false);
  });
});

describe('federation servers', () => {
  it('lists the known servers failing deliveries, not the healthy ones', async () => {
    const [failing, healthy] = [aDomain('failing'), aDomain('healthy')];
    await Promise.all([aRemoteAccount({ domain: failing, keyless: true }), aRemoteAccount({ domain: healthy, keyless: true })]);
    await recordDeliveryFailure(failing, new Date('2024-05-01T00:00:00Z'));
    await recordDeliveryFailure(failing, new Date('2024-05-01T01:00:00Z'));
    const res = await admin('federation', 'servers');
    expect(res.code).toBe(0);
    expect(res.out).toContain(`${failing}  2 failures since 2024-05-01T00:00:00.000Z, last 2024-05-01T01:00:00.000Z`);
    expect(res.out).not.toContain(healthy);
  });
});

// ---- a stand-in SQS: the JSON protocol (x-amz-target AmazonSQS.<Action>) the SDK speaks ----

type Stored = { id: string; body: string; receipt?: string; hiddenUntil: number; receives: number };
const queues = new Map<string, Stored[]>();
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

function sqsAction(action: string, input: Record<string, unknown>): unknown {
  const messages = queues.get(String(input.QueueUrl)) ?? [];
  queues.set(String(input.QueueUrl), messages);
  if (action === 'SendMessage') {
    const body = String(input.MessageBody);
    const id = randomUUID();
    messages.push({ id, body, hiddenUntil: 0, receives: 0 });
    return { MessageId: id, MD5OfMessageBody: md5(body) };
  }
  if (action === 'ReceiveMessage') {
    const now = Date.now();
    const visible = messages.filter((m) => m.hiddenUntil <= now).slice(0, Number(input.MaxNumberOfMessages ?? 1));
    for (const m of visible) {
      m.receipt = randomUUID();
      m.receives++;
      m.hiddenUntil = now + Number(input.VisibilityTimeout ?? 30) * 1000;
    }
    return { Messages: visible.map((m) => ({ MessageId: m.id, ReceiptHandle: m.receipt, Body: m.body, MD5OfBody: md5(m.body), Attributes: { ApproximateReceiveCount: String(m.receives) } })) };
  }
  const found = messages.findIndex((m) => m.receipt === input.ReceiptHandle);
  if (action === 'ChangeMessageVisibility' && found >= 0) messages[found]!.hiddenUntil = Date.now() + Number(input.VisibilityTimeout) * 1000;
  if (action === 'DeleteMessage' && found >= 0) messages.splice(found, 1);
  return {};
}

describe('federation dead-letters and retry', () => {
  let sqsServer: http.Server;
  const dlq = 'http://sqs.local/000000000000/tootless-test-deliver-dlq';
  const deliverQueue = 'http://sqs.local/000000000000/tootless-test-deliver';
  const saved = { ...process.env };

  beforeAll(async () => {
    sqsServer = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const action = String(req.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
        const out = sqsAction(action, JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>);
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(out));
      });
    });
    await new Promise<void>((resolve) => sqsServer.listen(0, '127.0.0.1', resolve));
    process.env.AWS_ENDPOINT_URL_SQS = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    process.env = saved;
    await new Promise((resolve) => sqsServer.close(resolve));
  });

  const deadLetter = (inbox: string, type: string, attempt: number) =>
    JSON.stringify({ inbox, activity: { id: `https://social.example/activities/${randomUUID()}`, type, actor: 'https://social.example/users/alice' }, signer: 'instance', attempt });

  it('says where the dead letters are missing a queue URL', async () => {
    delete process.env.QUEUE_URL_DELIVER_DLQ;
    const res = await admin('federation', 'dead-letters');
    expect(res.code).toBe(1);
    expect(res.err).toContain('QUEUE_URL_DELIVER_DLQ');
  });

  it('lists the dead letters (inbox, type, attempts) and leaves them in the queue; retry moves them back as first attempts', async () => {
    process.env.QUEUE_URL_DELIVER_DLQ = dlq;
    process.env.QUEUE_URL_DELIVER = deliverQueue;
    process.env.QUEUE_MODE = 'sqs';
    queues.set(dlq, [
      { id: 'a', body: deadLetter('https://down.example/inbox', 'Create', 8), hiddenUntil: 0, receives: 5 },
      { id: 'b', body: deadLetter('https://slow.example/users/x/inbox', 'Follow', 8), hiddenUntil: 0, receives: 5 },
    ]);
    const listed = await admin('federation', 'dead-letters');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/https:\/\/down\.example\/inbox {2}Create {2}\S+ {2}attempts: 8/);
    expect(listed.out).toMatch(/https:\/\/slow\.example\/users\/x\/inbox {2}Follow/);
    expect(queues.get(dlq)).toHaveLength(2);
    // Listed twice: the same two (made visible again after each listing).
    expect((await admin('federation', 'dead-letters')).out.trim().split('\n')).toHaveLength(2);

    const retried = await admin('federation', 'retry');
    expect(retried).toMatchObject({ code: 0 });
    expect(retried.out).toContain('Moved 2 dead letters');
    expect(queues.get(dlq)).toHaveLength(0);
    const resent = (queues.get(deliverQueue) ?? []).map((m) => JSON.parse(m.body) as { inbox: string; attempt: number });
    expect(resent.map((m) => [m.inbox, m.attempt]).sort()).toEqual([
      ['https://down.example/inbox', 1],
      ['https://slow.example/users/x/inbox', 1],
    ]);
    expect((await admin('federation', 'dead-letters')).out).toContain('empty');
  });
});

describe('federation refetch', () => {
  let server: RemoteServer;
  beforeAll(async () => {
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    server = await remoteServer();
  });
  afterAll(async () => {
    process.env.STAGE = 'test';
    delete process.env.FEDERATION_ALLOW_PRIVATE;
    await server.close();
  });

  it("stores what the actor's document says now", async () => {
    const actor = aRemoteActor(server.origin, 'remy');
    server.serve(actor.doc);
    const stored = await accountByActorUri(actor.doc.id);
    expect(stored?.displayName).toBe('remy remote');
    server.serve({ ...actor.doc, name: 'Remy, renamed' });

    const res = await admin('federation', 'refetch', `remy@${server.host}`);
    expect(res).toMatchObject({ code: 0, err: '' });
    expect(res.out).toContain(`Refetched remy@${server.host}`);
    expect((await remoteAccountByUri(actor.doc.id))?.displayName).toBe('Remy, renamed');
  });

  it('reports a peer that cannot answer, and a handle that is not one', async () => {
    const down = await admin('federation', 'refetch', 'nobody@127.0.0.1:9');
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/Cannot fetch|No account/);
    const bad = await admin('federation', 'refetch', 'justaname');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('Not a remote account handle');
  });
});
