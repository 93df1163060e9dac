// Posting a status (Mastodon's PostStatusService): the rules of the spec, the
// text rendered once at posting time, and one transaction for everything that
// must hold together (status, author's home entry, public and tag entries,
// reply index and the parent's counter, the author's counters, media attach,
// poll and its expiry bucket, the idempotency key, the record that its distribution
// is owed). Fan-out and mention notifications follow through the fan-out queue,
// re-driven until its first page is done (lib/timelines/fanout_owed.ts).
import type { Account } from '../db/accounts';
import { mediaByIds } from '../db/media';
import { remoteAccountsByAccts } from '../db/remote';
import { resolveHandles } from '../federation/mentions';
import type { Poll } from '../db/polls';
import type { Scheduled } from '../db/scheduled';
import { idempotentStatusId, localAccountsByUsernames, statusById, type QuotePolicy, type Status, type Visibility } from '../db/statuses';
import { isDirect } from '../policy/visibility';
import { notifyQuoted, quotableStatus, quoteForNewStatus, requestQuoteApproval, storedQuotePolicy } from './quotes';
import { countDaily } from '../db/daily_stats';
import { searchIndexRecords } from '../db/search';
import { recentUnusableTags } from '../db/trends';
import { writeNewStatus } from '../db/status_writes';
import { recordDirectStatus } from '../conversations';
import { nowIso } from '../db/table';
import type { Token } from '../db/tokens';
import { sha256 } from '../crypto';
import { notFound, unprocessable } from '../errors';
import { newId } from '../ids';
import { log } from '../log';
import { distributionDueAt, enqueueDistribution, redriveIfOwed } from '../timelines/fanout_owed';
import { isLanguageCode } from '../text/languages';
import { COUNTED_LIMITS, RAW_CAPS } from '../text/limits';
import {
  hashtagSpellings,
  localMentionKey,
  localMentionUsernames,
  MAX_STATUS_LENGTH,
  mentionedAccounts,
  parseStatusText,
  remoteMentionHandles,
  remoteMentionKey,
  statusLength,
  statusToHtml,
  withoutHashtags,
  type ParsedText,
  type ResolvedMention,
} from '../text/status';
import { tagged } from '../text/tags';
import { config } from '../config';
import { listedInPublicTimelines, searchableByAnyone, storedSensitive, viewableStatus } from '../policy';

export const MAX_MEDIA = 4;

/** `username@domain` (a key of the remote accounts found for a status's handles) as its two parts. */
const splitHandleKey = (key: string): [string, string] => {
  const at = key.lastIndexOf('@');
  return [key.slice(0, at), key.slice(at + 1)];
};
export const POLL_LIMITS = {
  minOptions: 2,
  maxOptions: COUNTED_LIMITS.pollOptions,
  maxOptionChars: COUNTED_LIMITS.pollOptionCharacters,
  minExpiresIn: 300,
  maxExpiresIn: 2629746,
};
export type NewStatus = {
  status?: string;
  mediaIds: string[];
  poll?: { options?: string[]; expiresIn?: number; multiple: boolean; hideTotals: boolean };
  inReplyToId?: string;
  sensitive?: boolean;
  spoilerText: string;
  visibility?: Visibility;
  language?: string;
  scheduledAt?: string;
  idempotencyKey?: string;
  /** The accounts the post may mention (Mastodon's `allowed_mentions`); any other it would mention refuses it. */
  allowedMentions?: string[];
  /** The status it quotes (Mastodon 4.4's `quoted_status_id`). */
  quotedStatusId?: string;
  /** Who may quote it; the author's default (`source[quote_policy]`) when absent. */
  quoteApprovalPolicy?: QuotePolicy;
};

