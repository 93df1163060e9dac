// Translating a status (POST /api/v1/statuses/:id/translate), as Mastodon's TranslateStatusService: only a
// public or unlisted status, only with a service configured, only into a language the service translates the
// status's language into (which its own language is not); anything else is 403 "This action is not allowed".
// The texts (content, content warning, poll options, media descriptions) go in one request; the answer is
// kept a day under the digest of what was sent (lib/db/translations.ts), so asking again costs no request.
import type { Account } from '../db/accounts';
import { mediaByIds } from '../db/media';
import { pollById } from '../db/polls';
import type { Status } from '../db/statuses';
import { emojisByShortcodes } from '../db/emojis';
import { keepTranslation, keptTranslation, type StoredTranslation } from '../db/translations';
import { sha256 } from '../crypto';
import { forbidden, ItemTooLarge } from '../errors';
import { log } from '../log';
import { openToAnyone } from '../policy';
import { shortcodesIn } from '../render/emoji';
import { unexpectedAnswer } from './errors';
import { configuredService, languagePairs } from './service';
import {
  contentSource,
  MAX_DESCRIPTION_BYTES,
  MAX_POLL_OPTION_BYTES,
  MAX_SPOILER_BYTES,
  plainSource,
  translatedContent,
  translatedPlain,
} from './texts';
import { UNDETERMINED } from './types';

export { languagePairs } from './service';

/** Mastodon's default locale, the last resort for the language wanted. */
const DEFAULT_LANGUAGE = 'en';

const LANGUAGE_TAG = /^([a-z]{2,3})(?:[_-]([a-z0-9]{2,8}))?$/i;

/** A language tag as Mastodon's locales spell it (`pt-BR`, `zh-Hant`), or undefined when it is not one. */
export function languageTag(raw: string | null | undefined): string | undefined {
  const match = raw ? LANGUAGE_TAG.exec(raw.trim()) : null;
  if (!match) return undefined;
  const [, language = '', region] = match;
  if (!region) return language.toLowerCase();
  return `${language.toLowerCase()}-${region.length === 2 ? region.toUpperCase() : region}`;
}

/** The most wanted language of an Accept-Language header (highest q first, `*` and q=0 skipped). */
function acceptedLanguage(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';').map((p) => p.trim());
      const q = params.map((p) => /^q=([0-9.]+)$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: languageTag(tag), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((c) => c.tag !== undefined && Number.isFinite(c.q) && c.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.tag;
}

export type LanguageWish = { lang?: string; acceptLanguage?: string };

/**
 * The language to translate into, as Mastodon's locale is chosen: the `lang` parameter when it is a language,
 * else the viewer's locale, else the request's Accept-Language, else English.
 */
export const wantedLanguage = (viewer: Pick<Account, 'locale'>, wish: LanguageWish): string =>
  languageTag(wish.lang) ?? languageTag(viewer.locale) ?? acceptedLanguage(wish.acceptLanguage) ?? DEFAULT_LANGUAGE;

/** The service's spelling of `wanted` among `targets`, or of its language alone (`pt-BR` asked, `pt` offered). */
function targetAmong(wanted: string, targets: readonly string[]): string | undefined {
  const exact = targets.find((t) => t.toLowerCase() === wanted.toLowerCase());
  if (exact) return exact;
  const base = wanted.split('-')[0]!.toLowerCase();
  return targets.find((t) => t.toLowerCase() === base);
}

type Source = { key: string; html: string };

/** What is sent, in order: the content, the content warning, each poll option, each described attachment. */
async function sourcesOf(status: Status): Promise<{ sources: Source[]; pollOptions: number; mediaIds: string[] }> {
  const [poll, media] = await Promise.all([
    status.pollId ? pollById(status.pollId) : Promise.resolve(undefined),
    status.mediaIds.length > 0 ? mediaByIds(status.mediaIds) : Promise.resolve(new Map()),
  ]);
  const options = poll?.options.map((o) => o.title) ?? [];
  const known = await knownShortcodes(status, [status.spoilerText, status.text, ...options]);
  const sources: Source[] = [];
  if (status.contentHtml !== '') sources.push({ key: 'content', html: contentSource(status.contentHtml, known) });
  if (status.spoilerText !== '') sources.push({ key: 'spoiler_text', html: plainSource(status.spoilerText, known) });
  options.forEach((title, i) => sources.push({ key: `poll:${i}`, html: plainSource(title, known) }));
  const mediaIds = status.mediaIds.filter((id) => media.has(id));
  for (const id of mediaIds) {
    const description = media.get(id)?.description ?? '';
    // Nothing to translate in an empty description: it stays empty, without costing the service a text.
    if (description !== '') sources.push({ key: `media:${id}`, html: plainSource(description) });
  }
  return { sources, pollOptions: options.length, mediaIds };
}

/** The custom emoji shortcodes the status's texts use that are emoji: its own server's, or ours for our statuses. */
async function knownShortcodes(status: Status, texts: string[]): Promise<Set<string>> {
  if (status.uri !== null) return new Set((status.emojis ?? []).map((e) => e.shortcode));
  const used = shortcodesIn(texts);
  if (used.length === 0) return new Set();
  return new Set((await emojisByShortcodes(used)).keys());
}

/**
 * The status translated for `viewer`, who may see it (the caller checked: lib/policy viewableStatus). Throws 403
 * where Mastodon refuses, a 503 when the service fails (./errors.ts).
 */
export async function translateStatus(status: Status, viewer: Account, wish: LanguageWish): Promise<StoredTranslation> {
  const service = configuredService();
  if (!service || !openToAnyone(status)) throw forbidden();
  const source = status.language;
  const targets = (await languagePairs())[source ?? UNDETERMINED];
  const target = targets ? targetAmong(wantedLanguage(viewer, wish), targets) : undefined;
  if (!target) throw forbidden();

  const { sources, pollOptions, mediaIds } = await sourcesOf(status);
  const digest = sha256(JSON.stringify({ service: service.id, source, target, texts: sources.map((s) => [s.key, s.html]) }));
  const kept = await keptTranslation(digest);
  if (kept) return kept;

  const answers = sources.length > 0 ? await service.translate(sources.map((s) => s.html), source, target) : [];
  if (answers.length !== sources.length) throw unexpectedAnswer(`${answers.length} translations for ${sources.length} texts`);
  const byKey = new Map(sources.map((s, i) => [s.key, answers[i]!.text]));
  const translation: StoredTranslation = {
    content: translatedContent(byKey.get('content') ?? ''),
    spoilerText: translatedPlain(byKey.get('spoiler_text') ?? '', MAX_SPOILER_BYTES),
    pollOptions: Array.from({ length: pollOptions }, (_, i) => translatedPlain(byKey.get(`poll:${i}`) ?? '', MAX_POLL_OPTION_BYTES)),
    media: mediaIds.map((id) => ({ id, description: translatedPlain(byKey.get(`media:${id}`) ?? '', MAX_DESCRIPTION_BYTES) })),
    // The service's word on the first text, as Mastodon reports it; a status with nothing to send keeps its own.
    detectedSourceLanguage: answers[0]?.detectedSourceLanguage ?? source ?? UNDETERMINED,
    language: target,
    provider: service.provider,
  };
  try {
    await keepTranslation(digest, translation);
  } catch (err) {
    // The translation is paid for and good: a write that fails costs the next request another one, not this answer.
    log.warn('translation: not kept', { statusId: status.id, err, tooLarge: err instanceof ItemTooLarge });
  }
  return translation;
}
