// Custom emoji of other servers: the `Emoji` tags of a remote Note or actor
// ({type: 'Emoji', name: ':blobcat:', icon: {url}}), read into what the status or
// account stores (lib/db/emojis.ts remoteEmoji) and renders as its `emojis`
// (Mastodon's ActivityPub::Activity::Create#process_emoji and
// ProcessAccountService#process_emoji, CustomEmoji.from_text). As there, only the
// shortcodes its own text uses are kept: a tag nothing shows is not stored.
import type { RemoteEmoji } from '../db/emojis';
import { MAX_EMOJIS_PER_ENTITY, shortcodesIn } from '../render/emoji';
import { passesUrlRules } from './guard';
import { asArray, httpUrl, objectOf, typeOf, urlOf, type ApDocument } from './vocab';

/** Mastodon's shortcode: letters, digits and `_`, two or more (at most 100 here, as our own). */
const SHORTCODE = /^:?([a-zA-Z0-9_]{2,100}):?$/;
const MAX_ICON_URL_LENGTH = 2048;

/** An Emoji tag's shortcode and image, or undefined when it is not one we can show. */
function emojiOf(value: unknown): RemoteEmoji | undefined {
  const tag = objectOf(value);
  if (!tag || typeOf(tag) !== 'Emoji' || typeof tag.name !== 'string') return undefined;
  const shortcode = SHORTCODE.exec(tag.name.trim())?.[1];
  const icon = typeof tag.icon === 'string' ? httpUrl(tag.icon) : urlOf(objectOf(asArray(tag.icon)[0])?.url);
  // Shown from its server as it is: an icon the address guard would refuse is not shown at all.
  if (!shortcode || !icon || icon.length > MAX_ICON_URL_LENGTH || !passesUrlRules(icon)) return undefined;
  return { shortcode, url: icon };
}

/**
 * The custom emoji of `tags` that `texts` use (`:shortcode:`), each once, in order of first use, at most as many
 * as an entity renders (MAX_EMOJIS_PER_ENTITY); the first tag of a shortcode named twice stands.
 */
export function readEmojiTags(tags: unknown, texts: string[]): RemoteEmoji[] {
  const used = shortcodesIn(texts);
  if (used.length === 0) return [];
  const byShortcode = new Map<string, RemoteEmoji>();
  for (const t of asArray(tags)) {
    const emoji = emojiOf(t);
    if (emoji && !byShortcode.has(emoji.shortcode)) byShortcode.set(emoji.shortcode, emoji);
  }
  return used.flatMap((code) => byShortcode.get(code) ?? []).slice(0, MAX_EMOJIS_PER_ENTITY);
}

/** An actor's custom emoji: those its name, summary and profile fields use (as Mastodon reads them). */
export function readActorEmojiTags(actor: ApDocument): RemoteEmoji[] {
  const texts = [actor.name, actor.summary];
  for (const field of asArray(actor.attachment)) {
    const entry = objectOf(field);
    if (entry && typeOf(entry) === 'PropertyValue') texts.push(entry.name, entry.value);
  }
  return readEmojiTags(actor.tag, texts.filter((t): t is string => typeof t === 'string'));
}
