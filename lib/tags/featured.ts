// Featured tags (Mastodon's FeaturedTag): at most 10 per account, each with the
// statuses_count and last_status_at of the account's public and unlisted
// statuses using it (counters kept at write time, lib/db/tags.ts). Rendered as our
// spec types them (spec/api.md: statuses_count an integer, last_status_at a datetime),
// where Mastodon 4 sends a string of digits and a day.
import type { Account } from '../db/accounts';
import {
  deleteFeaturedTag,
  featuredTagById,
  featuredTagOfTag,
  featuredTagsOf,
  MAX_FEATURED_TAGS,
  putFeaturedTag,
  type FeaturedTag,
} from '../db/featured_tags';
import { accountTags, accountTagUsesSince, dayOf, HISTORY_DAYS, type AccountTag } from '../db/tags';
import { nowIso } from '../db/table';
import { config } from '../config';
import { notFound, unprocessable } from '../errors';
import { isId, newId } from '../ids';
import { extractEntities } from '../text/status';
import { normalizeTag } from '../text/tags';
import { tagsWithHistory } from './trends';

export const SUGGESTED_TAGS = 10;

function render(account: Account, tag: FeaturedTag, counters: AccountTag | undefined) {
  return {
    id: tag.id,
    name: tag.name,
    url: `${config.baseUrl}/@${account.username}/tagged/${encodeURIComponent(tag.tag)}`,
    statuses_count: counters?.statusesCount ?? 0,
    last_status_at: counters?.lastStatusAt ? new Date(counters.lastStatusAt).toISOString() : null,
  };
}

async function renderAll(account: Account, tags: FeaturedTag[]) {
  const counters = await accountTags(account.id, tags.map((t) => t.tag));
  return tags.map((t) => render(account, t, counters.get(t.tag)));
}

export async function listFeaturedTags(account: Account) {
  return renderAll(account, await featuredTagsOf(account.id));
}

/** A hashtag name as written (a leading `#` allowed), if it is one whole valid hashtag. */
export function hashtagName(raw: string): string | undefined {
  const name = raw.trim().replace(/^#/, '');
  const entities = extractEntities(`#${name}`);
  const only = entities[0];
  return entities.length === 1 && only?.kind === 'hashtag' && only.tag === name ? name : undefined;
}

const ALREADY_FEATURED = 'Validation failed: Tag has already been taken';
const TOO_MANY = 'Validation failed: You have already featured the maximum number of hashtags';

/**
 * Features `tag` (normalised) displayed as `name`, within MAX_FEATURED_TAGS: the new featured tag, or why not
 * (`taken` also when another request featured it meanwhile: the name claim keeps one).
 */
async function putWithinLimit(account: Account, tag: string, name: string): Promise<FeaturedTag | 'taken' | 'limit'> {
  const existing = await featuredTagsOf(account.id);
  if (existing.some((t) => t.tag === tag)) return 'taken';
  if (existing.length >= MAX_FEATURED_TAGS) return 'limit';
  const featured: FeaturedTag = { id: newId(), accountId: account.id, tag, name, createdAt: nowIso() };
  return (await putFeaturedTag(featured)) ? featured : 'taken';
}

export async function featureTag(account: Account, rawName: string) {
  const name = hashtagName(rawName);
  if (!name) throw unprocessable('Validation failed: Tag is invalid');
  const featured = await putWithinLimit(account, normalizeTag(name), name);
  if (featured === 'taken') throw unprocessable(ALREADY_FEATURED);
  if (featured === 'limit') throw unprocessable(TOO_MANY);
  const [rendered] = await renderAll(account, [featured]);
  return rendered;
}

/**
 * POST /api/v1/tags/:name/feature (Mastodon 4.4's CreateFeaturedTagService): featuring a tag already featured
 * changes nothing; past the limit it is 422 as the create endpoint says.
 */
export async function featureNamedTag(account: Account, t: { tag: string; name: string }): Promise<void> {
  if ((await putWithinLimit(account, t.tag, t.name)) === 'limit') throw unprocessable(TOO_MANY);
}

/** POST /api/v1/tags/:name/unfeature: unfeaturing a tag not featured changes nothing. */
export async function unfeatureNamedTag(account: Account, tag: string): Promise<void> {
  const featured = await featuredTagOfTag(account.id, tag);
  // Gone meanwhile (another unfeature): not featured either way.
  if (featured) await deleteFeaturedTag(featured);
}

export async function unfeatureTag(account: Account, id: string): Promise<void> {
  const tag = isId(id) ? await featuredTagById(account.id, id) : undefined;
  if (!tag || !(await deleteFeaturedTag(tag))) throw notFound();
}

/** The account's most used tags of the past week that it does not feature yet, with their history. */
export async function suggestedTags(account: Account, now: Date = new Date()) {
  const since = dayOf(new Date(now.getTime() - (HISTORY_DAYS - 1) * 24 * 60 * 60 * 1000));
  const [used, featured] = await Promise.all([accountTagUsesSince(account.id, since), featuredTagsOf(account.id)]);
  const featuredTags = new Set(featured.map((t) => t.tag));
  const top = used.filter((t) => !featuredTags.has(t.tag)).slice(0, SUGGESTED_TAGS);
  return tagsWithHistory(top, now);
}
