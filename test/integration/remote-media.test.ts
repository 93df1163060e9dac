// Remote media (lib/federation/remote_media.ts, lib/media/remote.ts, the remoteMedia queue):
// attachments of received Notes and the avatars and headers of remote actors are copied
// from a fake peer on loopback into the bucket, processed as uploads are, and rendered
// from our media URL with `remote_url` keeping the origin; what is refused (too large,
// a type that lies, an address the guard refuses) is neither copied nor retried; what
// fails is retried a few times; custom emoji tags are stored with the status and account.
// Received activities go through processActivity (the inbox worker's path); the copy
// requests it enqueues are recorded, and run through the real worker handler.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { SQSEvent } from 'aws-lambda';
import sharp from 'sharp';
import { handler as showAccount } from '../../functions/accounts/show';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as remoteMediaWorker } from '../../functions/workers/remote_media';
import { s3 } from '../support/s3';
import { accountById, type Account } from '../../lib/db/accounts';
import { mediaById } from '../../lib/db/media';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById } from '../../lib/db/statuses';
import { saveActorDocument } from '../../lib/federation/actors';
import { MAX_ATTEMPTS } from '../../lib/federation/remote_media';
import { AS_PUBLIC } from '../../lib/federation/urls';
import { padId } from '../../lib/ids';
import { processActivity } from '../../lib/inbox';
import { registerInlineWorker, sqsEvent } from '../../lib/queue';
import type { RemoteFileMessage, RemoteMediaMessage } from '../../lib/queue/messages';
import { call } from '../support/http';
import { aRemoteAccount } from '../support/factories';
import { aRemoteActor, remoteServer, type RemoteServer } from '../support/remote-server';

// ---- queues: fan-out and notifications not under test; copy requests recorded, then run by the real worker ----

const ignore = async () => ({ batchItemFailures: [] });
registerInlineWorker('fanout', ignore);
registerInlineWorker('notify', ignore);
registerInlineWorker('deliver', ignore);

/** The files asked for (an actor's save also asks for its featured collection, and a thread for its replies: not this file's subject). */
const requested: RemoteFileMessage[] = [];
/** false: requests are only recorded (to run them later, or to show the inbox path fetches nothing). */
let copyAtOnce = true;
registerInlineWorker('remoteMedia', async (event: SQSEvent) => {
  for (const r of event.Records) {
    const message = JSON.parse(r.body) as RemoteMediaMessage;
    if (message.kind !== 'featured' && message.kind !== 'replies') requested.push(message);
  }
  return copyAtOnce ? remoteMediaWorker(event) : { batchItemFailures: [] };
});
const runWorker = (messages: RemoteFileMessage[]) => remoteMediaWorker(sqsEvent('remoteMedia', messages));

// ---- the fake peer and its files ----

let server: RemoteServer;
let png: Buffer;
/** An ISO base media box. */
const box = (type: string, payload: Buffer) => Buffer.concat([Buffer.from([0, 0, (8 + payload.length) >> 8, (8 + payload.length) & 0xff]), Buffer.from(type, 'latin1'), payload]);
/** An MP4's structure (ftyp with brand isom, a moov, an mdat): sniffed as video/mp4. */
const mp4 = Buffer.concat([box('ftyp', Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2', 'latin1')])), box('moov', box('mvhd', Buffer.alloc(100))), box('mdat', Buffer.alloc(2000, 7))]);
const LIMIT = 50_000;

beforeAll(async () => {
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
});

beforeEach(async () => {
  server = await remoteServer();
  requested.length = 0;
  copyAtOnce = true;
  // The peer is on loopback: reachable on the local stage with FEDERATION_ALLOW_PRIVATE only (lib/federation/guard.ts).
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  process.env.MEDIA_SIZE_LIMIT = String(LIMIT);
  server.route('GET', '/files/photo.png', { headers: { 'content-type': 'image/png' }, body: png });
  server.route('GET', '/files/clip.mp4', { headers: { 'content-type': 'video/mp4' }, body: mp4 });
  server.route('GET', '/files/page.png', { headers: { 'content-type': 'image/png' }, body: '<html>not an image</html>' });
});

afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  delete process.env.MEDIA_SIZE_LIMIT;
  await server.close();
});

const fileRequests = (path: string) => server.received.filter((r) => r.path === path).length;

async function objectsUnder(prefix: string): Promise<string[]> {
  const out = await s3().send(new ListObjectsV2Command({ Bucket: process.env.MEDIA_BUCKET!, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

async function fetched(url: string): Promise<{ status: number; data: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, data: Buffer.from(await res.arrayBuffer()) };
}

/** SQS's SendMessage (JSON protocol) on loopback, recording each message and its delay: lib/queue's real `sqs` mode sends to it. */
async function fakeSqs() {
  const sent: { body: any; delaySeconds: number }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  const sqsServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { MessageBody: string; DelaySeconds?: number };
      if (req.headers['x-amz-target'] !== 'AmazonSQS.SendMessage') return res.writeHead(400).end();
      sent.push({ body: JSON.parse(input.MessageBody), delaySeconds: input.DelaySeconds ?? 0 });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify({ MessageId: randomUUID(), MD5OfMessageBody: md5(input.MessageBody) }));
    });
  });
  await new Promise<void>((r) => sqsServer.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
  process.env.AWS_ENDPOINT_URL_SQS = endpoint;
  return { sent, queueUrl: `${endpoint}/000000000000/remote-media`, close: () => new Promise<void>((r) => sqsServer.close(() => r())) };
}

