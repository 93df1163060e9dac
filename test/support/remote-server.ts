// Another fediverse server on loopback, for the federation tests: it answers the
// routes a test gives it (WebFinger, actor documents, inboxes, redirects...),
// records every request with its raw body, and lets a test wait for the nth one.
// Its actors have real RSA key pairs, so what they sign verifies.
import { generateKeyPairSync } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer };
export type Reply = { status?: number; headers?: Record<string, string>; body?: string | Buffer | object; hang?: boolean };
export type Route = (req: Received) => Reply | Promise<Reply>;

export type RemoteServer = {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`: the domain its accounts have here. */
  host: string;
  received: Received[];
  /** Answers `METHOD path` (path with its query, or without it to match any query). */
  route: (method: string, path: string, route: Route | Reply) => void;
  /** Serves `doc` as application/activity+json at its id's path. */
  serve: (doc: Record<string, unknown> & { id: string }) => void;
  /** Resolves with the nth request (1-based) once it has arrived. */
  request: (nth: number, timeoutMs?: number) => Promise<Received>;
  close: () => Promise<void>;
};

export async function remoteServer(): Promise<RemoteServer> {
  const routes = new Map<string, Route>();
  const received: Received[] = [];
  const waiters: { nth: number; resolve: (r: Received) => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      for (const w of waiters.filter((w) => w.nth === received.length)) w.resolve(request);
      const route = routes.get(`${request.method} ${request.path}`) ?? routes.get(`${request.method} ${request.path.replace(/\?.*$/, '')}`);
      const reply: Reply = route ? await route(request) : { status: 404, body: { error: 'Not found' } };
      if (reply.hang) return;
      const json = reply.body !== undefined && typeof reply.body === 'object' && !Buffer.isBuffer(reply.body);
      const body = json ? JSON.stringify(reply.body) : (reply.body as string | Buffer | undefined);
      res.writeHead(reply.status ?? 200, { ...(json ? { 'content-type': 'application/activity+json' } : {}), ...reply.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const route = (method: string, path: string, r: Route | Reply) => routes.set(`${method} ${path}`, typeof r === 'function' ? r : () => r);
  return {
    origin,
    host: `127.0.0.1:${port}`,
    received,
    route,
    serve: (doc) => route('GET', new URL(doc.id).pathname, { body: doc }),
    request: (nth, timeoutMs = 10_000) =>
      received[nth - 1]
        ? Promise.resolve(received[nth - 1]!)
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`request ${nth} did not arrive within ${timeoutMs} ms`)), timeoutMs);
            waiters.push({ nth, resolve: (r) => (clearTimeout(timer), resolve(r)) });
          }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type RemoteActor = { doc: Record<string, unknown> & { id: string }; keyId: string; privateKeyPem: string; publicKeyPem: string };

const pairs: { publicKeyPem: string; privateKeyPem: string }[] = [];
/** An RSA-2048 pair; a few are made once per test file and handed out in turn, as generating one takes a while. */
export function rsaPair(index = 0): { publicKeyPem: string; privateKeyPem: string } {
  while (pairs.length <= index) {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    pairs.push({
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
  }
  return pairs[index]!;
}

/** A Person on `origin` as Mastodon serves one (`/users/<name>`, `#main-key`, a shared inbox). */
export function aRemoteActor(origin: string, username: string, overrides: Record<string, unknown> = {}, keyIndex = 0): RemoteActor {
  const id = `${origin}/users/${username}`;
  const keyId = `${id}#main-key`;
  const { publicKeyPem, privateKeyPem } = rsaPair(keyIndex);
  const doc = {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id,
    type: 'Person',
    preferredUsername: username,
    name: `${username} remote`,
    summary: `<p>I am ${username}</p>`,
    url: `${origin}/@${username}`,
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    followers: `${id}/followers`,
    following: `${id}/following`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    manuallyApprovesFollowers: false,
    discoverable: true,
    published: '2024-01-02T03:04:05Z',
    icon: { type: 'Image', mediaType: 'image/png', url: `${origin}/avatars/${username}.png` },
    publicKey: { id: keyId, owner: id, publicKeyPem },
    ...overrides,
  } as Record<string, unknown> & { id: string };
  return { doc, keyId, privateKeyPem, publicKeyPem };
}

/** WebFinger on `server` for these usernames, each pointing at its actor id; 404 for anyone else. */
export function serveWebfinger(server: RemoteServer, actors: Record<string, string>): void {
  server.route('GET', '/.well-known/webfinger', (req) => {
    const resource = new URL(req.path, server.origin).searchParams.get('resource') ?? '';
    const match = /^acct:([^@]+)@(.+)$/.exec(resource);
    const actorId = match && match[2] === server.host ? actors[match[1]!] : undefined;
    if (!actorId) return { status: 404, body: '' };
    return {
      headers: { 'content-type': 'application/jrd+json' },
      body: JSON.stringify({
        subject: resource,
        aliases: [actorId],
        links: [
          { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: actorId },
          { rel: 'self', type: 'application/activity+json', href: actorId },
        ],
      }),
    };
  });
}

/** Node's request headers as verifyRequest takes them (one string per name). */
export const headersOf = (req: Received): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
