// What every translation service answers (./deepl.ts, ./libre_translate.ts), as Mastodon's TranslationService.

/** One text as translated, with the language the service found it in (when it says). */
export type TextTranslation = { text: string; detectedSourceLanguage: string | null };

/** Source language (`und`: let the service detect it) to the languages it translates into. */
export type LanguagePairs = Record<string, string[]>;

/** The key of LanguagePairs for a text whose language is not known, which the service detects (Mastodon's nil, shown as `und`). */
export const UNDETERMINED = 'und';

export type TranslationService = {
  /** Which service, and where: a translation kept from one is not served for another. */
  id: string;
  /** The name Translation.provider reports. */
  provider: string;
  languages(): Promise<LanguagePairs>;
  /** `texts` are HTML; `source` null lets the service detect it. One answer per text, in order. */
  translate(texts: string[], source: string | null, target: string): Promise<TextTranslation[]>;
};
