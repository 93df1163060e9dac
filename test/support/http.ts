// Builds real API Gateway HTTP API (payload v2) events and calls handlers with them.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export type Call = {
  method?: string;
  path?: string;
  pathParameters?: Record<string, string>;
  /** Raw query string, or an object encoded with URLSearchParams (arrays as key[]). */
  query?: string | Record<string, string | string[]>;
  json?: unknown;
  form?: Record<string, string | string[]>;
  /** A body sent as it is, with its content type. */
  body?: { data: string | Buffer; contentType: string };
  token?: string;
  headers?: Record<string, string>;
  cookies?: string[];
  /** The client's address as API Gateway reports it (rate limits count by it). */
  sourceIp?: string;
};

export type Answer = {
  status: number;
  headers: Record<string, string>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  cookies: string[];
};

const encodeQuery = (q: Call['query']): string => {
  if (q === undefined) return '';
  if (typeof q === 'string') return q;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (Array.isArray(v)) v.forEach((one) => params.append(`${k}[]`, one));
    else params.append(k, v);
  }
  return params.toString();
};

export function buildEvent(call: Call): APIGatewayProxyEventV2 {
  const method = call.method ?? 'GET';
  const path = call.path ?? '/';
  const headers: Record<string, string> = { host: 'social.example', 'user-agent': 'jest', ...lower(call.headers ?? {}) };
  let body: string | undefined;
  let isBase64Encoded = false;
  if (call.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof call.json === 'string' ? call.json : JSON.stringify(call.json);
  } else if (call.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = encodeQuery(call.form);
  } else if (call.body) {
    headers['content-type'] ??= call.body.contentType;
    if (Buffer.isBuffer(call.body.data)) {
      body = call.body.data.toString('base64');
      isBase64Encoded = true;
    } else body = call.body.data;
  }
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  const rawQueryString = encodeQuery(call.query);
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString,
    cookies: call.cookies,
    headers,
    pathParameters: call.pathParameters,
    body,
    isBase64Encoded,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'social.example',
      domainPrefix: 'social',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: call.sourceIp ?? '203.0.113.7', userAgent: 'jest' },
      requestId: randomUUID(),
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

export const lambdaContext = (): Context =>
  ({ awsRequestId: randomUUID(), functionName: 'test', getRemainingTimeInMillis: () => 30000 }) as unknown as Context;

export async function call(handler: Handler, request: Call): Promise<Answer> {
  const res = await handler(buildEvent(request), lambdaContext());
  const headers = lower(Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k, String(v)])));
  const bytes = res.isBase64Encoded ? Buffer.from(res.body ?? '', 'base64') : Buffer.from(res.body ?? '', 'utf8');
  // As a client does: a body the handler compressed (the request sent Accept-Encoding) is read decompressed.
  const encoding = headers['content-encoding'];
  const text = (encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
  let body: unknown = text;
  if ((headers['content-type'] ?? '').includes('json')) body = JSON.parse(text);
  return { status: res.statusCode ?? 200, headers, body, text, cookies: res.cookies ?? [] };
}

/**
 * Reads now what a container keeps for all its requests and deliveries (the operator's IP rules, lib/policy/ip_blocks.ts;
 * the domain blocks and the instance settings the federation checks read, lib/policy/instance_domains.ts) and keeps it
 * until the test ends (lib/memo.ts holdMemos; test/support/table.ts releases it after each test): a test that counts
 * one request's DynamoDB calls then counts that request's own, however slowly a loaded machine runs it.
 */
export async function warmContainer(): Promise<void> {
  const { isNoAccessAddress } = await import('../../lib/policy/ip_blocks');
  const { federationRefusal } = await import('../../lib/policy/instance_domains');
  const { holdMemos } = await import('../../lib/memo');
  await Promise.all([isNoAccessAddress('192.0.2.1'), federationRefusal('warm.example')]);
  holdMemos();
}
