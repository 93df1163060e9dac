// The languages the instance knows (GET /api/v1/instance/languages: what a status's and a profile's
// `language` may be) and those it can translate between (GET /api/v1/instance/translation_languages).
// This server has no translation service: the v2 instance says `translation.enabled: false`, and the
// map of translation languages is empty, as Mastodon answers when TranslationService is not configured.
import { languageNames } from '../text/languages';

/** Whether statuses can be translated here (Instance.configuration.translation.enabled). */
export const TRANSLATION_ENABLED = false;

export const supportedLanguages = (): { code: string; name: string }[] => languageNames();

/** Source language code to the codes it translates into; empty while translation is off. */
export const translationLanguages = (): Record<string, string[]> => ({});
