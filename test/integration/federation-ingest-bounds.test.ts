// Remote content bounded in UTF-8 bytes at ingest (issue 25, finding 2): control characters removed, a Note's
// HTML and text cut to MAX_CONTENT_BYTES, and every item under DynamoDB's 400 KB. Driven through the inbox worker's
// handler (an SQS batch, as the queue delivers it): a message it cannot store must not come back as a failure (retried
// into the dead-letter queue). The last suites go the whole way: a POST signed with a remote actor's real key to the
// inbox endpoint, the queued message through the inbox worker, the status read back through the API.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as inboxEndpoint } from '../../functions/activitypub/inbox';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as inboxWorker } from '../../functions/workers/inbox';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import { itemSize, MAX_ITEM_BYTES } from '../../lib/db/item_size';
import * as keys from '../../lib/db/keys';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById } from '../../lib/db/statuses';
import { dynamo } from '../../lib/aws';
import { config } from '../../lib/config';
import { parseActor } from '../../lib/federation/actor_store';
import { signRequest, type Signer } from '../../lib/federation/signatures';
import { MAX_CONTENT_BYTES } from '../../lib/federation/notes';
import { registerInlineWorker } from '../../lib/queue';
import { activity, aNote, type Doc } from '../support/activities';
import { aRemoteAccount } from '../support/factories';
import { call } from '../support/http';

/** The messages each queue's worker reported failed (each would be retried, then dead-lettered), when run inline. */
const failed: string[] = [];
const watched = (queue: string, worker: (event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] } | void>) =>
  async (event: SQSEvent) => {
    const result = (await worker(event)) ?? { batchItemFailures: [] };
    failed.push(...result.batchItemFailures.map((f) => `${queue}:${f.itemIdentifier}`));
    return result;
  };
registerInlineWorker('fanout', watched('fanout', (e) => fanoutWorker(e)));
registerInlineWorker('notify', watched('notify', (e) => notifyWorker(e)));
registerInlineWorker('inbox', watched('inbox', (e) => inboxWorker(e)));
for (const queue of ['deliver', 'cards', 'push', 'remoteMedia'] as const) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));
beforeEach(() => {
  failed.length = 0;
});

type Remote = Account & { uri: string; followersUrl: string };
let alice: Remote;

beforeAll(async () => {
  alice = (await aRemoteAccount({ domain: 'ingest-bounds.example', keyless: true })).account as Remote;
});

/** One inbox message through the worker as the queue delivers it; answers the messages it reported failed. */
async function throughWorker(body: Doc): Promise<string[]> {
  const message = { activity: body, signer: String(body.actor), receivedAt: new Date().toISOString() };
  const event = { Records: [{ messageId: randomUUID(), body: JSON.stringify(message) }] } as unknown as SQSEvent;
  const result = await inboxWorker(event);
  return (result ?? { batchItemFailures: [] }).batchItemFailures.map((f) => f.itemIdentifier);
}

const rawStatusItem = async (id: string) => (await dynamo().get({ TableName: config.tableName, Key: keys.status(id) })).Item!;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const published = () => new Date(Date.now() - 60_000).toISOString();

async function stored(note: Doc & { id: string }) {
  const id = await remoteStatusIdByUri(note.id);
  return id ? { status: (await statusById(id, true))!, item: await rawStatusItem(id) } : undefined;
}

