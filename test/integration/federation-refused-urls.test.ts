// Remote URLs the outbound address guard refuses are never handed to clients. A Note's attachments, an actor's
// avatar and header and custom emoji arrive through a signed POST to the inbox endpoint, run through the real
// inbox and remoteMedia workers, and are read back as a client reads them: what points at a link-local,
// loopback or private address (written as one, or a name that resolves to one, found when the copy is fetched)
// appears in no `url`, `preview_url`, `remote_url`, avatar, header or emoji, and nothing is requested from it.
// Outside the local stage (STAGE=test here) loopback is such an address; on the local stage with
// FEDERATION_ALLOW_PRIVATE the same file is copied and shown, so the refusal is the guard's.
import type { SQSEvent } from 'aws-lambda';
import sharp from 'sharp';
import { handler as inboxEndpoint } from '../../functions/activitypub/inbox';
import { handler as showAccount } from '../../functions/accounts/show';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as inboxWorker } from '../../functions/workers/inbox';
import { handler as remoteMediaWorker } from '../../functions/workers/remote_media';
import { mediaByIds } from '../../lib/db/media';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById } from '../../lib/db/statuses';
import { signRequest, type Signer } from '../../lib/federation/signatures';
import { useResolver } from '../../lib/net';
import { registerInlineWorker } from '../../lib/queue';
import { MISSING_FILE_PATH } from '../../lib/render/attachment';
import { MISSING_AVATAR_PATH, MISSING_HEADER_PATH } from '../../lib/render/account';
import { activity, aNote, type Doc } from '../support/activities';
import { aRemoteAccount } from '../support/factories';
import { call } from '../support/http';
import { remoteServer, type RemoteServer } from '../support/remote-server';

const ignore = async () => ({ batchItemFailures: [] });
for (const queue of ['fanout', 'notify', 'deliver', 'cards', 'push'] as const) registerInlineWorker(queue, ignore);
registerInlineWorker('inbox', (event: SQSEvent) => inboxWorker(event));
registerInlineWorker('remoteMedia', (event: SQSEvent) => remoteMediaWorker(event));

let server: RemoteServer;
let png: Buffer;
/** A name of the peer's that resolves to loopback: refused only when the copy is fetched, inside the lookup. */
const INSIDE_NAME = 'files.remote.example';

beforeAll(async () => {
  png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 10, g: 200, b: 10 } } }).png().toBuffer();
});

beforeEach(async () => {
  server = await remoteServer();
  server.route('GET', '/files/photo.png', { headers: { 'content-type': 'image/png' }, body: png });
  useResolver(async (host) => (host === INSIDE_NAME ? ['127.0.0.1'] : []));
});

afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  useResolver(undefined);
  await server.close();
});

const port = () => new URL(server.origin).port;
const METADATA = 'http://169.254.169.254/latest/meta-data/iam/x.png';
const LOOPBACK = () => `${server.origin}/files/photo.png`;
const INSIDE = () => `https://${INSIDE_NAME}:${port()}/files/photo.png`;
const LOCALHOST = () => `http://localhost:${port()}/files/photo.png`;

/** The peer's POST of `body` to our shared inbox, signed with its actor's key, as the inbox endpoint receives it. */
async function deliver(body: Doc, signer: Signer) {
  const text = JSON.stringify(body);
  const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body: text }, signer);
  const res = await call(inboxEndpoint, { method: 'POST', path: '/inbox', headers, body: { data: text, contentType: 'application/activity+json' } });
  expect(res.status).toBe(202);
}

const image = (url: string): Doc => ({ type: 'Document', mediaType: 'image/png', url, name: 'a green square' });

async function renderedStatus(id: string) {
  const res = await call(showStatus, { path: `/api/v1/statuses/${id}`, pathParameters: { id } });
  expect(res.status).toBe(200);
  return res.body as { media_attachments: Record<string, unknown>[]; emojis: { url: string }[] };
}

