// The streaming API's WebSocket side: who may connect, which streams exist,
// which channels a stream listens to, and sending a frame to a connection.
// Stream names, their parameters and the error texts follow Mastodon's
// streaming server; the channel names follow its Redis channels.
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { isAwsError } from '../aws';
import { connectionRequest, connectionState } from '../aws/management';
import { config, requireStage } from '../config';
import type { Account } from '../db/accounts';
import {
  addStream,
  connectionById,
  deleteConnection,
  deleteSubscriptions,
  releaseSlot,
  removeStream,
  saveConnection,
  takenSlots,
  type Connection,
  type StreamBinding,
  type Withdrawn,
} from '../db/connections';
import { recentInstanceSettings } from '../db/instance';
import type { Token } from '../db/tokens';
import { accountDisabled, HttpError, outsideScopes, unauthorized } from '../errors';
import { assertFunctional, resolveToken } from '../http/auth';
import { guarded } from '../http/guard';
import { addressSubject } from '../http/ratelimit';
import { satisfies } from '../http/scopes';
import { isId } from '../ids';
import * as keys from '../db/keys';
import type { Key } from '../db/keys';
import { log, logInvocation } from '../log';
import { loadSecrets } from '../secrets';
import { viewerOf } from '../origin';

/** Streams Mastodon's streaming server knows (the spec names the first seven). */
export const STREAMS = [
  'user', 'public', 'public:local', 'hashtag', 'hashtag:local', 'list', 'direct',
  'user:notification', 'public:media', 'public:local:media', 'public:remote', 'public:remote:media',
] as const;
export type StreamName = (typeof STREAMS)[number];

/** Streams anyone may read (no scope needed, as in Mastodon). */
const PUBLIC_STREAMS: readonly StreamName[] = [
  'public', 'public:media', 'public:local', 'public:local:media', 'public:remote', 'public:remote:media', 'hashtag', 'hashtag:local',
];

/** Any one of these lets a token open a connection at all. */
export const CONNECT_SCOPES = ['read', 'read:statuses', 'read:notifications'];

export type StreamRequest = { stream: StreamName; tag?: string; list?: string };

/** Who is behind a connection. */
export type Principal = { accountId: string | null; scopes: string[] };

const isStreamName = (value: string): value is StreamName => (STREAMS as readonly string[]).includes(value);

/** Query values and message fields may arrive as arrays; Mastodon takes the first. */
const first = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);

