// The SDK clients, one per service and container, built on first use (a function that never sends to a service
// never builds its client) and built again only when what they were built for changes: the endpoint, the region or
// the credentials in the environment (tests and the local stack set them). Every client has explicit timeouts (a
// stalled connection fails the attempt, which the standard retry mode then retries) and the standard retry mode.
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { config } from '../config';

/** Connecting to AWS (or an emulator) takes well under this on a working network. */
export const CONNECTION_TIMEOUT_MS = 1_000;
/** A DynamoDB, SQS, SSM or Management API call answers in milliseconds; past this the attempt is given up and retried. */
export const REQUEST_TIMEOUT_MS = 5_000;
/** S3 moves media (up to 40 MB on an upload): more time per attempt. */
export const S3_REQUEST_TIMEOUT_MS = 30_000;

export type Credentials = AwsCredentialIdentity;
export type CredentialsProvider = AwsCredentialIdentityProvider;

/** Where credentials come from when not from the environment (the operator CLI: profiles, SSO). */
let provider: CredentialsProvider | undefined;

/** The operator CLI run from a laptop: `setCredentialsProvider(fromNodeProviderChain())`. Functions keep the environment's. */
export function setCredentialsProvider(next: CredentialsProvider | undefined): void {
  provider = next;
  built.clear();
}

const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
};

let timeouts = { request: REQUEST_TIMEOUT_MS, s3: S3_REQUEST_TIMEOUT_MS };
/** Tests: shorter time limits, so that a server that never answers costs little (undefined restores them). */
export function useRequestTimeout(ms: number | undefined): void {
  timeouts = { request: ms ?? REQUEST_TIMEOUT_MS, s3: ms ?? S3_REQUEST_TIMEOUT_MS };
  built.clear();
}

/** The settings every client shares: region, credentials, timeouts, retries. */
export function baseSettings(opts: { endpoint?: string; s3?: boolean } = {}) {
  return {
    region: config.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    // The environment's credentials (Lambda puts them there; so do the local stack and the tests).
    credentials: provider ?? fromEnv(),
    retryMode: 'standard' as const,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: opts.s3 ? timeouts.s3 : timeouts.request,
      // Without it the handler only warns when the limit passes, and the request waits on.
      throwOnRequestTimeout: true,
      httpAgent: agents.http,
      httpsAgent: agents.https,
    }),
  };
}

const built = new Map<string, unknown>();

/**
 * The client `name` for `endpoint`, built by `make` the first time it is asked for with these settings. The key
 * holds what a client cannot change once built: the endpoint, the region and the environment's key id.
 */
export function clientFor<T>(name: string, endpoint: string | undefined, make: () => T): T {
  const key = `${name}|${endpoint ?? ''}|${config.region}|${provider ? 'provider' : (process.env.AWS_ACCESS_KEY_ID ?? '')}`;
  let client = built.get(key) as T | undefined;
  if (!client) {
    client = make();
    built.set(key, client);
  }
  return client;
}
