// GET /.well-known/oauth-authorization-server (https://docs.joinmastodon.org/methods/oauth/#authorization-server-metadata)
import { http } from '../../lib/http';
import { serverMetadata } from '../../lib/oauth/metadata';

export async function run() {
  return serverMetadata();
}

export const handler = http(run, { auth: 'public' });
