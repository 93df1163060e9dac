// GET /.well-known/webfinger?resource=acct:user@domain (https://docs.joinmastodon.org/spec/webfinger/)
import { z } from 'zod';
import { badRequest } from '../../lib/errors';
import { http, json } from '../../lib/http';
import { webfingerDocument } from '../../lib/federation/jrd';
import { DISCOVERY_CACHE_CONTROL } from '../../lib/instance/discovery';

export const schema = z.object({ resource: z.unknown() });

export async function run(input: z.infer<typeof schema>) {
  const resource = Array.isArray(input.resource) ? input.resource[0] : input.resource;
  if (typeof resource !== 'string' || resource.trim() === '') throw badRequest('The resource parameter is missing');
  if (resource.length > 500) throw badRequest('The resource parameter is invalid');
  return json(await webfingerDocument(resource), 200, { 'Content-Type': 'application/jrd+json; charset=utf-8', 'Cache-Control': DISCOVERY_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public', schema });
