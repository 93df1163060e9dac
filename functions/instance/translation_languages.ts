// GET /api/v1/instance/translation_languages (https://docs.joinmastodon.org/methods/instance/#translation_languages):
// which languages the configured translation service translates into which, as it lists them (LibreTranslate's
// /languages, DeepL's /v2/languages), `und` for a text whose language the service detects; `{}` where
// translation is off. Read once per container for a while (lib/translation/service.ts); a service that cannot
// answer is a 503, as the translations themselves.
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { languagePairs } from '../../lib/translation';

export async function run() {
  return json(await languagePairs(), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
