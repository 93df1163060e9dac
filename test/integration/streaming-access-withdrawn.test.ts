// Access ends when it is withdrawn (lib/streaming/withdraw.ts): revoking a token
// through POST /oauth/revoke, disabling a login and deleting an app (operator
// commands) end every open stream of the tokens concerned. WebSocket
// connections are opened and spoken to through the real $connect and $default
// handlers; a small HTTP server stands in for the API Gateway Management API,
// recording the frames posted to each connection and the connections it was
// told to close (DeleteConnection). Server-sent-event streams run through the
// real SSE handler as Lambda runs a streamed handler behind a function URL.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FunctionUrlResponse, installAwslambda, invokeStreamed, lambdaContext } from '../../infra/local/lambda-stream';
import { handler as message } from '../../functions/streaming/message';
import { handler as revoke } from '../../functions/oauth/revoke';
import { handler as tokenEndpoint } from '../../functions/oauth/token';
import { handler as verify } from '../../functions/accounts/verify_credentials';
import { main } from '../../lib/admin/cli';
import { deleteAppCommand, setDisabled } from '../../lib/admin/commands';
import { updateAccount } from '../../lib/db/accounts';
import { appByClientId, type App } from '../../lib/db/apps';
import { connectionById, MAX_STREAMS_PER_CONNECTION, onlineListeners, saveConnection, subscribersOf } from '../../lib/db/connections';
import { revokeToken, tokenByHash } from '../../lib/db/tokens';
import { sha256 } from '../../lib/crypto';
import { bindingFor, channels } from '../../lib/streaming/connections';
import { openSseSession, serveSse } from '../../lib/streaming/sse';
import { fanOut } from '../../lib/timelines/fanout';
import { issueAccessToken } from '../../lib/tokens';
import { call } from '../support/http';
import { aFollow, anApp, anAppToken, anAuthorizationCode, aPostedStatus, aUser } from '../support/factories';
import { arrival } from '../support/arrival';
import { connectThroughHandler, useManagementApi } from '../support/management-api';

installAwslambda();
type Handler = Parameters<typeof invokeStreamed>[0];
let sse: Handler;
beforeAll(async () => {
  // streamHttp looks for the runtime's globals when the handler module loads.
  ({ handler: sse } = await import('../../functions/streaming/sse'));
});

// ---- a stand-in for the Management API: frames posted, connections closed ----

type Frame = { stream?: string[]; event?: string; payload?: string; error?: string; status?: number };
const frames: { connectionId: string; frame: Frame }[] = [];
const open = new Set<string>();
const closed: string[] = [];
useManagementApi((req, res) => {
  const connectionId = req.connectionId ?? '';
  // API Gateway answers 410 Gone for a connection that is not open.
  if (!open.has(connectionId)) return res.writeHead(410, { 'Content-Type': 'application/json' }).end('{"message":"Gone"}');
  if (req.method === 'POST') {
    frames.push({ connectionId, frame: JSON.parse(req.body.toString('utf8')) as Frame });
    return res.writeHead(200).end();
  }
  if (req.method === 'DELETE') {
    open.delete(connectionId);
    closed.push(connectionId);
    return res.writeHead(204).end();
  }
  res.writeHead(404).end();
});

const framesOf = (connectionId: string) => frames.filter((f) => f.connectionId === connectionId).map((f) => f.frame);

/** Opens a connection through the real $connect handler. */
async function listen(token: string, query: Record<string, string>): Promise<string> {
  const connectionId = await connectThroughHandler(token, query);
  open.add(connectionId);
  return connectionId;
}

const send = (connectionId: string, body: unknown) =>
  message({ requestContext: { connectionId, routeKey: '$default', eventType: 'MESSAGE', requestId: randomUUID() }, body: JSON.stringify(body), isBase64Encoded: false });