// ---- remote statuses ----

type Doc = Record<string, unknown>;

async function anAuthor(): Promise<Account & { uri: string }> {
  const username = `a${randomUUID().slice(0, 8)}`;
  const { account } = await aRemoteAccount({ domain: server.host, username, uri: `${server.origin}/users/${username}`, keyless: true });
  return account as Account & { uri: string };
}

const image = (path: string, extra: Doc = {}): Doc => ({ type: 'Document', mediaType: 'image/png', url: `${server.origin}${path}`, name: 'a red square', ...extra });

/** Receives a public Note of `author` with these attachments and tags, as the inbox worker does; answers its status. */
async function receiveNote(author: Account & { uri: string }, opts: { attachment?: Doc[]; tag?: Doc[]; content?: string; summary?: string }) {
  const noteId = `${author.uri}/statuses/${randomUUID()}`;
  const note = {
    id: noteId,
    type: 'Note',
    attributedTo: author.uri,
    to: [AS_PUBLIC],
    cc: [`${author.uri}/followers`],
    content: opts.content ?? '<p>look</p>',
    ...(opts.summary ? { summary: opts.summary } : {}),
    published: new Date().toISOString(),
    attachment: opts.attachment ?? [],
    tag: opts.tag ?? [],
  };
  const activity = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${noteId}/activity`, type: 'Create', actor: author.uri, object: note };
  const processed = await processActivity({ activity, signer: author.uri, receivedAt: new Date().toISOString() });
  expect(processed).toBeTruthy();
  const id = await remoteStatusIdByUri(noteId);
  if (!id) throw new Error('the Note was not stored');
  return { noteId, status: (await statusById(id, true))!, activity };
}

const rendered = async (statusId: string) => {
  const res = await call(showStatus, { path: `/api/v1/statuses/${statusId}`, pathParameters: { id: statusId } });
  expect(res.status).toBe(200);
  return res.body as { media_attachments: Record<string, any>[]; emojis: unknown[]; account: { emojis: unknown[] } }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

const MEDIA_URL = () => process.env.MEDIA_URL!;

describe('a remote attachment', () => {
  it('is copied into the bucket, processed as an upload, and rendered from our media URL with remote_url its origin', async () => {
    const author = await anAuthor();
    const { status } = await receiveNote(author, { attachment: [image('/files/photo.png', { blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj' })] });
    const media = (await mediaById(status.mediaIds[0]!))!;
    expect(media.fileKey).toMatch(new RegExp(`^media_attachments/files/${padId(media.id)}/original/`));
    expect(media.previewKey).toMatch(new RegExp(`^media_attachments/files/${padId(media.id)}/small/`));

    const [attachment] = (await rendered(status.id)).media_attachments;
    expect(attachment).toMatchObject({
      type: 'image',
      url: `${MEDIA_URL()}/${media.fileKey}`,
      preview_url: `${MEDIA_URL()}/${media.previewKey}`,
      remote_url: `${server.origin}/files/photo.png`,
      description: 'a red square',
      meta: { original: { width: 64, height: 48 } },
    });
    // Our own blurhash, computed from the pixels, not the one the peer sent.
    expect(attachment!.blurhash).not.toBe('LEHV6nWB2yk8pyo0adR*.7kCMdnj');
    const copy = await fetched(attachment!.url);
    expect(copy.status).toBe(200);
    expect(await sharp(copy.data).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
    expect(fileRequests('/files/photo.png')).toBe(1);
  });

  it('is only requested on the inbox path: nothing is fetched until the worker runs, and a second run copies nothing again', async () => {
    copyAtOnce = false;
    const author = await anAuthor();
    const { status } = await receiveNote(author, { attachment: [image('/files/photo.png')] });
    expect(fileRequests('/files/photo.png')).toBe(0);
    expect(requested).toEqual([{ kind: 'attachment', mediaId: status.mediaIds[0], attempt: 1 }]);
    // Until copied, the file shows from its server.
    expect((await rendered(status.id)).media_attachments[0]).toMatchObject({ url: `${server.origin}/files/photo.png`, remote_url: `${server.origin}/files/photo.png` });

    await runWorker(requested);
    await runWorker(requested);
    expect(fileRequests('/files/photo.png')).toBe(1);
    expect(await objectsUnder(`media_attachments/files/${padId(status.mediaIds[0]!)}/`)).toHaveLength(2);
    expect((await rendered(status.id)).media_attachments[0]!.url).toBe(`${MEDIA_URL()}/${(await mediaById(status.mediaIds[0]!))!.fileKey}`);
  });

  it('is refused when larger than the media size limit, declared or streamed, and not retried; the same file under the limit is copied', async () => {
    const big = Buffer.concat([png, Buffer.alloc(LIMIT + 1 - png.length, 0)]);
    server.route('GET', '/files/declared.png', { headers: { 'content-type': 'image/png', 'content-length': String(big.length) }, body: big });
    server.route('GET', '/files/streamed.png', { headers: { 'content-type': 'image/png' }, body: big });
    const author = await anAuthor();
    const { status } = await receiveNote(author, { attachment: [image('/files/declared.png'), image('/files/streamed.png')] });
    for (const id of status.mediaIds) expect((await mediaById(id))!.fileKey).toBeNull();
    expect(requested.map((m) => m.attempt)).toEqual([1, 1]);
    for (const id of status.mediaIds) expect(await objectsUnder(`media_attachments/files/${padId(id)}/`)).toEqual([]);
    const shown = (await rendered(status.id)).media_attachments;
    expect(shown.map((a) => a.url)).toEqual([`${server.origin}/files/declared.png`, `${server.origin}/files/streamed.png`]);

    // Its good twin: with a limit the file fits under, the same file is copied.
    process.env.MEDIA_SIZE_LIMIT = String(big.length);
    const again = await receiveNote(author, { attachment: [image('/files/streamed.png')] });
    expect((await mediaById(again.status.mediaIds[0]!))!.fileKey).toMatch(/^media_attachments\//);
  });

  it('is refused, not retried, when its bytes lie about its type; the same bytes declared truthfully are copied', async () => {
    const author = await anAuthor();
    const lying = await receiveNote(author, {
      attachment: [image('/files/clip.mp4'), image('/files/page.png'), { type: 'Image', url: `${server.origin}/files/clip.mp4` }],
    });
    for (const id of lying.status.mediaIds) {
      expect((await mediaById(id))!.fileKey).toBeNull();
      expect(await objectsUnder(`media_attachments/files/${padId(id)}/`)).toEqual([]);
    }
    expect(requested.map((m) => m.attempt)).toEqual([1, 1, 1]);

    requested.length = 0;
    const truthful = await receiveNote(author, { attachment: [{ type: 'Document', mediaType: 'video/mp4', url: `${server.origin}/files/clip.mp4` }] });
    const media = (await mediaById(truthful.status.mediaIds[0]!))!;
    expect(media).toMatchObject({ type: 'video', contentType: 'video/mp4', fileSize: mp4.length, previewKey: null });
    const [attachment] = (await rendered(truthful.status.id)).media_attachments;
    expect(attachment).toMatchObject({ type: 'video', url: `${MEDIA_URL()}/${media.fileKey}`, preview_url: null, remote_url: `${server.origin}/files/clip.mp4` });
    expect((await fetched(attachment!.url)).data.equals(mp4)).toBe(true);
  });

  it('is refused, with nothing sent, no copy asked for and its URL not shown, when the guard refuses its address; the same file is copied where the guard allows it', async () => {
    const author = await anAuthor();
    // Outside the local stage, loopback is a private address: refused by its form, at receipt.
    process.env.STAGE = 'test';
    const refused = await receiveNote(author, { attachment: [image('/files/photo.png')] });
    expect(fileRequests('/files/photo.png')).toBe(0);
    expect(requested).toEqual([]);
    expect((await mediaById(refused.status.mediaIds[0]!))!).toMatchObject({ fileKey: null, remoteUrlRefused: true });
    expect((await rendered(refused.status.id)).media_attachments[0]).toMatchObject({ type: 'unknown', remote_url: null, preview_url: null });

    process.env.STAGE = 'local';
    const allowed = await receiveNote(author, { attachment: [image('/files/photo.png')] });
    expect(fileRequests('/files/photo.png')).toBe(1);
    expect((await mediaById(allowed.status.mediaIds[0]!))!.fileKey).toMatch(/^media_attachments\//);
  });

  it('follows a redirect only where the guard allows it: a hop to a link-local address is refused, one on the peer is followed', async () => {
    server.route('GET', '/files/to-metadata.png', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/a.png' } });
    server.route('GET', '/files/moved.png', { status: 301, headers: { location: '/files/photo.png' } });
    const author = await anAuthor();
    const { status } = await receiveNote(author, { attachment: [image('/files/to-metadata.png'), image('/files/moved.png')] });
    expect(requested.map((m) => m.attempt)).toEqual([1, 1]);
    expect((await mediaById(status.mediaIds[0]!))!.fileKey).toBeNull();
    expect((await mediaById(status.mediaIds[1]!))!.fileKey).toMatch(/^media_attachments\//);
    // A browser shown the first would follow the same hop: its URL is no longer shown.
    expect((await mediaById(status.mediaIds[0]!))!.remoteUrlRefused).toBe(true);
    expect((await rendered(status.id)).media_attachments.map((a) => a.remote_url)).toEqual([null, `${server.origin}/files/moved.png`]);
  });

  it('is tried again when its server fails, and copied once it answers', async () => {
    let calls = 0;
    server.route('GET', '/files/flaky.png', () => (++calls === 1 ? { status: 503, body: 'busy' } : { headers: { 'content-type': 'image/png' }, body: png }));
    const author = await anAuthor();
    const { status } = await receiveNote(author, { attachment: [image('/files/flaky.png')] });
    expect(requested).toEqual([
      { kind: 'attachment', mediaId: status.mediaIds[0], attempt: 1 },
      { kind: 'attachment', mediaId: status.mediaIds[0], attempt: 2 },
    ]);
    expect(calls).toBe(2);
    expect((await mediaById(status.mediaIds[0]!))!.fileKey).toMatch(/^media_attachments\//);
  });

  it('is given up after the last attempt when its server keeps failing, and not retried at all after a 404', async () => {
    server.route('GET', '/files/down.png', { status: 502, body: 'down' });
    server.route('GET', '/files/gone.png', { status: 404, body: 'gone' });
    const author = await anAuthor();
    const down = await receiveNote(author, { attachment: [image('/files/down.png')] });
    expect(requested.map((m) => m.attempt)).toEqual(Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1));
    expect(fileRequests('/files/down.png')).toBe(MAX_ATTEMPTS);
    expect((await rendered(down.status.id)).media_attachments[0]!.url).toBe(`${server.origin}/files/down.png`);

    requested.length = 0;
    await receiveNote(author, { attachment: [image('/files/gone.png')] });
    expect(requested.map((m) => m.attempt)).toEqual([1]);
    expect(fileRequests('/files/gone.png')).toBe(1);
  });

  it('is sent back through SQS with growing delays, and given up after the last attempt', async () => {
    server.route('GET', '/files/down.png', { status: 503, body: 'down' });
    copyAtOnce = false;
    const author = await anAuthor();
    const { status } = await receiveNote(author, { attachment: [image('/files/down.png')] });
    const sqs = await fakeSqs();
    process.env.QUEUE_MODE = 'sqs';
    process.env.QUEUE_URL_REMOTEMEDIA = sqs.queueUrl;
    try {
      let next: RemoteFileMessage | undefined = requested[0];
      while (next) {
        const before = sqs.sent.length;
        await runWorker([next]);
        next = sqs.sent.length > before ? (sqs.sent.at(-1)!.body as RemoteFileMessage) : undefined;
      }
    } finally {
      process.env.QUEUE_MODE = 'inline';
      delete process.env.QUEUE_URL_REMOTEMEDIA;
      await sqs.close();
    }
    expect(sqs.sent.map((m) => [m.body.attempt, m.delaySeconds])).toEqual([[2, 60], [3, 300], [4, 900]]);
    expect(sqs.sent.every((m) => m.body.mediaId === status.mediaIds[0])).toBe(true);
    expect(fileRequests('/files/down.png')).toBe(MAX_ATTEMPTS);
  });

  it('keeps nothing when its status was deleted before the copy was made', async () => {
    copyAtOnce = false;
    const author = await anAuthor();
    const { noteId, status } = await receiveNote(author, { attachment: [image('/files/photo.png')] });
    const toDelete = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${noteId}#delete`, type: 'Delete', actor: author.uri, object: { id: noteId, type: 'Tombstone' } };
    await processActivity({ activity: toDelete, signer: author.uri, receivedAt: new Date().toISOString() });
    expect(await mediaById(status.mediaIds[0]!)).toBeUndefined();

    await runWorker(requested);
    expect(fileRequests('/files/photo.png')).toBe(0);
    expect(await objectsUnder(`media_attachments/files/${padId(status.mediaIds[0]!)}/`)).toEqual([]);
    expect(await mediaById(status.mediaIds[0]!)).toBeUndefined();
  });
});

