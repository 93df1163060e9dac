// Two stacks of ours that talk to each other over HTTP, each on its own loopback
// address and port 80 under an /etc/hosts name, as two servers on the internet
// would be. test/e2e/federation.test.ts runs alpha.test and beta.test; the
// interactions suite (test/e2e/federation-interactions.test.ts) runs gamma.test
// and delta.test so that both suites may run at once. `FED_PAIR` names another
// pair (`127.0.0.20=h20.test,127.0.0.21=h21.test`), for running one area alone
// beside another run.
import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { mastodon } from 'masto';
import { LOCAL_CREDENTIALS } from '../../../infra/local/bootstrap';
import { eventually, type MastoUser } from '../../support/masto';
import { startStack, type Stack, type StackOptions } from '../../support/stack';

export type Server = { host: string; port: number; publicHost: string };

/**
 * How long one hop between the servers may take: a delivery, then the inbox worker, each a cold Lambda at first;
 * and, when the receiver's first fetch of the sender's key outlasted its limit on a loaded machine, the retry its
 * 401 asks for (Retry-After: the key gate's minute, lib/federation/key_gate.ts), held by the queue as SQS holds it.
 */
export const HOP_MS = 90_000;
/** A step's own timeout: a few hops. */
export const STEP_MS = 200_000;

/** The pair `FED_PAIR` names, else `fallback`. */
export function pairFromEnv(fallback: [Server, Server]): [Server, Server] {
  const named = process.env.FED_PAIR;
  if (!named) return fallback;
  const servers = named.split(',').map((entry): Server => {
    const [host, publicHost] = entry.split('=');
    if (!host || !publicHost) throw new Error(`FED_PAIR: expected address=name,address=name, got ${named}`);
    return { host, port: 80, publicHost };
  });
  if (servers.length !== 2) throw new Error(`FED_PAIR names ${servers.length} servers, not 2`);
  return [servers[0]!, servers[1]!];
}

export const stackOptions = (server: Server, env: Record<string, string> = {}): StackOptions => ({
  ...server,
  timeoutMs: 200_000,
  env: {
    // Outbound fetches and deliveries to 127.0.0.x, on the local stage only.
    FEDERATION_ALLOW_PRIVATE: '1',
    // Both servers, and this test, reach each other from loopback: one address for every caller.
    RATE_LIMIT_FACTOR: '20',
    ...env,
  },
});

/** Fails, naming the /etc/hosts lines, when the servers' names do not lead to their addresses. */
export async function checkNames(servers: Server[]): Promise<void> {
  const missing: string[] = [];
  for (const server of servers) {
    const found = await lookup(server.publicHost, { family: 4 }).then((r) => r.address, () => 'nothing');
    if (found !== server.host) missing.push(`${server.host} ${server.publicHost}   (resolves to ${found})`);
  }
  if (missing.length > 0) {
    throw new Error(`the federation suites need these lines in /etc/hosts (.ci/run adds them):\n${missing.join('\n')}`);
  }
}

/** Starts both stacks at once; if either fails, stops the other and says which. */
export async function startBoth(servers: [Server, Server], env: Record<string, string> = {}): Promise<[Stack, Stack]> {
  await checkNames(servers);
  const started = await Promise.allSettled(servers.map((s) => startStack(stackOptions(s, env))));
  const [first, second] = started;
  if (first?.status === 'fulfilled' && second?.status === 'fulfilled') return [first.value, second.value];
  await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
  const why = started.map((r, i) => (r.status === 'rejected' ? `${servers[i]!.publicHost}: ${String(r.reason)}` : ''));
  throw new Error(`a stack did not start:\n${why.filter(Boolean).join('\n')}`);
}

/** A value an earlier step made; its absence means that step failed, which this step says. */
export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`needs ${what}, which an earlier step did not produce`);
  return value;
}

/** `user@domain` of a user of `stack`, as the other server names them. */
export const acctOn = (user: MastoUser, stack: Stack): string => `${user.me.username}@${stack.domain}`;

/** The account `acct` (`user@domain`) as `viewer`'s server knows it, resolved (WebFinger, actor fetch) on first search. */
export async function resolveAccount(viewer: MastoUser, acct: string): Promise<mastodon.v1.Account> {
  return eventually(
    async () => (await viewer.client.v2.search.list({ q: `@${acct}`, type: 'accounts', resolve: true })).accounts.find((a) => a.acct === acct),
    `${acct} resolved`,
    HOP_MS,
  );
}

/** The status whose ActivityPub id is `uri`, as `viewer`'s server knows it (resolved by search: it fetches unknown ones). */
export async function resolveStatus(viewer: MastoUser, uri: string): Promise<mastodon.v1.Status> {
  return eventually(
    async () => (await viewer.client.v2.search.list({ q: uri, type: 'statuses', resolve: true })).statuses.find((s) => s.uri === uri),
    `${uri} resolved`,
    HOP_MS,
  );
}

/** `follower` follows `target` (on another server) and waits until the follow is accepted. */
export async function followAcross(follower: MastoUser, target: mastodon.v1.Account): Promise<void> {
  await follower.client.v1.accounts.$select(target.id).follow();
  await eventually(
    async () => (await follower.client.v1.accounts.relationships.fetch({ id: [target.id] }))[0]?.following,
    `${follower.me.username} follows ${target.acct}`,
    HOP_MS,
  );
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

/**
 * `npm run admin -- <args>` against `stack`'s table, as its operator runs it; answers what it printed.
 * `media` for commands that store files (the stack's bucket, and its public media URL).
 */
export async function adminOn(stack: Stack, args: string[], opts: { media?: boolean } = {}): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'lib/admin/cli.ts', ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      STAGE: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: stack.dynamo.endpoint,
      TABLE_NAME: stack.dynamo.tableName,
      ...(opts.media ? { AWS_ENDPOINT_URL_S3: stack.s3.endpoint, MEDIA_BUCKET: stack.s3.bucket, MEDIA_URL: stack.s3.mediaUrl } : {}),
      BASE_URL: stack.baseUrl,
      LOCAL_DOMAIN: stack.domain,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    },
    timeout: 120_000,
  });
  return stdout;
}
