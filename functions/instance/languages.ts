// GET /api/v1/instance/languages (https://docs.joinmastodon.org/methods/instance/#languages): the languages
// a status or profile may be marked with, as { code, name }. Public, and the same for everyone.
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { supportedLanguages } from '../../lib/instance/languages';

export async function run() {
  return json(supportedLanguages(), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
