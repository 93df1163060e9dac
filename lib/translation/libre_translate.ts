// LibreTranslate's API (https://docs.libretranslate.com/), as Mastodon's TranslationService::LibreTranslate
// speaks it: JSON to `<endpoint>/translate` with every text in one `q` list, `format: html`, `source: auto` for
// a text of unknown language, the key (if any) in the body; the language pairs from `<endpoint>/languages`.
// 429 is its rate limit, 403 a refused or spent key.
import { z } from 'zod';
import { checkStatus, jsonAnswer } from './answers';
import { unexpectedAnswer } from './errors';
import { serviceRequest } from './request';
import { UNDETERMINED, type LanguagePairs, type TextTranslation, type TranslationService } from './types';

const QUOTA_EXCEEDED = 403;

const languageList = z.array(z.object({ code: z.string(), targets: z.array(z.string()).optional() }).passthrough());
const translateAnswer = z.object({
  translatedText: z.array(z.string()),
  // Present when the source was `auto`: one per text.
  detectedLanguage: z.array(z.object({ language: z.string() }).passthrough().nullable()).optional().catch(undefined),
});

export function libreTranslate(endpoint: string, apiKey: string): TranslationService {
  const json = (body: unknown) => ({ data: JSON.stringify(body), contentType: 'application/json' });
  // The operator's own server may well be on plain http (Mastodon allows it); the address guard still applies.
  const plainHttp = true;

  return {
    id: `libretranslate ${endpoint}`,
    provider: 'LibreTranslate',

    async languages(): Promise<LanguagePairs> {
      const answer = await serviceRequest(`${endpoint}/languages`, { method: 'GET', plainHttp });
      checkStatus(answer.status, QUOTA_EXCEEDED);
      const parsed = languageList.safeParse(jsonAnswer(answer.body));
      if (!parsed.success) throw unexpectedAnswer('/languages is not a list of languages');
      const codes = parsed.data.map((l) => l.code);
      const pairs: LanguagePairs = {};
      // LibreTranslate before 1.3 lists no targets: every language then translates into every other.
      for (const l of parsed.data) pairs[l.code] = (l.targets ?? codes).filter((t) => t !== l.code);
      pairs[UNDETERMINED] = [...new Set(Object.values(pairs).flat())].sort();
      return pairs;
    },

    async translate(texts, source, target): Promise<TextTranslation[]> {
      const body = { q: texts, source: source ?? 'auto', target, format: 'html', ...(apiKey ? { api_key: apiKey } : {}) };
      const answer = await serviceRequest(`${endpoint}/translate`, { method: 'POST', body: json(body), plainHttp });
      checkStatus(answer.status, QUOTA_EXCEEDED);
      const parsed = translateAnswer.safeParse(jsonAnswer(answer.body));
      if (!parsed.success) throw unexpectedAnswer('/translate answered no list of translated texts');
      return parsed.data.translatedText.map((text, i) => ({
        text,
        detectedSourceLanguage: parsed.data.detectedLanguage?.[i]?.language ?? source,
      }));
    },
  };
}