/** The post would mention accounts outside its `allowed_mentions`: nothing was written. */
export class UnexpectedMentions extends Error {
  constructor(readonly accountIds: string[]) {
    super('Post would be sent to unexpected accounts');
    this.name = 'UnexpectedMentions';
  }
}

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`);

type CheckedPoll = { options: string[]; expiresIn: number; multiple: boolean; hideTotals: boolean };
/** What the rules let through: the poll, and the text tokenised once for everything posting does with it. */
export type Checked = { poll?: CheckedPoll; text: ParsedText };

/** A new poll of status `statusId` from the checked input: no votes yet, ending `expiresIn` seconds from now. */
export const newPoll = (statusId: string, accountId: string, checked: CheckedPoll, now: string): Poll => ({
  id: newId(),
  statusId,
  accountId,
  options: checked.options.map((title) => ({ title, votesCount: 0 })),
  multiple: checked.multiple,
  hideTotals: checked.hideTotals,
  expiresAt: new Date(Date.now() + checked.expiresIn * 1000).toISOString(),
  votesCount: 0,
  votersCount: 0,
  createdAt: now,
});

/** Rules 1-4 of the spec, the length limit and Mastodon's poll and media limits; nothing is read or written. */
/** The text without the hashtags moderators made unusable (lib/text withoutHashtags). */
export const usableText = async (parsed: ParsedText): Promise<ParsedText> => withoutHashtags(parsed, await recentUnusableTags());

export function checkRules(input: NewStatus): Checked {
  const text = input.status ?? '';
  const hasPoll = input.poll !== undefined && (input.poll.options !== undefined || input.poll.expiresIn !== undefined);
  if (text.trim() === '' && input.mediaIds.length === 0) throw invalid("Text can't be blank");
  if (input.mediaIds.length > MAX_MEDIA) throw invalid(`Cannot attach more than ${MAX_MEDIA} files`);
  if (input.mediaIds.length > 0 && hasPoll) throw invalid('Cannot attach both files and a poll');
  // The raw caps again, for callers that did not come through the endpoint's schema: counting costs more than linear time.
  if (text.length > RAW_CAPS.statusText || input.spoilerText.length > RAW_CAPS.spoilerText) throw invalid(`Text character limit of ${MAX_STATUS_LENGTH} exceeded`);
  const parsed = parseStatusText(text);
  if (statusLength(parsed, input.spoilerText) > MAX_STATUS_LENGTH) throw invalid(`Text character limit of ${MAX_STATUS_LENGTH} exceeded`);
  if (input.language !== undefined && !isLanguageCode(input.language)) throw invalid('Language is not a valid language');
  if (!hasPoll || !input.poll) return { text: parsed };
  const { options, expiresIn } = input.poll;
  if (options === undefined) throw invalid("Poll options can't be blank");
  if (expiresIn === undefined) throw invalid("Poll expires_in can't be blank");
  if (options.length < POLL_LIMITS.minOptions) throw invalid('Poll options must have more than one item');
  if (options.length > POLL_LIMITS.maxOptions) throw invalid(`Poll options can't contain more than ${POLL_LIMITS.maxOptions} items`);
  if (options.some((o) => o.trim() === '')) throw invalid("Poll options can't be blank");
  if (options.some((o) => [...o].length > POLL_LIMITS.maxOptionChars)) throw invalid(`Poll options cannot be longer than ${POLL_LIMITS.maxOptionChars} characters each`);
  if (new Set(options.map((o) => o.trim())).size !== options.length) throw invalid('Poll options contain duplicate items');
  if (expiresIn < POLL_LIMITS.minExpiresIn) throw invalid('Poll expires_at is too soon');
  if (expiresIn > POLL_LIMITS.maxExpiresIn) throw invalid('Poll expires_at is too far into the future');
  return { poll: { options: options.map((o) => o.trim()), expiresIn, multiple: input.poll.multiple, hideTotals: input.poll.hideTotals }, text: parsed };
}

/** Own, unattached, processed attachments only; read first so the error can say which rule broke. */
export async function checkMedia(author: Account, mediaIds: string[], reservedFor?: string): Promise<void> {
  if (mediaIds.length === 0) return;
  if (new Set(mediaIds).size !== mediaIds.length) throw invalid('media_ids contains duplicate items');
  const found = await mediaByIds(mediaIds);
  for (const id of mediaIds) {
    const media = found.get(id);
    if (!media || media.accountId !== author.id || (media.statusId && media.statusId !== reservedFor)) throw invalid(`media_ids ${id} is not one of your unattached media attachments`);
    if (media.state !== 'ready') throw invalid('Cannot attach files that have not finished processing. Try again in a moment!');
  }
}