/** Hashtags compare case-insensitively and without a leading '#'. */
export const normalizeTag = (tag: string): string => tag.normalize('NFKC').trim().replace(/^#/, '').toLowerCase();

const streamError = (status: number, message: string) => new HttpError(status, message);

/**
 * The stream's access was withdrawn (token revoked, login disabled): on a
 * message route its error frame goes out and the connection is then closed,
 * as Mastodon closes the streams of a revoked token.
 */
export class AccessWithdrawn extends HttpError {}

/** The answer to a stream whose access is gone, with the API's own texts. */
export const withdrawnError = (reason: Withdrawn): AccessWithdrawn => {
  const { status, message } = reason === 'disabled' ? accountDisabled() : unauthorized();
  return new AccessWithdrawn(status, message);
};

/** Validates `stream` (+ `tag` / `list`) the way Mastodon's streaming server does. */
export function parseStreamRequest(input: { stream?: unknown; tag?: unknown; list?: unknown }): StreamRequest {
  const stream = first(input.stream);
  if (typeof stream !== 'string' || !isStreamName(stream)) throw streamError(400, 'Unknown stream type');
  if (stream === 'hashtag' || stream === 'hashtag:local') {
    const tag = first(input.tag);
    if (typeof tag !== 'string' || normalizeTag(tag) === '') throw streamError(400, 'Missing tag name parameter');
    if (tag.length > 200) throw streamError(400, 'Invalid tag name parameter');
    return { stream, tag: tag.trim() };
  }
  if (stream === 'list') {
    const list = first(input.list);
    if (list === undefined || list === null || list === '') throw streamError(400, 'Missing list name parameter');
    if (typeof list !== 'string' && typeof list !== 'number') throw streamError(401, 'Not authorized to stream this list');
    if (!isId(String(list))) throw streamError(401, 'Not authorized to stream this list');
    return { stream, list: String(list) };
  }
  return { stream };
}

/** Mastodon's scope rule for a stream: public streams need none; the rest need a user with read (or the granular scope). */
export function authorizeStream(request: StreamRequest, who: Principal): void {
  if (PUBLIC_STREAMS.includes(request.stream)) return;
  const needed = request.stream === 'user:notification' ? ['read:notifications'] : ['read:statuses'];
  if (!who.accountId || !satisfies(who.scopes, needed)) throw streamError(401, 'Access token does not have the required scopes');
}

/** The key a stream is stored under on the connection (tags normalized, so "Cats" and "cats" are one stream). */
export const streamKey = (r: StreamRequest): string =>
  r.tag !== undefined ? `${r.stream}|${normalizeTag(r.tag)}` : r.list !== undefined ? `${r.stream}|${r.list}` : r.stream;

export function parseStreamKey(key: string): StreamRequest | undefined {
  const i = key.indexOf('|');
  const name = i < 0 ? key : key.slice(0, i);
  const param = i < 0 ? undefined : key.slice(i + 1);
  if (!isStreamName(name)) return undefined;
  if (name === 'hashtag' || name === 'hashtag:local') return param ? { stream: name, tag: param } : undefined;
  if (name === 'list') return param ? { stream: name, list: param } : undefined;
  return { stream: name };
}

/**
 * The channels a stream listens to. The user stream carries notifications only
 * for tokens that may read them, as in Mastodon. List channels are scoped by
 * the subscriber, so events of a list (published under its owner's channel)
 * never reach another account that guessed its id.
 */
export function channelsFor(r: StreamRequest, who: Principal): string[] {
  const me = who.accountId ?? '';
  switch (r.stream) {
    case 'user':
      return satisfies(who.scopes, ['read:notifications']) ? [channels.home(me), channels.notifications(me)] : [channels.home(me)];
    case 'user:notification':
      return [channels.notifications(me)];
    case 'direct':
      return [channels.direct(me)];
    case 'list':
      return [channels.list(me, r.list ?? '')];
    case 'hashtag':
      return [channels.hashtag(r.tag ?? '')];
    case 'hashtag:local':
      return [channels.hashtagLocal(r.tag ?? '')];
    default:
      return [channels.public(r.stream)];
  }
}

/** Channel names, as Mastodon's Redis channels; publishers (lib/streaming/publish.ts) and subscribers build them here. */
export const channels = {
  /** The home timeline of an account (the `user` stream). */
  home: (accountId: string) => `timeline:${accountId}`,
  notifications: (accountId: string) => `timeline:${accountId}:notifications`,
  direct: (accountId: string) => `timeline:direct:${accountId}`,
  /** Scoped by the owner, so another account guessing a list id hears nothing. */
  list: (ownerId: string, listId: string) => `timeline:list:${ownerId}:${listId}`,
  hashtag: (tag: string) => `timeline:hashtag:${normalizeTag(tag)}`,
  hashtagLocal: (tag: string) => `timeline:hashtag:${normalizeTag(tag)}:local`,
  /** `public`, `public:local`, `public:media`, `public:local:media`, `public:remote`, `public:remote:media`. */
  public: (stream: string) => `timeline:${stream}`,
};

/** The `stream` array of a message, as Mastodon frames it: ["hashtag", "<tag>"], ["list", "<id>"] or ["<name>"]. */
export const streamFrame = (r: StreamRequest): string[] =>
  r.tag !== undefined ? [r.stream, r.tag] : r.list !== undefined ? [r.stream, r.list] : [r.stream];

export const bindingFor = (r: StreamRequest, who: Principal): StreamBinding => ({
  stream: streamKey(r),
  frame: streamFrame(r),
  channels: channelsFor(r, who),
});

export type ConnectRequest = {
  connectionId: string;
  /** The access token from the query string, the Sec-WebSocket-Protocol header or the Authorization header. */
  token: string | undefined;
  /** Query parameters: `stream`, `tag`, `list`. */
  query: Record<string, unknown>;
  /** The client's address as API Gateway saw it (requestContext.identity.sourceIp). */
  sourceIp?: string;
};

/**
 * Open WebSocket connections allowed at once from one address (IPv6: its /64), whatever their token:
 * room for a household's or an office's devices and tabs behind one NAT. Mastodon's streaming server
 * has no such limit of its own (it leaves it to the proxy in front); API Gateway has no proxy of ours.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 50;
/** Open WebSocket connections of one access token at once: a client multiplexes its streams over one. */
export const MAX_CONNECTIONS_PER_TOKEN = 16;
/**
 * A limit as RATE_LIMIT_FACTOR scales every limit: the local stack reports every socket as 127.0.0.1, so
 * benchmarks that open hundreds of listeners raise it as they raise the request budgets.
 */
const scaled = (limit: number) => Math.max(1, Math.round(limit * config.rateLimitFactor));
/** GetConnection calls in flight while taking back the slots of connections that left without a $disconnect. */
const RECLAIM_CONCURRENCY = 8;
/** Another connection took the free slot this one read: read again, a few times. */
const SLOT_ATTEMPTS = 3;

/** A connection over a limit is refused at the handshake, with its HTTP status (a $connect cannot send a close code). */
const tooManyConnections = (of: 'address' | 'token') =>
  streamError(429, of === 'address' ? 'Too many streaming connections from this address' : 'Too many streaming connections for this access token');

/**
 * A free slot of an address or token, or undefined when every slot is held by an open connection.
 * When they are all taken, each holder is asked of API Gateway (GetConnection); the slots of those that
 * are gone (their $disconnect was lost) are freed, so a lost $disconnect can hold a slot only until the
 * slots run out. A holder API Gateway does not answer for is counted as open.
 */
async function freeSlot(scope: 'addr' | 'token', subject: string, max: number): Promise<Key | undefined> {
  const taken = await takenSlots(scope, subject);
  const free = (held: Set<number>) => Array.from({ length: max }, (_, i) => i).find((i) => !held.has(i));
  const first = free(new Set(taken.map((t) => t.slot)));
  if (first !== undefined) return keys.streamSlot(scope, subject, first);
  const reclaimed: number[] = [];
  const endpoint = managementEndpoint();
  for (let i = 0; i < taken.length; i += RECLAIM_CONCURRENCY) {
    await Promise.all(
      taken.slice(i, i + RECLAIM_CONCURRENCY).map(async (t) => {
        const state = await connectionState(endpoint, t.connectionId).catch((err: unknown) => {
          log.warn('streaming: could not ask whether a connection is open', { err, connectionId: t.connectionId });
          return 'open' as const;
        });
        if (state !== 'gone') return;
        if (await releaseSlot(t.key, t.connectionId)) reclaimed.push(t.slot);
        // Its items go too (the $disconnect that would have removed them was lost).
        await closeConnection(t.connectionId);
      }),
    );
  }
  if (reclaimed.length > 0) log.info('streaming: slots of closed connections taken back', { scope, count: reclaimed.length });
  const after = reclaimed.length > 0 ? Math.min(...reclaimed) : undefined;
  return after === undefined ? undefined : keys.streamSlot(scope, subject, after);
}

/** The slots a new connection takes: its address's and, with a token, its token's; refused when one is full. */
async function connectionSlots(sourceIp: string | undefined, tokenId: string | null): Promise<Key[]> {
  const [address, token] = await Promise.all([
    freeSlot('addr', addressSubject(sourceIp ?? ''), scaled(MAX_CONNECTIONS_PER_ADDRESS)),
    tokenId ? freeSlot('token', tokenId, scaled(MAX_CONNECTIONS_PER_TOKEN)) : undefined,
  ]);
  if (!address) throw tooManyConnections('address');
  if (tokenId && !token) throw tooManyConnections('token');
  return token ? [address, token] : [address];
}

/**
 * Accepts or refuses a new connection ($connect). A token, when sent, must be
 * valid (401), able to read (403) and belong to a functional login (403).
 * Without one, only public streams may be read, and only while the instance
 * shows its public timelines to visitors (public preview).
 */
export async function openConnection(req: ConnectRequest): Promise<Connection> {
  let auth: { token: Token; account: Account | undefined } | undefined;
  if (req.token !== undefined) {
    auth = await resolveToken(req.token);
    if (!auth) throw unauthorized();
    if (!satisfies(auth.token.scopes, CONNECT_SCOPES)) throw outsideScopes();
    if (auth.account) assertFunctional(auth.account);
  }
  const who = await streamPrincipal(auth);
  let initial: StreamBinding | undefined;
  // An empty `stream` is no stream, as in Mastodon (it subscribes only when one is named).
  if (req.query.stream !== undefined && req.query.stream !== '') {
    const request = parseStreamRequest(req.query);
    authorizeStream(request, who);
    initial = bindingFor(request, who);
  }
  const input = { connectionId: req.connectionId, accountId: who.accountId, tokenId: who.tokenId, tokenHash: auth?.token.tokenHash ?? null, scopes: who.scopes };
  for (let attempt = 1; ; attempt++) {
    const saved = await saveConnection(input, initial, await connectionSlots(req.sourceIp, who.tokenId));
    if (saved.ok) return saved.connection;
    // Revoked or disabled between the token check above and the write: refused as if it had come first.
    if ('withdrawn' in saved) throw withdrawnError(saved.withdrawn);
    // Connections racing for the last free slots: the losers find them taken when they read again.
    if (attempt >= SLOT_ATTEMPTS) throw tooManyConnections('address');
  }
}

/**
 * Who reads a stream, once the token (if any) passed its checks: its account
 * and scopes, or a visitor, who may read only while the instance shows its
 * public timelines to visitors (public preview). Shared by WebSocket and SSE.
 */
export async function streamPrincipal(auth: { token: Token; account: Account | undefined } | undefined): Promise<Principal & { tokenId: string | null }> {
  if (auth) return { accountId: auth.account?.id ?? null, scopes: auth.token.scopes, tokenId: auth.token.id };
  if (!(await recentInstanceSettings()).publicPreview) throw unauthorized('Missing access token');
  return { accountId: null, scopes: [], tokenId: null };
}

/** Forgets a closed connection and every subscription it held ($disconnect). */
export async function closeConnection(connectionId: string): Promise<void> {
  const conn = await deleteConnection(connectionId);
  if (!conn) return;
  await Promise.all(conn.slots.map((slot) => releaseSlot(slot, connectionId)));
  const bindings = conn.streams.flatMap((key) => {
    const request = parseStreamKey(key);
    return request ? [bindingFor(request, conn)] : [];
  });
  await deleteSubscriptions(connectionId, bindings, conn.accountId, conn.tokenId);
}

/**
 * Closes a connection from our side (its access was withdrawn): API Gateway's
 * DeleteConnection, then its items, without waiting for $disconnect (which finds
 * them gone). A failure to reach the Management API still removes the items, so
 * the connection receives nothing more; it is reported to the caller.
 */
export async function endConnection(connectionId: string): Promise<void> {
  let failure: unknown;
  try {
    await connectionRequest(managementEndpoint(), connectionId);
  } catch (err) {
    // Gone already (the client left): nothing to close.
    if (!(isAwsError(err, 'GoneException') || httpStatusOf(err) === 410)) failure = err;
  }
  await closeConnection(connectionId);
  if (failure) throw failure;
}

export type ClientMessage = { type: 'subscribe' | 'unsubscribe'; stream?: unknown; tag?: unknown; list?: unknown };

const clientFrame = z.object({ type: z.unknown(), stream: z.unknown(), tag: z.unknown(), list: z.unknown() });

/** Parses a frame a client sent; malformed frames answer 400 with the reason. */
export function parseClientMessage(body: string | undefined | null): ClientMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    throw streamError(400, 'Malformed message: expected a JSON object');
  }
  const frame = clientFrame.safeParse(parsed);
  if (!frame.success) throw streamError(400, 'Malformed message: expected a JSON object');
  const { type, stream, tag, list } = frame.data;
  if (type !== 'subscribe' && type !== 'unsubscribe') throw streamError(400, 'Unknown message type: expected subscribe or unsubscribe');
  return { type, stream, tag, list };
}

