// What the stage's one origin says about the viewer (lib/origin.ts), believed only beside its secret: the
// address rate limits and IP rules count, the Host a peer's signature covers, and the server-sent-event
// function URLs, which answer nothing that did not come through the distribution.
import type { SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { handler as inbox } from '../../functions/activitypub/inbox';
import { instanceSigner } from '../../lib/federation/keys';
import { signRequest } from '../../lib/federation/signatures';
import { http } from '../../lib/http';
import { newId } from '../../lib/ids';
import { viewerOf } from '../../lib/origin';
import { registerInlineWorker } from '../../lib/queue';
import { connectRequestOf, type WebSocketEvent } from '../../lib/streaming/connections';
import { call } from '../support/http';
import { aRemoteActor, remoteServer, type RemoteServer } from '../support/remote-server';

const SECRET = 'the-origin-secret-of-this-test';
const THROUGH = { 'x-tootless-origin': SECRET, 'x-tootless-viewer-ip': '192.0.2.44', 'x-tootless-viewer-host': 'social.example' };

const echo = http(async (_input, ctx) => ({ ip: ctx.ip, host: ctx.headers.host ?? null }), { auth: 'public', schema: z.object({}).passthrough() });
const streamOnly = http(async () => ({ ok: true }), { auth: 'public', originOnly: true });

const queued: unknown[] = [];
registerInlineWorker('inbox', async (event: SQSEvent) => {
  for (const record of event.Records) queued.push(JSON.parse(record.body));
  return { batchItemFailures: [] };
});

let server: RemoteServer | undefined;
beforeAll(() => instanceSigner());
beforeEach(() => {
  process.env.ORIGIN_SECRET = SECRET;
});
afterEach(async () => {
  delete process.env.ORIGIN_SECRET;
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  await server?.close();
  server = undefined;
});

describe('viewerOf', () => {
  it('takes the viewer\'s address and host from the origin, beside its secret only', () => {
    expect(viewerOf({ ...THROUGH, host: 'abc.execute-api.us-east-1.amazonaws.com' }, '130.176.1.1')).toEqual({ ip: '192.0.2.44', host: 'social.example' });
    const forged = { ...THROUGH, 'x-tootless-origin': 'a guess', host: 'abc.execute-api.us-east-1.amazonaws.com' };
    expect(viewerOf(forged, '198.51.100.3')).toEqual({ ip: '198.51.100.3', host: 'abc.execute-api.us-east-1.amazonaws.com' });
    const { 'x-tootless-origin': _secret, ...withoutSecret } = THROUGH;
    expect(viewerOf(withoutSecret, '198.51.100.3').ip).toBe('198.51.100.3');
    // A secret of another length, and header names in any case.
    expect(viewerOf({ 'X-Tootless-Origin': `${SECRET}x`, 'X-Tootless-Viewer-Ip': '192.0.2.44' }, '198.51.100.3').ip).toBe('198.51.100.3');
    expect(viewerOf({ 'X-Tootless-Origin': SECRET, 'X-Tootless-Viewer-Ip': '192.0.2.44' }, '198.51.100.3').ip).toBe('192.0.2.44');
  });

  it('believes nothing where no secret is configured', () => {
    delete process.env.ORIGIN_SECRET;
    expect(viewerOf(THROUGH, '198.51.100.3')).toEqual({ ip: '198.51.100.3', host: undefined });
  });
});

describe('http()', () => {
  it('gives the handler the viewer the origin names, and the connection\'s own otherwise', async () => {
    const through = await call(echo, { method: 'GET', path: '/echo', headers: { ...THROUGH, host: 'abc.execute-api.us-east-1.amazonaws.com' }, sourceIp: '130.176.1.1' });
    expect(through.body).toEqual({ ip: '192.0.2.44', host: 'social.example' });
    const direct = await call(echo, { method: 'GET', path: '/echo', headers: { ...THROUGH, 'x-tootless-origin': 'nope', host: 'abc.execute-api.us-east-1.amazonaws.com' }, sourceIp: '198.51.100.3' });
    expect(direct.body).toEqual({ ip: '198.51.100.3', host: 'abc.execute-api.us-east-1.amazonaws.com' });
  });

  it('refuses a request to a server-sent-event function that did not come through the origin', async () => {
    const direct = await call(streamOnly, { method: 'GET', path: '/api/v1/streaming/public', sourceIp: '198.51.100.3' });
    expect(direct.status).toBe(403);
    expect(direct.body).toEqual({ error: "This is served through the instance's own URL only" });
    const forged = await call(streamOnly, { method: 'GET', path: '/api/v1/streaming/public', headers: { ...THROUGH, 'x-tootless-origin': 'nope' } });
    expect(forged.status).toBe(403);
    const through = await call(streamOnly, { method: 'GET', path: '/api/v1/streaming/public', headers: THROUGH });
    expect(through.status).toBe(200);
  });
});

describe('a WebSocket handshake', () => {
  const handshake = (headers: Record<string, string>): WebSocketEvent =>
    ({ headers, queryStringParameters: { stream: 'public' }, requestContext: { connectionId: 'c1=', routeKey: '$connect', identity: { sourceIp: '130.176.1.1' } } }) as unknown as WebSocketEvent;

  it('counts the viewer\'s address the origin names, and the connection\'s own beside a forged one', () => {
    expect(connectRequestOf(handshake(THROUGH)).sourceIp).toBe('192.0.2.44');
    expect(connectRequestOf(handshake({ ...THROUGH, 'x-tootless-origin': 'a guess' })).sourceIp).toBe('130.176.1.1');
    expect(connectRequestOf(handshake({ 'x-tootless-viewer-ip': '192.0.2.44' })).sourceIp).toBe('130.176.1.1');
  });
});

describe('a peer\'s signed POST through the distribution', () => {
  it('verifies against the host the peer signed for, which the origin passes on; replayed straight to the API it is refused', async () => {
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    server = await remoteServer();
    const actor = aRemoteActor(server.origin, 'kiri');
    server.serve(actor.doc);
    const body = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${actor.doc.id}#follows/${newId()}`,
      type: 'Follow',
      actor: actor.doc.id,
      object: 'https://social.example/users/nobody',
    });
    const signed = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body }, actor);
    // API Gateway sees its own name as Host; the distribution's headers carry the one the peer signed.
    const asReceived = { ...signed, host: 'abc.execute-api.us-east-1.amazonaws.com' };
    const post = (headers: Record<string, string>) =>
      call(inbox, { method: 'POST', path: '/inbox', headers, body: { data: body, contentType: 'application/activity+json' }, sourceIp: '130.176.1.1' });
    expect((await post({ ...asReceived, ...THROUGH })).status).toBe(202);
    expect(queued).toHaveLength(1);
    const replayed = await post({ ...asReceived, 'x-tootless-viewer-host': 'social.example', 'x-tootless-origin': 'a guess' });
    expect(replayed.status).toBe(401);
    expect(queued).toHaveLength(1);
  });
});