describe('a remote Note is stored bounded in bytes', () => {
  it('keeps none of 99,900 control characters, in its HTML or its text', async () => {
    const note = aNote(alice, { content: `<p>${'\u0001'.repeat(99_900)}visible&#2;\u0085</p>`, published: published() });
    expect(await throughWorker(activity(alice, 'Create', note))).toEqual([]);
    const got = await stored(note);
    expect(got).toBeDefined();
    expect(got!.status.contentHtml).toBe('<p>visible</p>');
    expect(got!.status.text).toBe('visible');
    expect(itemSize(got!.item)).toBeLessThan(2_000);
  });

  it.each([
    ['70,000 CJK characters', '中'.repeat(70_000)],
    ['100,000 four-byte emoji', '😀'.repeat(100_000)],
  ])('stores %s under 400 KB, cut at a character, and the worker acknowledges it', async (_, text) => {
    const note = aNote(alice, { content: `<p><a href="https://ingest-bounds.example/x?a=1&amp;b=2">a &amp; b</a> ${text}</p>`, summary: text.slice(0, 40_000), published: published() });
    expect(await throughWorker(activity(alice, 'Create', note))).toEqual([]);
    const got = await stored(note);
    expect(got).toBeDefined();
    const { contentHtml, text: plain } = got!.status;
    expect(itemSize(got!.item)).toBeLessThan(MAX_ITEM_BYTES);
    expect(bytes(contentHtml)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(bytes(plain)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(contentHtml.startsWith('<p><a href="https://ingest-bounds.example/x?a=1&amp;b=2"')).toBe(true);
    expect(contentHtml.endsWith('…</p>')).toBe(true);
    expect(plain.startsWith('a & b ')).toBe(true);
    // No lone surrogate: the text is whole characters.
    expect(contentHtml).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(plain).not.toContain('\ufffd');
  });

  it('bounds an edit (Update) that would grow the status past the limit', async () => {
    const note = aNote(alice, { content: '<p>short</p>', published: published() });
    expect(await throughWorker(activity(alice, 'Create', note))).toEqual([]);
    const edited = { ...note, content: `<p>${'中'.repeat(70_000)}</p>`, updated: new Date(Date.now() - 1_000).toISOString() };
    expect(await throughWorker(activity(alice, 'Update', edited))).toEqual([]);
    const got = await stored(note);
    expect(got!.status.editedAt).not.toBeNull();
    expect(got!.status.text.startsWith('中中中')).toBe(true);
    expect(itemSize(got!.item)).toBeLessThan(MAX_ITEM_BYTES);
    expect(bytes(got!.status.contentHtml)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
  });
});

describe('a remote actor is stored bounded in bytes', () => {
  it('cuts huge names, bios and fields in bytes and keeps no control characters', () => {
    const cjk = (n: number) => '中'.repeat(n);
    const parsed = parseActor({
      id: 'https://ingest-bounds.example/users/huge',
      type: 'Person',
      preferredUsername: 'huge',
      inbox: 'https://ingest-bounds.example/users/huge/inbox',
      name: `\u0001${cjk(5_000)}`,
      summary: `<p>${cjk(50_000)}\u0007</p>`,
      attachment: Array.from({ length: 16 }, (_, i) => ({ type: 'PropertyValue', name: `${i}\u0002${cjk(255)}`, value: `<a href="https://x.example/">${cjk(2_047)}</a>` })),
    });
    const item = { ...parsed };
    expect(itemSize(item)).toBeLessThan(250_000);
    expect(bytes(parsed.displayName)).toBeLessThanOrEqual(1_000);
    expect(bytes(parsed.noteHtml)).toBeLessThanOrEqual(50_000);
    expect(JSON.stringify(parsed)).not.toMatch(/[\u0001\u0002\u0007]/);
    for (const f of parsed.fieldsHtml) expect(f.value).toMatch(/^<a href="https:\/\/x\.example\/"[^>]*>中+…<\/a>$/);
  });
});

describe('through a signed inbox POST, the worker and the API', () => {
  let peer: Remote;
  let signer: Signer;
  beforeAll(async () => {
    const fixture = await aRemoteAccount({ domain: 'signed-bounds.example' });
    peer = fixture.account as Remote;
    signer = fixture.signer;
  });

  /** The peer's POST of `body` to our shared inbox, signed with its actor's real key; the inline queue runs the worker. */
  async function deliver(body: Doc) {
    const text = JSON.stringify(body);
    const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body: text }, signer);
    const res = await call(inboxEndpoint, { method: 'POST', path: '/inbox', headers, body: { data: text, contentType: 'application/activity+json' } });
    expect(res.status).toBe(202);
  }

  async function shown(note: Doc & { id: string }) {
    const id = await remoteStatusIdByUri(note.id);
    expect(id).toBeDefined();
    const res = await call(showStatus, { path: `/api/v1/statuses/${id}`, pathParameters: { id: id! } });
    expect(res.status).toBe(200);
    return { api: res.body as { content: string; edited_at: string | null }, stored: (await statusById(id!, true))!, item: await rawStatusItem(id!) };
  }

  const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

  it('a Create(Note) of 99,900 control characters is stored and shown without them', async () => {
    const note = aNote(peer, { content: `<p>${'\u0001'.repeat(99_900)}visible</p>`, published: published() });
    await deliver(activity(peer, 'Create', note));
    const { api, stored: status, item } = await shown(note);
    expect(api.content).toBe('<p>visible</p>');
    expect(api.content).not.toMatch(CONTROL);
    expect(status.text).toBe('visible');
    expect(itemSize(item)).toBeLessThan(2_000);
    expect(failed).toEqual([]);
  });

  it('a Create(Note) of 70,000 CJK characters is stored under 400 KB and shown cut in bytes', async () => {
    const note = aNote(peer, { content: `<p>${'中'.repeat(70_000)}</p>`, published: published() });
    await deliver(activity(peer, 'Create', note));
    const { api, stored: status, item } = await shown(note);
    expect(bytes(api.content)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(api.content).toMatch(/^<p>中+…<\/p>$/);
    expect(bytes(status.text)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(itemSize(item)).toBeLessThan(MAX_ITEM_BYTES);
    expect(failed).toEqual([]);
  });

  it('an Update that edits a Note to 70,000 CJK characters and control characters is stored bounded and shown edited', async () => {
    const note = aNote(peer, { content: '<p>short</p>', published: published() });
    await deliver(activity(peer, 'Create', note));
    const edited = { ...note, content: `<p>\u0002${'中'.repeat(70_000)}</p>`, updated: new Date(Date.now() - 1_000).toISOString() };
    await deliver(activity(peer, 'Update', edited));
    const { api, stored: status, item } = await shown(note);
    expect(api.edited_at).not.toBeNull();
    expect(api.content).toMatch(/^<p>中+…<\/p>$/);
    expect(bytes(api.content)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(status.text).not.toMatch(CONTROL);
    expect(bytes(status.text)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(itemSize(item)).toBeLessThan(MAX_ITEM_BYTES);
    expect(failed).toEqual([]);
  });
});