/** Subscribes or unsubscribes a connection ($default route). */
export async function handleClientMessage(connectionId: string, message: ClientMessage): Promise<void> {
  const conn = await connectionById(connectionId);
  if (!conn) throw streamError(410, 'Connection is gone');
  const request = parseStreamRequest(message);
  const binding = bindingFor(request, conn);
  if (message.type === 'unsubscribe') {
    if (conn.streams.includes(binding.stream)) await removeStream(conn, binding);
    return;
  }
  authorizeStream(request, conn);
  if (conn.streams.includes(binding.stream)) return;
  // The transaction checks the token and login still hold (no extra read): a revoked token subscribes to nothing.
  const added = await addStream(conn, binding);
  if (added === 'full') throw streamError(429, `Too many subscriptions on this connection`);
  if (added !== 'added') throw withdrawnError(added);
}

/**
 * The API Gateway Management API of the WebSocket API: its own setting in AWS (a custom domain
 * in STREAMING_URL does not serve it), else derived from `config.streamingUrl` (serverless
 * offline serves the same routes on its WebSocket port).
 */
export const managementEndpoint = (): string =>
  config.streamingManagementUrl || config.streamingUrl.replace(/^ws(s?):\/\//i, 'http$1://');

const httpStatusOf = (err: unknown): unknown =>
  typeof err === 'object' && err !== null && '$metadata' in err && typeof err.$metadata === 'object' && err.$metadata !== null && 'httpStatusCode' in err.$metadata
    ? err.$metadata.httpStatusCode
    : undefined;

/** Sends one frame to a connection; answers false when the connection is gone. */
export async function sendFrame(connectionId: string, frame: unknown): Promise<boolean> {
  try {
    await connectionRequest(managementEndpoint(), connectionId, Buffer.from(JSON.stringify(frame)));
    return true;
  } catch (err) {
    if (isAwsError(err, 'GoneException') || httpStatusOf(err) === 410) return false;
    throw err;
  }
}

// ---- Lambda side: WebSocket events (not HTTP API events) and their answers ----

/** What API Gateway (and serverless-offline) hands a WebSocket route's Lambda. */
export type WebSocketEvent = {
  requestContext: { connectionId: string; routeKey: string; eventType?: string; requestId?: string; identity?: { sourceIp?: string | null } };
  headers?: Record<string, string | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
};

export type WebSocketResult = { statusCode: number; headers?: Record<string, string>; body?: string };

const lowerHeaders = (event: WebSocketEvent): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
};

