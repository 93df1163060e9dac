// GET /api/v1/instance/translation_languages (https://docs.joinmastodon.org/methods/instance/#translation_languages):
// which languages translate into which; `{}` here, where translation is off (lib/instance/languages.ts).
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { translationLanguages } from '../../lib/instance/languages';

export async function run() {
  return json(translationLanguages(), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