/**
 * Mentions resolve to local accounts by username and to remote accounts by
 * `@user@domain`: known ones from storage, the first few unknown ones through
 * WebFinger and their actor, each briefly (lib/federation/mentions.ts); the
 * others stay plain text. A remote mention's `acct` is its handle, as Mastodon renders it.
 */
export async function resolveMentions(text: ParsedText): Promise<Map<string, ResolvedMention>> {
  const remoteHandles = remoteMentionHandles(text);
  const [accounts, remote] = await Promise.all([localAccountsByUsernames(localMentionUsernames(text)), remoteAccountsByAccts(remoteHandles)]);
  const resolved = new Map<string, ResolvedMention>();
  for (const account of accounts.values()) {
    resolved.set(localMentionKey(account.username), {
      id: account.id,
      username: account.username,
      acct: account.username,
      url: `${config.baseUrl}/@${account.username}`,
    });
  }
  const unknown = remoteHandles.filter((h) => !remote.has(`${h.username}@${h.domain}`.toLowerCase()));
  // Found under the handle as written: its account's domain may differ (WebFinger delegated to another host).
  if (unknown.length > 0) for (const [key, account] of await resolveHandles(unknown)) remote.set(key, account);
  for (const [key, account] of remote) {
    const domain = account.domain ?? '';
    resolved.set(remoteMentionKey(...splitHandleKey(key)), {
      id: account.id,
      username: account.username,
      acct: `${account.username}@${domain}`,
      url: account.url ?? account.uri ?? '',
    });
  }
  return resolved;
}

async function existingStatus(accountId: string, keyHash: string): Promise<Status | undefined> {
  const id = await idempotentStatusId(accountId, keyHash);
  if (!id) return undefined;
  const status = await statusById(id);
  // The first status was deleted since: as in Mastodon, the key still names it, so nothing new is posted.
  if (!status) throw notFound();
  return status;
}

export type Posted = { status: Status; created: boolean };

/**
 * How a scheduled status is published through this same path: its attachments
 * are reserved for it (its id), and its claim (the conditional delete of the
 * scheduled status) joins the posting transaction, so it is posted at most once;
 * a lost claim throws ClaimLost.
 */
export type PublishOptions = { scheduled?: Scheduled };

export class ClaimLost extends Error {}