/**
 * The token of a connection request, where Mastodon's streaming server looks:
 * the Authorization header, the `access_token` query parameter, then the
 * Sec-WebSocket-Protocol header (browsers cannot set headers on a WebSocket).
 * A requested subprotocol must be echoed, or the browser drops the handshake.
 */
export function connectRequestOf(event: WebSocketEvent): ConnectRequest & { protocol?: string } {
  const headers = lowerHeaders(event);
  const query: Record<string, unknown> = { ...(event.queryStringParameters ?? {}) };
  const protocol = headers['sec-websocket-protocol']?.split(',')[0]?.trim() || undefined;
  const bearer = headers.authorization !== undefined ? (/^Bearer\s+(\S+)\s*$/i.exec(headers.authorization)?.[1] ?? '') : undefined;
  const param = typeof query.access_token === 'string' ? query.access_token : undefined;
  delete query.access_token;
  // The viewer's address as the stage's one origin says, when the handshake came through it (lib/origin.ts).
  const sourceIp = viewerOf(event.headers, event.requestContext.identity?.sourceIp).ip || undefined;
  return { connectionId: event.requestContext.connectionId, token: bearer ?? param ?? protocol, query, protocol, sourceIp };
}

/**
 * Wraps a WebSocket route. On $connect a failure refuses the handshake with its
 * status; on message routes the connection stays open and the failure is sent
 * back as Mastodon's error frame `{"error": ..., "status": ...}` through the
 * Management API (a route response would also send an empty frame on success).
 */