// ---- remote profiles ----

const renderedAccount = async (id: string) => {
  const res = await call(showAccount, { path: `/api/v1/accounts/${id}`, pathParameters: { id } });
  expect(res.status).toBe(200);
  return res.body as { avatar: string; avatar_static: string; header: string; emojis: unknown[] };
};

describe("a remote account's avatar and header", () => {
  it('are copied, cropped as uploads are, and rendered from our media URL', async () => {
    server.route('GET', '/files/header.png', { headers: { 'content-type': 'image/png' }, body: png });
    const actor = aRemoteActor(server.origin, `p${randomUUID().slice(0, 8)}`, {
      icon: { type: 'Image', mediaType: 'image/png', url: `${server.origin}/files/photo.png` },
      image: { type: 'Image', mediaType: 'image/png', url: `${server.origin}/files/header.png` },
    });
    const saved = (await saveActorDocument(actor.doc))!;
    const account = (await accountById(saved.id))!;
    expect(account.avatarKey).toMatch(new RegExp(`^accounts/avatars/${padId(account.id)}/`));
    expect(account.headerKey).toMatch(new RegExp(`^accounts/headers/${padId(account.id)}/`));
    const shown = await renderedAccount(account.id);
    expect(shown).toMatchObject({ avatar: `${MEDIA_URL()}/${account.avatarKey}`, avatar_static: `${MEDIA_URL()}/${account.avatarKey}`, header: `${MEDIA_URL()}/${account.headerKey}` });
    expect(await sharp((await fetched(shown.avatar)).data).metadata()).toMatchObject({ width: 400, height: 400 });
    expect(await sharp((await fetched(shown.header)).data).metadata()).toMatchObject({ width: 1500, height: 500 });
  });

  it('are copied again when the actor names a new one, the old copy removed; one that is not an image stays remote', async () => {
    server.route('GET', '/files/new.png', { headers: { 'content-type': 'image/png' }, body: png });
    const actor = aRemoteActor(server.origin, `p${randomUUID().slice(0, 8)}`, { icon: { type: 'Image', url: `${server.origin}/files/photo.png` } });
    const saved = (await saveActorDocument(actor.doc))!;
    const first = (await accountById(saved.id))!.avatarKey!;
    expect(first).toMatch(/^accounts\/avatars\//);

    await saveActorDocument({ ...actor.doc, icon: { type: 'Image', url: `${server.origin}/files/new.png` } });
    const second = (await accountById(saved.id))!.avatarKey!;
    expect(second).toMatch(/^accounts\/avatars\//);
    expect(second).not.toBe(first);
    expect(await objectsUnder(`accounts/avatars/${padId(saved.id)}/`)).toEqual([second]);

    // Not an image: refused, not retried, the actor's URL shown, the previous copy gone with its URL.
    requested.length = 0;
    await saveActorDocument({ ...actor.doc, icon: { type: 'Image', url: `${server.origin}/files/page.png` } });
    const third = (await accountById(saved.id))!;
    expect(third.avatarKey).toBeNull();
    expect(requested).toEqual([{ kind: 'profile', image: 'avatar', accountId: saved.id, url: `${server.origin}/files/page.png`, staleKey: second, attempt: 1 }]);
    expect((await renderedAccount(saved.id)).avatar).toBe(`${server.origin}/files/page.png`);
    expect(await objectsUnder(`accounts/avatars/${padId(saved.id)}/`)).toEqual([]);
  });

  it('keep nothing when the actor named another image before the copy was made', async () => {
    copyAtOnce = false;
    const actor = aRemoteActor(server.origin, `p${randomUUID().slice(0, 8)}`, { icon: { type: 'Image', url: `${server.origin}/files/photo.png` } });
    const saved = (await saveActorDocument(actor.doc))!;
    const late = [...requested];
    await saveActorDocument({ ...actor.doc, icon: { type: 'Image', url: `${server.origin}/files/page.png` } });
    await runWorker(late);
    expect(fileRequests('/files/photo.png')).toBe(0);
    expect((await accountById(saved.id))!.avatarKey).toBeNull();
    expect(await objectsUnder(`accounts/avatars/${padId(saved.id)}/`)).toEqual([]);
  });
});

// ---- custom emoji ----

const emojiTag = (name: string, url: unknown): Doc => ({ id: `https://x.example/emojis/${name}`, type: 'Emoji', name, icon: { type: 'Image', mediaType: 'image/png', url } });

describe('custom emoji of remote statuses and accounts', () => {
  it('keeps the valid Emoji tags the text uses, and renders them from their server', async () => {
    const author = await anAuthor();
    const { status } = await receiveNote(author, {
      content: '<p>hello :blobcat: and :blob_fox: and :unknown:</p>',
      summary: 'cw :wave:',
      tag: [
        emojiTag(':blobcat:', `${server.origin}/emoji/blobcat.png`),
        emojiTag(':wave:', `${server.origin}/emoji/wave.png`),
        emojiTag(':unused:', `${server.origin}/emoji/unused.png`),
        // A name that is no shortcode, an icon that is not http(s): refused.
        emojiTag(':blob fox:', `${server.origin}/emoji/fox.png`),
        emojiTag(':blob_fox:', 'javascript:alert(1)'),
      ],
    });
    const emojis = [
      { shortcode: 'wave', url: `${server.origin}/emoji/wave.png`, static_url: `${server.origin}/emoji/wave.png`, visible_in_picker: false },
      { shortcode: 'blobcat', url: `${server.origin}/emoji/blobcat.png`, static_url: `${server.origin}/emoji/blobcat.png`, visible_in_picker: false },
    ];
    expect((await rendered(status.id)).emojis).toEqual(emojis);
    expect(status.emojis).toEqual(emojis.map((e) => ({ shortcode: e.shortcode, url: e.url })));
  });

  it('keeps at most twenty per status', async () => {
    const author = await anAuthor();
    const codes = Array.from({ length: 25 }, (_, i) => `e${i}`);
    const { status } = await receiveNote(author, {
      content: `<p>${codes.map((c) => `:${c}:`).join(' ')}</p>`,
      tag: codes.map((c) => emojiTag(`:${c}:`, `${server.origin}/emoji/${c}.png`)),
    });
    expect(status.emojis!.map((e) => e.shortcode)).toEqual(codes.slice(0, 20));
  });

  it("keeps an actor's emoji used in its name, summary or fields, and renders them on the account and its statuses", async () => {
    const actor = aRemoteActor(server.origin, `p${randomUUID().slice(0, 8)}`, {
      name: 'Alice :party:',
      attachment: [{ type: 'PropertyValue', name: 'mood', value: ':sparkle:' }],
      tag: [emojiTag(':party:', `${server.origin}/emoji/party.png`), emojiTag(':sparkle:', `${server.origin}/emoji/sparkle.png`), emojiTag(':unused:', `${server.origin}/emoji/x.png`)],
    });
    const saved = (await saveActorDocument(actor.doc))!;
    const expected = [
      { shortcode: 'party', url: `${server.origin}/emoji/party.png`, static_url: `${server.origin}/emoji/party.png`, visible_in_picker: false },
      { shortcode: 'sparkle', url: `${server.origin}/emoji/sparkle.png`, static_url: `${server.origin}/emoji/sparkle.png`, visible_in_picker: false },
    ];
    expect((await renderedAccount(saved.id)).emojis).toEqual(expected);
    const { status } = await receiveNote(saved as Account & { uri: string }, {});
    expect((await rendered(status.id)).account.emojis).toEqual(expected);

    // An update without the tags drops them.
    await saveActorDocument({ ...actor.doc, tag: [] });
    expect((await renderedAccount(saved.id)).emojis).toEqual([]);
  });
});
