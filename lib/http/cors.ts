// Cross-origin answers, as Mastodon's rack-cors configuration gives them for /api,
// /oauth/token and /oauth/revoke: any origin, no credentials. The same lists are
// the HTTP API's CORS configuration in serverless.yml (`provider.httpApi.cors`;
// test/integration/cors-config.test.ts keeps the two equal), from which API Gateway
// and the local stack answer preflights.

/** Paths that answer cross-origin requests. */
export const corsPath = (path: string) => /^\/(api|oauth\/(token|revoke)|\.well-known|nodeinfo)(\/|$)/.test(path);

/** Headers a browser may send: named one by one, since `*` never covers Authorization (Fetch standard). */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'Accept', 'Accept-Language'];
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const CORS_EXPOSED_HEADERS = ['Link', 'X-RateLimit-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Request-Id', 'Idempotency-Key', 'Mastodon-Async-Refresh'];
export const CORS_MAX_AGE = 3600;

/** On every answer of a cross-origin path. */
export const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
};

/** A preflight's answer, for one that reaches a function (the gateway answers them before any route). */
export const PREFLIGHT_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': CORS_ALLOWED_METHODS.join(', '),
  'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
  'Access-Control-Max-Age': String(CORS_MAX_AGE),
};
