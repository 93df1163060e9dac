// CORS preflights on the local stack, answered as the deployed HTTP API answers
// them. With a CORS configuration (`provider.httpApi.cors` in serverless.yml, the
// template's CorsConfiguration) API Gateway answers an OPTIONS preflight itself,
// without calling a function, wherever no route takes OPTIONS; the front server
// (infra/local/stream-front.ts) does the same here, from the same configuration,
// for the API and for the server-sent-event streams it serves itself (in AWS their
// function URLs need the same configuration, as `url.cors`). serverless offline
// would answer the API's preflights from it too, but echoes the origin where API
// Gateway answers `*`, and never sees the preflights of the streams.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';

const corsSchema = z
  .object({
    allowedOrigins: z.array(z.string()).optional(),
    allowedHeaders: z.array(z.string()).optional(),
    allowedMethods: z.array(z.string()).optional(),
    allowCredentials: z.boolean().optional(),
    exposedResponseHeaders: z.array(z.string()).optional(),
    maxAge: z.number().optional(),
  })
  .passthrough();

export type HttpApiCors = z.infer<typeof corsSchema>;

const providerSchema = z
  .object({ httpApi: z.object({ cors: z.union([z.boolean(), corsSchema]).optional() }).passthrough().optional() })
  .passthrough();

// What Serverless Framework v3 deploys where the configuration says nothing (`cors: true`, or a field left out).
const FRAMEWORK_ORIGINS = ['*'];
const FRAMEWORK_HEADERS = ['Content-Type', 'X-Amz-Date', 'Authorization', 'X-Api-Key', 'X-Amz-Security-Token', 'X-Amz-User-Agent', 'X-Amzn-Trace-Id'];
// Without a list the framework names the methods of the API's routes: near enough, all of them.
const FRAMEWORK_METHODS = ['OPTIONS', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

/** The HTTP API's CORS configuration from the service's `provider`, or undefined when it has none (then no preflight is answered). */
export function httpApiCors(provider: unknown): HttpApiCors | undefined {
  const cors = providerSchema.parse(provider ?? {}).httpApi?.cors;
  if (!cors) return undefined;
  const given = cors === true ? {} : cors;
  return {
    ...given,
    allowedOrigins: given.allowedOrigins ?? FRAMEWORK_ORIGINS,
    allowedHeaders: given.allowedHeaders ?? FRAMEWORK_HEADERS,
    allowedMethods: given.allowedMethods ?? FRAMEWORK_METHODS,
  };
}

/** A browser's preflight: OPTIONS naming the origin and the method to come (a bare OPTIONS is an ordinary request). */
export const isPreflight = (req: IncomingMessage): boolean =>
  req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;

/** Whether `origin` is one of `allowed`: `*` for any, or a pattern such as `https://*.example.com`, as API Gateway reads them. */
function originAllowed(origin: string, allowed: string[]): boolean {
  return allowed.some((pattern) => {
    if (pattern === '*' || pattern === origin) return true;
    if (!pattern.includes('*')) return false;
    const escaped = pattern.split('*').map((part) => part.replace(/[.?+^$()[\]{}|\\/]/g, '\\$&'));
    return new RegExp(`^${escaped.join('.*')}$`, 'i').test(origin);
  });
}

/**
 * The preflight answer's headers for `origin`, or undefined when that origin is not
 * allowed (the answer then carries none, and the browser refuses the request).
 */
export function preflightHeaders(cors: HttpApiCors, origin: string): Record<string, string> | undefined {
  const origins = cors.allowedOrigins ?? [];
  if (!originAllowed(origin, origins)) return undefined;
  // `*` cannot go with credentials (Fetch standard): then the origin itself is named.
  const anyOrigin = origins.includes('*') && !cors.allowCredentials;
  const headers: Record<string, string> = { 'access-control-allow-origin': anyOrigin ? '*' : origin };
  if (!anyOrigin) headers.vary = 'Origin';
  if (cors.allowCredentials) headers['access-control-allow-credentials'] = 'true';
  if (cors.allowedMethods?.length) headers['access-control-allow-methods'] = cors.allowedMethods.join(',');
  if (cors.allowedHeaders?.length) headers['access-control-allow-headers'] = cors.allowedHeaders.join(',');
  if (cors.exposedResponseHeaders?.length) headers['access-control-expose-headers'] = cors.exposedResponseHeaders.join(',');
  if (cors.maxAge !== undefined) headers['access-control-max-age'] = String(cors.maxAge);
  return headers;
}

/** Answers a preflight: 204 with the configuration's headers, before and without any function. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, cors: HttpApiCors): void {
  // A preflight has no body; whatever was sent is read and dropped so the connection stays usable.
  req.resume();
  res.writeHead(204, preflightHeaders(cors, req.headers.origin ?? '') ?? {}).end();
}