async function receivedNote(attachment: Doc[], extra: Doc = {}) {
  const { account, signer } = await aRemoteAccount();
  const note = aNote({ uri: account.uri!, followersUrl: account.followersUrl! }, { attachment, ...extra });
  await deliver(activity({ uri: account.uri! }, 'Create', note), signer);
  const id = await remoteStatusIdByUri(note.id);
  if (!id) throw new Error('the Note was not stored');
  return (await statusById(id, true))!;
}

describe('a remote attachment whose URL the address guard refuses', () => {
  it('is shown as missing, with no URL of its own anywhere, and nothing is fetched from it', async () => {
    const status = await receivedNote([image(METADATA), image(LOOPBACK()), image(INSIDE()), image(LOCALHOST())]);
    const shown = (await renderedStatus(status.id)).media_attachments;
    expect(shown).toHaveLength(4);
    const missing = `https://social.example${MISSING_FILE_PATH}`;
    for (const a of shown) {
      expect(a).toMatchObject({ type: 'unknown', url: missing, preview_url: null, remote_url: null, text_url: missing, description: 'a green square' });
    }
    const text = JSON.stringify(shown);
    for (const refused of ['169.254.169.254', '127.0.0.1', INSIDE_NAME, 'localhost']) expect(text).not.toContain(refused);
    // The literal addresses were never asked for; the name was refused inside its lookup, before connecting.
    expect(server.received).toEqual([]);
    const stored = [...(await mediaByIds(status.mediaIds)).values()];
    expect(stored.map((m) => [m.remoteUrlRefused, m.fileKey])).toEqual([[true, null], [true, null], [true, null], [true, null]]);
  });

  it('is copied and shown, as any other, where the guard allows the address (the local stage, FEDERATION_ALLOW_PRIVATE)', async () => {
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    const status = await receivedNote([image(LOOPBACK())]);
    const [shown] = (await renderedStatus(status.id)).media_attachments;
    expect(shown).toMatchObject({ type: 'image', remote_url: LOOPBACK() });
    expect(String(shown!.url).startsWith(process.env.MEDIA_URL!)).toBe(true);
    expect(server.received.map((r) => r.path)).toEqual(['/files/photo.png']);
  });

  it('is not shown in an emoji tag of the Note', async () => {
    const status = await receivedNote([], {
      content: '<p>:inside: :good:</p>',
      tag: [
        { type: 'Emoji', name: ':inside:', icon: { type: 'Image', url: 'http://10.0.0.7/emoji/inside.png' } },
        { type: 'Emoji', name: ':good:', icon: { type: 'Image', url: 'https://remote.example/emoji/good.png' } },
      ],
    });
    expect((await renderedStatus(status.id)).emojis.map((e) => e.url)).toEqual(['https://remote.example/emoji/good.png']);
  });
});

describe("a remote actor's avatar and header whose URLs the address guard refuses", () => {
  it('are shown as the default images, and nothing is fetched from them', async () => {
    const { account, signer } = await aRemoteAccount();
    const person = {
      id: account.uri!,
      type: 'Person',
      preferredUsername: account.username,
      inbox: account.inboxUrl,
      followers: account.followersUrl,
      publicKey: { id: signer.keyId, owner: account.uri, publicKeyPem: account.publicKeyPem },
      icon: { type: 'Image', mediaType: 'image/png', url: METADATA },
      image: { type: 'Image', mediaType: 'image/png', url: INSIDE() },
    };
    await deliver(activity({ uri: account.uri! }, 'Update', person), signer);
    const res = await call(showAccount, { path: `/api/v1/accounts/${account.id}`, pathParameters: { id: account.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      avatar: `https://social.example${MISSING_AVATAR_PATH}`,
      avatar_static: `https://social.example${MISSING_AVATAR_PATH}`,
      header: `https://social.example${MISSING_HEADER_PATH}`,
      header_static: `https://social.example${MISSING_HEADER_PATH}`,
    });
    expect(server.received).toEqual([]);
  });
});
