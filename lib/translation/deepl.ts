// DeepL's API (https://developers.deepl.com/docs), as Mastodon's TranslationService::DeepL speaks it: the free
// plan's host or the paid one's, the key in the Authorization header, texts sent as HTML (`tag_handling=html`,
// so markup and `translate="no"` are kept), the language lists read from /v2/languages. 429 is DeepL's rate
// limit, 456 its spent quota.
import { z } from 'zod';
import { checkStatus, jsonAnswer } from './answers';
import { unexpectedAnswer } from './errors';
import { serviceRequest } from './request';
import { UNDETERMINED, type LanguagePairs, type TextTranslation, type TranslationService } from './types';

const QUOTA_EXCEEDED = 456;

let endpointOverride: string | undefined;

/** Tests: DeepL's API served from elsewhere (a stand-in on loopback); undefined restores DeepL's own hosts. */
export function useDeepLEndpoint(url: string | undefined): void {
  endpointOverride = url?.replace(/\/+$/, '');
}

const baseUrl = (plan: string) => endpointOverride ?? (plan === 'free' ? 'https://api-free.deepl.com' : 'https://api.deepl.com');

const languageList = z.array(z.object({ language: z.string() }).passthrough());
const translateAnswer = z.object({
  translations: z.array(z.object({ text: z.string(), detected_source_language: z.string().nullish() }).passthrough()),
});

/** DeepL spells `EN-GB`, `ZH-HANS`; Mastodon's lists say `en-GB`, `zh-HANS`. */
const normalise = (code: string) => {
  const [first = '', second] = code.split(/[_-]/);
  return second === undefined ? first.toLowerCase() : `${first.toLowerCase()}-${second.toUpperCase()}`;
};

export function deepL(plan: string, apiKey: string): TranslationService {
  const base = baseUrl(plan);
  const headers = { authorization: `DeepL-Auth-Key ${apiKey}` };

  const fetchLanguages = async (type: 'source' | 'target'): Promise<string[]> => {
    const answer = await serviceRequest(`${base}/v2/languages?type=${type}`, { method: 'GET', headers });
    checkStatus(answer.status, QUOTA_EXCEEDED);
    const parsed = languageList.safeParse(jsonAnswer(answer.body));
    if (!parsed.success) throw unexpectedAnswer(`/v2/languages?type=${type} is not a list of languages`);
    return parsed.data.map((l) => normalise(l.language));
  };

  return {
    id: `deepl ${base}`,
    provider: 'DeepL.com',

    async languages(): Promise<LanguagePairs> {
      const [sources, fetchedTargets] = await Promise.all([fetchLanguages('source'), fetchLanguages('target')]);
      // DeepL lists EN and PT as sources but only their regional forms as targets; it still takes them (Mastodon adds them too).
      const targets = [...new Set(['en', 'pt', ...fetchedTargets])];
      const pairs: LanguagePairs = {};
      for (const source of sources) pairs[source] = targets.filter((t) => t !== source);
      pairs[UNDETERMINED] = targets;
      return pairs;
    },

    async translate(texts, source, target): Promise<TextTranslation[]> {
      const form = new URLSearchParams();
      for (const text of texts) form.append('text', text);
      if (source) form.append('source_lang', source.toUpperCase());
      form.append('target_lang', target);
      form.append('tag_handling', 'html');
      const answer = await serviceRequest(`${base}/v2/translate`, {
        method: 'POST',
        headers,
        body: { data: form.toString(), contentType: 'application/x-www-form-urlencoded' },
      });
      checkStatus(answer.status, QUOTA_EXCEEDED);
      const parsed = translateAnswer.safeParse(jsonAnswer(answer.body));
      if (!parsed.success) throw unexpectedAnswer('/v2/translate answered no translations');
      return parsed.data.translations.map((t) => ({ text: t.text, detectedSourceLanguage: t.detected_source_language?.toLowerCase() ?? null }));
    },
  };
}
