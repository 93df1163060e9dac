// The operator's trend commands (`npm run admin -- trends ...`): list what trends now with
// its score, and hide (or unhide) a status, a link or a tag. Hiding is a rejection, as a
// moderator's through GET/POST /api/v1/admin/trends/* (lib/moderation/trends.ts): a hidden item
// never shows in GET /api/v1/trends, /trends/tags, /trends/statuses or /trends/links; unhiding
// forgets the decision, and the item follows trendable-by-default again (`settings set`).
import { accountsByIds, type Account } from '../db/accounts';
import { statusById } from '../db/statuses';
import { pastWeek, tagsUsedOn } from '../db/tags';
import { hiddenTrendList, hideTrend, unhideTrend, type HiddenTrendKind } from '../db/trends';
import { isId } from '../ids';
import { trendScore } from '../tags/trends';
import { normalizeTag } from '../text/tags';
import { rankLinks, rankStatuses } from '../trends';
import { AdminError } from './commands';

export const TRENDS_USAGE = `Trends
  trends list                        trending statuses, links and tags with their scores, and what is hidden
  trends hide status <id>            keep a status out of trends
  trends hide link <url>             keep a link out of trends
  trends hide tag <name>             keep a hashtag out of trends
  trends unhide status|link|tag <id|url|name>
                                     forget the rejection: it trends if approved
                                     or while trendable-by-default is on`;

/** Items listed per kind by `trends list`. */
export const TRENDS_LISTED = 40;

const need = (value: string | undefined, what: string): string => {
  if (value === undefined || value.trim() === '') throw new AdminError(`Missing ${what}\n\n${TRENDS_USAGE}`);
  return value.trim();
};

const noMore = (rest: string[]) => {
  if (rest.length > 0) throw new AdminError(`Unexpected argument ${JSON.stringify(rest[0])}\n\n${TRENDS_USAGE}`);
};

const score = (n: number) => n.toFixed(2);
const handleOf = (account: Account | undefined, id: string) => (account ? (account.domain ? `${account.username}@${account.domain}` : account.username) : `(gone: ${id})`);
const hiddenMark = (hidden: boolean) => (hidden ? '  [hidden]' : '');

async function statusLines(now: Date): Promise<string[]> {
  const ranked = (await rankStatuses(now)).slice(0, TRENDS_LISTED);
  if (ranked.length === 0) return ['  (none)'];
  const authors = await accountsByIds([...new Set(ranked.map((r) => r.accountId))]);
  return ranked.map((r) => `  ${r.statusId}  score ${score(r.score)}  accounts ${r.accounts}  by ${handleOf(authors.get(r.accountId), r.accountId)}${hiddenMark(r.hidden)}`);
}

async function linkLines(now: Date): Promise<string[]> {
  const ranked = (await rankLinks(now)).slice(0, TRENDS_LISTED);
  if (ranked.length === 0) return ['  (none)'];
  return ranked.map((r) => `  ${r.url}  score ${score(r.score)}  accounts ${r.accounts}  uses ${r.uses}${hiddenMark(r.hidden)}`);
}

/** The tags scored as lib/tags/trends.ts scores them (its week and the day before), hidden ones included. */
async function tagLines(now: Date, hiddenTags: Set<string>): Promise<string[]> {
  const week = pastWeek(now);
  const scoreDays = [...week, ...pastWeek(new Date(now.getTime() - 7 * 24 * 60 * 60 * 1000)).slice(0, 1)];
  const byDay = await tagsUsedOn(scoreDays);
  const names = new Map<string, string>();
  for (const day of week.slice(0, 2)) for (const d of byDay.get(day)?.values() ?? []) names.set(d.tag, d.name);
  const scored = [...names.keys()]
    .map((tag) => ({ tag, score: trendScore(tag, scoreDays, byDay) }))
    .filter((t) => t.score > 0)
    .sort((a, b) => b.score - a.score || a.tag.localeCompare(b.tag))
    .slice(0, TRENDS_LISTED);
  if (scored.length === 0) return ['  (none)'];
  return scored.map((t) => `  #${names.get(t.tag) ?? t.tag}  score ${score(t.score)}${hiddenMark(hiddenTags.has(t.tag))}`);
}

export async function listTrends(now: Date = new Date()): Promise<string> {
  const hidden = await hiddenTrendList();
  const hiddenTags = new Set(hidden.filter((h) => h.kind === 'tag').map((h) => h.value));
  const [statuses, links, tags] = await Promise.all([statusLines(now), linkLines(now), tagLines(now, hiddenTags)]);
  return [
    'Statuses',
    ...statuses,
    'Links',
    ...links,
    'Tags',
    ...tags,
    'Hidden',
    ...(hidden.length > 0 ? hidden.map((h) => `  ${h.kind} ${h.label}`) : ['  (none)']),
  ].join('\n');
}

/** The value an item is hidden under, checked: a stored status's id, an http(s) URL, a tag's normalized name. */
async function targetOf(kind: string | undefined, arg: string | undefined, mustExist: boolean): Promise<{ kind: HiddenTrendKind; value: string; label: string }> {
  if (kind === 'status') {
    const id = need(arg, 'the status id');
    if (!isId(id)) throw new AdminError(`Not a status id: ${id}`);
    const canonical = BigInt(id).toString();
    // A status deleted since it was hidden can still be unhidden.
    if (mustExist && !(await statusById(canonical))) throw new AdminError(`No status with id ${id}`);
    return { kind, value: canonical, label: `status ${canonical}` };
  }
  if (kind === 'link') {
    const url = need(arg, 'the URL');
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw new AdminError(`Not an http(s) URL: ${url}`);
    // Kept as given: trends key a link by the URL its card was stored under, which the operator copies from `trends list`.
    return { kind, value: url, label: `link ${url}` };
  }
  if (kind === 'tag') {
    const tag = normalizeTag(need(arg, 'the tag').replace(/^#/, ''));
    if (!/^[^\s#]+$/u.test(tag)) throw new AdminError(`Not a hashtag: ${arg}`);
    return { kind, value: tag, label: `tag #${tag}` };
  }
  throw new AdminError(`Unknown kind ${JSON.stringify(kind ?? '')}: use status, link or tag\n\n${TRENDS_USAGE}`);
}

/** Runs one `trends` command; undefined for a command this group does not have. */
export async function trendsCommand(command: string | undefined, rest: string[]): Promise<string | undefined> {
  if (command === 'list') {
    noMore(rest);
    return listTrends();
  }
  if (command === 'hide' || command === 'unhide') {
    const [kind, arg, ...extra] = rest;
    noMore(extra);
    const target = await targetOf(kind, arg, command === 'hide');
    if (command === 'hide') {
      return (await hideTrend(target.kind, target.value)) ? `Hidden from trends: ${target.label}.` : `Already hidden from trends: ${target.label}.`;
    }
    return (await unhideTrend(target.kind, target.value)) ? `May trend again: ${target.label}.` : `Was not hidden: ${target.label}.`;
  }
  return undefined;
}