export async function postStatus(author: Account, token: Pick<Token, 'appName' | 'appWebsite'>, input: NewStatus, publish: PublishOptions = {}): Promise<Posted> {
  const keyHash = input.idempotencyKey ? sha256(input.idempotencyKey) : undefined;
  if (keyHash) {
    const existing = await existingStatus(author.id, keyHash);
    if (existing) return retried(existing);
  }
  const checked = checkRules(input);
  const pollInput = checked.poll;
  // Hashtags moderators made unusable stay plain text (Mastodon's usable=false): read through a memo, no call per post.
  const [parsed] = await Promise.all([usableText(checked.text), checkMedia(author, input.mediaIds, publish.scheduled?.id)]);
  const parent = input.inReplyToId !== undefined ? await viewableStatus(input.inReplyToId, author) : undefined;
  if (parent?.reblogOfId) throw notFound();
  // A status the author may not quote is not found, as Mastodon answers every refusal (quoted_status_not_found).
  const quoted = input.quotedStatusId !== undefined ? await quotableStatus(input.quotedStatusId, author) : undefined;

  const resolved = await resolveMentions(parsed);
  const now = nowIso();
  const id = newId();
  const poll = pollInput && newPoll(id, author.id, pollInput, now);
  const status: Status = {
    id,
    uri: null,
    url: null,
    accountId: author.id,
    createdAt: now,
    reblogOfId: null,
    text: input.status ?? '',
    contentHtml: statusToHtml(parsed, resolved),
    spoilerText: input.spoilerText,
    // A content warning always marks the status sensitive (Mastodon's Status#set_sensitive); a sensitized author's media too.
    sensitive: storedSensitive((input.sensitive ?? author.sensitive) || input.spoilerText !== '', input.mediaIds.length, author),
    visibility: input.visibility ?? author.privacy,
    language: input.language?.toLowerCase() ?? author.language,
    inReplyToId: parent?.id ?? null,
    inReplyToAccountId: parent?.accountId ?? null,
    conversationId: parent?.conversationId ?? id,
    mentions: mentionedAccounts(parsed, resolved),
    ...tagged(hashtagSpellings(parsed)),
    mediaIds: input.mediaIds,
    pollId: poll?.id ?? null,
    applicationName: token.appName,
    applicationWebsite: token.appWebsite,
    repliesCount: 0,
    reblogsCount: 0,
    favouritesCount: 0,
    editedAt: null,
  };

  const visibility = status.visibility;
  status.quoteApprovalPolicy = storedQuotePolicy(input.quoteApprovalPolicy ?? author.quotePolicy ?? 'public', visibility);
  const quote = quoted ? quoteForNewStatus(status, quoted, author) : undefined;
  if (quote) {
    // A private mention may quote only someone it mentions (Mastodon's safeguard_private_mention_quote!).
    if (isDirect(status) && quoted && quoted.accountId !== author.id && !status.mentions.some((m) => m.id === quoted.accountId)) {
      throw invalid('Only mentioned users can be quoted in private mentions');
    }
    status.quote = { quotedStatusId: quote.quotedStatusId, quotedAccountId: quote.quotedAccountId, state: quote.state };
  }

  if (input.allowedMentions) {
    const allowed = new Set(input.allowedMentions);
    const unexpected = status.mentions.filter((m) => m.id !== author.id && !allowed.has(m.id)).map((m) => m.id);
    if (unexpected.length > 0) throw new UnexpectedMentions([...new Set(unexpected)]);
  }

  const written = await writeNewStatus({
    status,
    poll,
    listed: await listedInPublicTimelines(status, author),
    idempotencyKeyHash: keyHash,
    scheduled: publish.scheduled,
    author,
    searchIndex: searchIndexRecords(status, searchableByAnyone(status)),
    distributionDueAt: distributionDueAt(),
    quote,
  });
  if ('failed' in written) {
    switch (written.failed) {
      case 'claim-lost':
        throw new ClaimLost(`scheduled status ${publish.scheduled?.id ?? ''} already claimed`);
      case 'idempotency-key-taken': {
        // The same key raced this request and won: answer its status.
        const existing = keyHash ? await existingStatus(author.id, keyHash) : undefined;
        if (existing) return retried(existing);
        throw new Error(`posting status ${id}: idempotency key taken, but it names no status`);
      }
      case 'media-not-yours':
        throw invalid('media_ids must name your own media attachments that are not attached to another status');
      case 'reply-target-gone':
        throw notFound();
    }
  }
  if (quote && quoted) {
    await notifyQuoted(quote);
    await requestQuoteApproval(author, status, quoted, quote);
  }
  // The conversation is recorded before the fan-out and notifications that may read it.
  await recordConversation(status);
  await afterPosting(status);
  // A reply to another account is an interaction (the dashboard's measure, as favourites and reblogs).
  if (parent && parent.accountId !== author.id) await countDaily('interactions');
  return { status, created: true };
}

/** Direct statuses: each participant's conversation (lib/conversations); the status stands even if this fails. */
async function recordConversation(status: Status): Promise<void> {
  try {
    await recordDirectStatus(status);
  } catch (err) {
    log.error('conversation update after posting failed', { statusId: status.id, err });
  }
}

/**
 * The post answered again for its Idempotency-Key. A client retries when it heard nothing: if the first
 * attempt's distribution is still owed (its enqueue failed, or was lost), it is enqueued again now.
 */
async function retried(status: Status): Promise<Posted> {
  try {
    await redriveIfOwed(status.id);
  } catch (err) {
    // Still owed: the sweeper re-drives it.
    log.error('re-drive of a retried post failed', { statusId: status.id, err });
  }
  return { status, created: false };
}

/**
 * The distribution (followers' homes, streams, the Create, mention notifications: the fan-out's first page).
 * The status stands if the queue is briefly unavailable: its owed record, written with it, has the sweeper
 * re-drive it (lib/timelines/fanout_owed.ts).
 */
async function afterPosting(status: Status): Promise<void> {
  try {
    await enqueueDistribution(status.id);
  } catch (err) {
    log.error('enqueue after posting failed; the sweeper re-drives it', { queue: 'fanout', statusId: status.id, err });
  }
}