/** A GET to the SSE function as a function URL hands it over; the response is read as it streams. */
function openSse(path: string, token: string) {
  const headers: Record<string, string> = { host: 'streaming.social.example', authorization: `Bearer ${token}` };
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'test',
      domainName: 'streaming.social.example',
      domainPrefix: 'streaming',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
  let status = 0;
  let text = '';
  let ended = false;
  const decoder = new TextDecoder();
  const sink = new FunctionUrlResponse({
    head: (h) => (status = h.statusCode),
    body: (chunk) => (text += decoder.decode(chunk, { stream: true })),
    end: () => (ended = true),
  });
  const invocation = invokeStreamed(sse, event, lambdaContext({ functionName: 'streamingEvents', timeoutMs: 900_000 }), sink);
  return {
    status: () => status,
    text: () => text,
    ended: () => ended,
    started: () => arrival(() => text.startsWith(':)\n'), `${path} to start`),
    close: async () => {
      invocation.abort();
      await invocation.settled;
    },
  };
}

/** A user whose token comes from an app whose secret we hold (to revoke it as its client). */
async function aUserWithClient() {
  const user = await aUser();
  const { app, clientSecret } = await anApp();
  const { raw } = await issueAccessToken(app, user.account.id, ['read', 'write', 'follow', 'push']);
  return { ...user, app, clientSecret, token: raw, otherToken: user.token };
}

const revokeAsClient = (app: App, clientSecret: string, token: string) =>
  call(revoke, { method: 'POST', path: '/oauth/revoke', form: { client_id: app.clientId, client_secret: clientSecret, token } });

const listenersOf = async (accountId: string) => ((await onlineListeners()).get(accountId) ?? []).map((l) => l.listenerId);
const subscribed = async (channel: string) => (await subscribersOf(channel)).map((s) => s.connectionId);

describe('revoking a token (POST /oauth/revoke)', () => {
  it('closes its WebSocket connections through the Management API and forgets their subscriptions, leaving other tokens\' streams open', async () => {
    const [reader, author] = await Promise.all([aUserWithClient(), aUser()]);
    await aFollow(reader.account, author.account);
    const home = await listen(reader.token, { stream: 'user' });
    const pub = await listen(reader.token, { stream: 'public' });
    const kept = await listen(reader.otherToken, { stream: 'user' });
    await send(pub, { type: 'subscribe', stream: 'direct' });

    const res = await revokeAsClient(reader.app, reader.clientSecret, reader.token);
    expect(res.status).toBe(200);

    expect(closed).toEqual(expect.arrayContaining([home, pub]));
    expect(closed).not.toContain(kept);
    for (const conn of [home, pub]) expect(await connectionById(conn)).toBeUndefined();
    expect(await connectionById(kept)).toBeDefined();
    const homeSubs = await subscribed(channels.home(reader.account.id));
    expect(homeSubs).toContain(kept);
    expect(homeSubs).not.toContain(home);
    expect(await subscribed(channels.public('public'))).not.toContain(pub);
    expect(await subscribed(channels.direct(reader.account.id))).not.toContain(pub);
    expect(await listenersOf(reader.account.id)).toEqual([kept]);

    // A status from a followed account reaches only the stream whose token still holds.
    const status = await aPostedStatus(author.account, { visibility: 'public' });
    await fanOut(status.id);
    expect(framesOf(kept).filter((f) => f.event === 'update')).toHaveLength(1);
    expect(framesOf(home)).toEqual([]);
    expect(framesOf(pub)).toEqual([]);
  });

  it('ends its server-sent-event response, which writes nothing more, and forgets its registration', async () => {
    const [reader, author] = await Promise.all([aUserWithClient(), aUser()]);
    await aFollow(reader.account, author.account);
    const user = openSse('/api/v1/streaming/user', reader.token);
    const kept = openSse('/api/v1/streaming/user', reader.otherToken);
    try {
      await Promise.all([user.started(), kept.started()]);
      expect(await listenersOf(reader.account.id)).toHaveLength(2);

      expect((await revokeAsClient(reader.app, reader.clientSecret, reader.token)).status).toBe(200);
      // The response ends by itself (the handler returns), without the client leaving.
      await arrival(() => user.ended(), 'the revoked token\'s response to end');
      expect(user.text()).toBe(':)\n');
      expect(kept.ended()).toBe(false);
      expect(await listenersOf(reader.account.id)).toHaveLength(1);
      expect(await subscribed(channels.home(reader.account.id))).toHaveLength(1);

      const status = await aPostedStatus(author.account, { visibility: 'public' });
      await fanOut(status.id);
      await arrival(() => kept.text().includes(`"id":"${status.id}"`), 'the status on the other token\'s stream');
      expect(user.text()).toBe(':)\n');
    } finally {
      await Promise.all([user.close(), kept.close()]);
    }
  });

  it('refuses a subscribe on a connection whose token is gone with Mastodon\'s error frame, and closes it', async () => {
    const reader = await aUserWithClient();
    const conn = await listen(reader.token, { stream: 'public' });
    // Revoked without the streams being ended (as if that step had failed): the subscribe itself checks.
    const token = (await tokenByHash(sha256(reader.token)))!;
    expect(await revokeToken(token, token.clientId)).toBe(true);

    const res = await send(conn, { type: 'subscribe', stream: 'direct' });
    expect(res.statusCode).toBe(401);
    expect(framesOf(conn)).toEqual([{ error: 'The access token is invalid', status: 401 }]);
    expect(closed).toContain(conn);
    expect(await connectionById(conn)).toBeUndefined();
    expect(await subscribed(channels.direct(reader.account.id))).not.toContain(conn);
    expect(await subscribed(channels.public('public'))).not.toContain(conn);
    expect(await listenersOf(reader.account.id)).toEqual([]);
  });

  it('refuses a stream whose opening write lands after the revocation (the check is in the same transaction)', async () => {
    const reader = await aUserWithClient();
    const token = (await tokenByHash(sha256(reader.token)))!;
    expect(await revokeToken(token, token.clientId)).toBe(true);
    const connectionId = `${randomUUID().slice(0, 8)}=`;
    const saved = await saveConnection({ connectionId, accountId: reader.account.id, tokenId: token.id, tokenHash: token.tokenHash, scopes: token.scopes });
    expect(saved).toEqual({ ok: false, withdrawn: 'revoked' });
    expect(await connectionById(connectionId)).toBeUndefined();

    const principal = { accountId: reader.account.id, scopes: token.scopes };
    const session = openSseSession({ stream: 'user' }, principal, { tokenId: token.id, tokenHash: token.tokenHash, accountId: reader.account.id });
    const never = { write: async () => true, signal: new AbortController().signal };
    await expect(serveSse(session, reader.account, never)).rejects.toMatchObject({ status: 401, message: 'The access token is invalid' });
    expect(await subscribed(channels.home(reader.account.id))).toEqual([]);
  });
});