export function websocket(run: (event: WebSocketEvent) => Promise<WebSocketResult>, opts: { errors: 'status' | 'frame' }) {
  // Built when a route's module loads: without STAGE the function refuses to start.
  requireStage();
  return async (event: WebSocketEvent, context?: Context): Promise<WebSocketResult> => {
    logInvocation(context);
    try {
      // An error escaping `run` by any path fails this message only (lib/http/guard.ts).
      // The secrets first: without them the route fails (500) before it reads or writes anything.
      return await guarded(async () => {
        await loadSecrets();
        return run(event);
      });
    } catch (err) {
      const known = err instanceof HttpError;
      if (!known) log.error('websocket route failed', { err, route: event.requestContext?.routeKey });
      const status = known ? err.status : 500;
      const error = known ? err.message : 'Internal server error';
      const connectionId = event.requestContext?.connectionId;
      if (opts.errors === 'frame' && connectionId) {
        await sendFrame(connectionId, { error, status }).catch((sendErr: unknown) =>
          log.warn('could not send error frame', { err: sendErr, connectionId }),
        );
        if (err instanceof AccessWithdrawn) {
          await endConnection(connectionId).catch((endErr: unknown) => log.warn('could not close a withdrawn connection', { err: endErr, connectionId }));
        }
      }
      return { statusCode: status, body: JSON.stringify({ error }) };
    }
  };
}
