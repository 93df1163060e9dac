// The configured translation service, as Mastodon's TranslationService.configured: DeepL when its API key is
// set (a secret: lib/secrets.ts), else LibreTranslate when LIBRE_TRANSLATE_ENDPOINT is, else none (translation off). Its language pairs are
// read once per container for a while (lib/memo.ts): Mastodon keeps them a week in its cache; a container lives
// hours, so each one asks the service a few times a day at most, and a failed read is not kept.
import { config } from '../config';
import { secrets } from '../secrets';
import { memo } from '../memo';
import { deepL } from './deepl';
import { libreTranslate } from './libre_translate';
import type { LanguagePairs, TranslationService } from './types';

/** How long a container keeps the service's language pairs. */
export const LANGUAGES_TTL_MS = 6 * 3600_000;

/** The service the operator configured, or undefined where translation is off. */
export function configuredService(): TranslationService | undefined {
  const { deeplApiKey, libreTranslateApiKey } = secrets();
  if (deeplApiKey !== '') return deepL(config.deeplPlan, deeplApiKey);
  if (config.libreTranslateEndpoint !== '') return libreTranslate(config.libreTranslateEndpoint, libreTranslateApiKey);
  return undefined;
}

/** Is a translation service configured (the v2 instance's `configuration.translation.enabled`)? */
export const translationEnabled = (): boolean => secrets().deeplApiKey !== '' || config.libreTranslateEndpoint !== '';

// The pairs with the service they came from: a setting changed under a running process (tests) is not answered
// with the other service's pairs.
const kept = memo(
  async (): Promise<{ id: string; pairs: LanguagePairs }> => {
    const service = configuredService();
    return service ? { id: service.id, pairs: await service.languages() } : { id: '', pairs: {} };
  },
  { ttlMs: LANGUAGES_TTL_MS },
);

/** Which languages the configured service translates into which (`{}` where translation is off). */
export async function languagePairs(): Promise<LanguagePairs> {
  const service = configuredService();
  if (!service) return {};
  const got = await kept.get();
  if (got.id === service.id) return got.pairs;
  kept.forget();
  const again = await kept.get();
  return again.id === service.id ? again.pairs : {};
}