describe('replaying an authorization code (RFC 6749 section 4.1.2)', () => {
  it('revokes the token its first exchange issued and closes that token\'s streams', async () => {
    const user = await aUser();
    const { app, clientSecret } = await anApp();
    const code = await anAuthorizationCode({ app, accountId: user.account.id, scopes: ['read', 'write'] });
    const form = { grant_type: 'authorization_code', client_id: app.clientId, client_secret: clientSecret, code, redirect_uri: app.redirectUris[0]! };
    const first = await call(tokenEndpoint, { method: 'POST', path: '/oauth/token', form });
    expect(first.status).toBe(200);
    const issued: string = first.body.access_token;
    const stream = await listen(issued, { stream: 'user' });
    const kept = await listen(user.token, { stream: 'user' });

    const replay = await call(tokenEndpoint, { method: 'POST', path: '/oauth/token', form });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');

    expect(await tokenByHash(sha256(issued))).toBeUndefined();
    expect((await call(verify, { path: '/api/v1/accounts/verify_credentials', token: issued })).status).toBe(401);
    expect(closed).toContain(stream);
    expect(closed).not.toContain(kept);
    expect(await connectionById(stream)).toBeUndefined();
    expect((await call(verify, { path: '/api/v1/accounts/verify_credentials', token: user.token })).status).toBe(200);
  });
});

describe('a stream whose access holds', () => {
  it('of an app token, when it holds the most streams allowed, is told so and stays open', async () => {
    const { token } = await anAppToken(['read']);
    const conn = await listen(token, {});
    for (let i = 0; i < MAX_STREAMS_PER_CONNECTION; i++) expect((await send(conn, { type: 'subscribe', stream: 'hashtag', tag: `full${i}` })).statusCode).toBe(200);
    const res = await send(conn, { type: 'subscribe', stream: 'hashtag', tag: 'onemore' });
    expect(res.statusCode).toBe(429);
    expect(framesOf(conn)).toEqual([{ error: 'Too many subscriptions on this connection', status: 429 }]);
    expect(closed).not.toContain(conn);
    expect(await connectionById(conn)).toBeDefined();
  });
});

