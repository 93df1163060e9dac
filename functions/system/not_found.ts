// Any route the API does not know: 404 {"error": "Not found"}, as Mastodon answers unknown API paths.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { notFound } from '../../lib/errors';
import { http } from '../../lib/http';

export async function run(): Promise<never> {
  throw notFound('Not found');
}

const wrapped = http(run, { auth: 'public' });

// Whatever was sent to an unknown path is irrelevant: dropping the body first
// means a malformed or oversized one still gets the 404, never a 400 or 413.
export const handler = (event: APIGatewayProxyEventV2, context: Context) =>
  wrapped({ ...event, body: undefined, isBase64Encoded: false }, context);
