// Any route the API does not know: 404 {"error": "Not found"}, as Mastodon answers unknown API paths.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { notFound } from '../../lib/errors';
import { http, Reply } from '../../lib/http';
import { PREFLIGHT_HEADERS, corsPath } from '../../lib/http/cors';

export async function run(): Promise<never> {
  throw notFound('Not found');
}

const wrapped = http(run, { auth: 'public' });

// Whatever was sent to an unknown path is irrelevant: dropping the body first
// means a malformed or oversized one still gets the 404, never a 400 or 413.
export const handler = (event: APIGatewayProxyEventV2, context: Context) =>
  isPreflight(event) ? preflight({ ...event, body: undefined, isBase64Encoded: false }, context) : wrapped({ ...event, body: undefined, isBase64Encoded: false }, context);

// API Gateway answers CORS preflights from its configuration before any route; should
// one reach this catch-all all the same, it gets that answer rather than a 404,
// which a browser would take as a refusal.
const isPreflight = (event: APIGatewayProxyEventV2) =>
  event.requestContext?.http?.method === 'OPTIONS' && corsPath(event.rawPath ?? '/') &&
  Object.keys(event.headers ?? {}).some((h) => h.toLowerCase() === 'access-control-request-method');

const preflight = http(async () => new Reply(204, '', PREFLIGHT_HEADERS, [], 'raw'), { auth: 'public' });