describe('disabling a login (accounts disable)', () => {
  it('closes the WebSocket connections and ends the SSE responses of every token of the account', async () => {
    const reader = await aUserWithClient();
    const first = await listen(reader.token, { stream: 'user' });
    const second = await listen(reader.otherToken, { stream: 'public' });
    const stream = openSse('/api/v1/streaming/user', reader.token);
    try {
      await stream.started();
      const output = await setDisabled(reader.account.username, true);
      expect(output).toBe(`Disabled the login of ${reader.account.username}.\nEnded 3 open streams (2 WebSocket, 1 server-sent events).`);
      expect(closed).toEqual(expect.arrayContaining([first, second]));
      await arrival(() => stream.ended(), 'the SSE response to end');
      expect(await listenersOf(reader.account.id)).toEqual([]);
      expect(await subscribed(channels.home(reader.account.id))).toEqual([]);
    } finally {
      await stream.close();
    }
  });

  it('refuses a subscribe on a connection of a disabled login with its 403 frame, and closes it', async () => {
    const reader = await aUserWithClient();
    const conn = await listen(reader.token, { stream: 'public' });
    // Disabled behind the command's back: the subscribe itself checks.
    await updateAccount(reader.account.id, { disabled: true });
    const res = await send(conn, { type: 'subscribe', stream: 'user' });
    expect(res.statusCode).toBe(403);
    expect(framesOf(conn)).toEqual([{ error: 'Your login is currently disabled', status: 403 }]);
    expect(closed).toContain(conn);
    expect(await subscribed(channels.home(reader.account.id))).toEqual([]);
  });
});

describe('deleting an app (apps delete)', () => {
  it('deletes the app and every token it issued, and ends their streams', async () => {
    const { account } = await aUser();
    const { app } = await anApp({ client_name: 'Doomed client' });
    const { raw: userToken } = await issueAccessToken(app, account.id, ['read']);
    const { raw: appToken } = await issueAccessToken(app, null, ['read']);
    const conn = await listen(userToken, { stream: 'user' });
    const pub = openSse('/api/v1/streaming/public', appToken);
    try {
      await pub.started();
      const output = await deleteAppCommand(app.clientId);
      expect(output).toBe(`Deleted the application Doomed client (${app.clientId}) and its 2 access tokens.\nEnded 2 open streams (1 WebSocket, 1 server-sent events).`);
      expect(await appByClientId(app.clientId)).toBeUndefined();
      expect(closed).toContain(conn);
      await arrival(() => pub.ended(), 'the app token\'s SSE response to end');
      expect(await tokenByHash(sha256(userToken))).toBeUndefined();
      expect(await tokenByHash(sha256(appToken))).toBeUndefined();
      expect((await call(verify, { path: '/api/v1/accounts/verify_credentials', token: userToken })).status).toBe(401);
      await expect(deleteAppCommand(app.clientId)).rejects.toThrow(`No application with client_id ${app.clientId}`);
    } finally {
      await pub.close();
    }
  });

  it('is the operator command `apps delete <client_id>`', async () => {
    const { app } = await anApp({ client_name: 'Retired client' });
    const printed: string[] = [];
    // The line naming the stage and table before each command (lib/admin/cli.ts) is admin-cli.test.ts's business.
    const io = { out: (t: string) => printed.push(t), err: (t: string) => void (t.startsWith('Stage test, table ') || printed.push(`error: ${t}`)) };
    expect(await main(['apps', 'delete', app.clientId], io)).toBe(0);
    expect(printed).toEqual([`Deleted the application Retired client (${app.clientId}) and its 0 access tokens.`]);
    expect(await main(['apps', 'delete'], io)).toBe(1);
    expect(printed[1]).toMatch(/^error: Missing the client_id/);
    expect(await main(['apps', 'delete', app.clientId], io)).toBe(1);
    expect(printed[2]).toBe(`error: No application with client_id ${app.clientId}`);
  });
});
