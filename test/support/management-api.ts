// A stand-in for API Gateway's Management API (where lib/streaming/connections posts
// WebSocket frames and closes connections), on a free loopback port, for the
// in-process streaming tests. Each test file answers its requests its own way:
// recording frames, answering 410 Gone for closed connections, holding requests.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** API Gateway's limit on postToConnection's data (a WebSocket message): 128 KiB. */
export const MAX_POST_BYTES = 128 * 1024;

export type ManagementRequest = {
  method: string;
  url: string;
  /** The `{id}` of `/@connections/{id}`, decoded; undefined for any other path. */
  connectionId: string | undefined;
  body: Buffer;
};

/**
 * Starts the stand-in before the current file's (or `describe` block's) tests and points
 * STREAMING_URL at it, as the local stack does (the Management API is derived from it);
 * closes it and restores STREAMING_URL after them. `answer` is called once a request's body
 * is in, and may answer later. Returns a getter of the stand-in's HTTP base URL.
 */
export function useManagementApi(answer: (req: ManagementRequest, res: ServerResponse) => void): () => string {
  let server: Server | undefined;
  let previousStreamingUrl: string | undefined;
  beforeAll(async () => {
    previousStreamingUrl = process.env.STREAMING_URL;
    const started = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = /^\/@connections\/([^/]+)$/.exec(req.url ?? '')?.[1];
        const body = Buffer.concat(chunks);
        // As API Gateway: postToConnection data over 128 KiB is refused (PayloadTooLargeException), never delivered.
        if (req.method === 'POST' && body.length > MAX_POST_BYTES) {
          res.writeHead(413, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'PayloadTooLargeException' }).end('{"message":"Message too long"}');
          return;
        }
        answer({ method: req.method ?? '', url: req.url ?? '', connectionId: id ? decodeURIComponent(id) : undefined, body }, res);
      });
    });
    await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', () => resolve()));
    server = started;
    process.env.STREAMING_URL = `ws://127.0.0.1:${(started.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    if (previousStreamingUrl === undefined) delete process.env.STREAMING_URL;
    else process.env.STREAMING_URL = previousStreamingUrl;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  return () => {
    if (!server) throw new Error('the Management API stand-in is not running (useManagementApi outside a describe block?)');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}

/**
 * Opens a WebSocket connection through the real $connect handler (with the user's token
 * when given, and the stream query, from `sourceIp`) and answers its connection id; throws when refused.
 */
export async function connectThroughHandler(token: string | undefined, query: Record<string, string>, sourceIp?: string): Promise<string> {
  const [{ randomUUID, randomInt }, { handler: connect }] = await Promise.all([import('node:crypto'), import('../../functions/streaming/connect')]);
  // Each its own address unless one is given: the per-address limit is streaming-limits.test.ts's concern.
  sourceIp ??= `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`;
  const connectionId = `${randomUUID().replace(/-/g, '').slice(0, 14)}=`;
  const res = await connect({
    requestContext: { connectionId, routeKey: '$connect', eventType: 'CONNECT', requestId: randomUUID(), identity: { sourceIp } },
    headers: { Host: 'social.example' },
    queryStringParameters: token ? { access_token: token, ...query } : query,
    isBase64Encoded: false,
  });
  if (res.statusCode !== 200) throw new Error(`connect refused: ${res.statusCode} ${res.body}`);
  return connectionId;
}
