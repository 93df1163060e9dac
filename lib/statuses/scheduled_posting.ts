// Scheduling a status and publishing the due ones (./scheduled.ts: what a scheduled status is): both
// run the rules of posting (./create.ts), so only POST /api/v1/statuses and the sweeper carry them.
import type { Account } from '../db/accounts';
import { accountById } from '../db/accounts';
import { appByClientId } from '../db/apps';
import { dueScheduled, removeDueEntry, removeScheduled, scheduledById, type Scheduled, type ScheduledDue, writeScheduled } from '../db/scheduled';
import { nowIso } from '../db/table';
import type { Token } from '../db/tokens';
import { HttpError, notFound, unprocessable } from '../errors';
import { newId } from '../ids';
import { log } from '../log';
import { viewableStatus } from '../policy';
import { checkMedia, checkRules, ClaimLost, postStatus, type NewStatus } from './create';
import { quotableStatus } from './quotes';
import { checkScheduledAt } from './scheduled';

/** The posting application's id (rendered as `application_id`). */
async function applicationId(token: Token): Promise<string | null> {
  const app = await appByClientId(token.clientId);
  return app?.id ?? null;
}

export async function scheduleStatus(author: Account, token: Token, input: NewStatus & { scheduledAt: string }): Promise<Scheduled> {
  const scheduledAt = checkScheduledAt(input.scheduledAt);
  const { poll } = checkRules(input);
  await checkMedia(author, input.mediaIds);
  if (input.inReplyToId !== undefined) {
    const parent = await viewableStatus(input.inReplyToId, author);
    if (parent.reblogOfId) throw notFound();
  }
  // Refused now as posting would refuse it (404); posting checks it again, as the quoted status may change meanwhile.
  if (input.quotedStatusId !== undefined) await quotableStatus(input.quotedStatusId, author);
  const scheduled: Scheduled = {
    id: newId(),
    accountId: author.id,
    scheduledAt,
    appName: token.appName,
    appWebsite: token.appWebsite,
    appId: await applicationId(token),
    createdAt: nowIso(),
    params: {
      text: input.status ?? null,
      poll: poll ? { options: poll.options, expires_in: poll.expiresIn, multiple: poll.multiple, hide_totals: poll.hideTotals } : null,
      media_ids: input.mediaIds.length > 0 ? input.mediaIds : null,
      sensitive: (input.sensitive ?? author.sensitive) || input.spoilerText !== '',
      visibility: input.visibility ?? author.privacy,
      idempotency: input.idempotencyKey ?? null,
      scheduled_at: null,
      spoiler_text: input.spoilerText === '' ? null : input.spoilerText,
      in_reply_to_id: input.inReplyToId ?? null,
      language: input.language?.toLowerCase() ?? null,
      quoted_status_id: input.quotedStatusId ?? null,
      quote_approval_policy: input.quoteApprovalPolicy ?? null,
    },
  };
  // Reserved: attached to the scheduled status id, so no other status can take them.
  const written = await writeScheduled(scheduled, input.mediaIds);
  if ('failed' in written) throw unprocessable('Validation failed: media_ids must name your own media attachments that are not attached to another status');
  return scheduled;
}

export type PublishOutcome = 'published' | 'claimed-elsewhere' | 'discarded' | 'gone' | 'failed';

/**
 * Publishes one due scheduled status through postStatus. The claim (conditional
 * delete of the scheduled item and its due entry) is part of the posting
 * transaction: two overlapping sweeps can both try, only one posts.
 */
export async function publishScheduled(due: ScheduledDue, now: number = Date.now()): Promise<PublishOutcome> {
  const { accountId, id } = due;
  const scheduled = await scheduledById(accountId, id, true);
  if (!scheduled || scheduled.scheduledAt !== due.scheduledAt) {
    // A leftover entry (published, cancelled or moved meanwhile): the current one, if any, has another key.
    await removeDueEntry(due.scheduledAt, id);
    return 'gone';
  }
  if (Date.parse(scheduled.scheduledAt) > now) return 'gone';
  const author = await accountById(accountId);
  const p = scheduled.params;
  if (!author) {
    await removeScheduled(scheduled);
    return 'discarded';
  }
  try {
    await postStatus(
      author,
      { appName: scheduled.appName, appWebsite: scheduled.appWebsite },
      {
        status: p.text ?? undefined,
        mediaIds: p.media_ids ?? [],
        poll: p.poll ? { options: p.poll.options, expiresIn: p.poll.expires_in, multiple: p.poll.multiple, hideTotals: p.poll.hide_totals } : undefined,
        inReplyToId: p.in_reply_to_id ?? undefined,
        sensitive: p.sensitive ?? undefined,
        spoilerText: p.spoiler_text ?? '',
        visibility: p.visibility ?? undefined,
        language: p.language ?? undefined,
        quotedStatusId: p.quoted_status_id ?? undefined,
        quoteApprovalPolicy: p.quote_approval_policy ?? undefined,
      },
      { scheduled },
    );
    return 'published';
  } catch (err) {
    if (err instanceof ClaimLost) return 'claimed-elsewhere';
    if (err instanceof HttpError) {
      // No longer postable (the replied-to status is gone, an attachment was removed, the quote is refused now): discarded, as Mastodon does.
      log.warn('scheduled status discarded', { id: scheduled.id, accountId, error: err.message });
      await removeScheduled(scheduled);
      return 'discarded';
    }
    // A transaction conflict with an overlapping sweep, or a transient failure: the due entry stays for the next run.
    const still = await scheduledById(accountId, id, true);
    if (!still) return 'claimed-elsewhere';
    log.error('publishing scheduled status failed', { id: scheduled.id, accountId, err });
    return 'failed';
  }
}

/** Due entries read per sweeper run at most; the rest follow on the next runs. */
export const MAX_DUE_PER_RUN = 2000;
const PARALLEL_PUBLISH = 10;

export type PublishResult = { due: number; published: number };

export async function publishDueScheduled(now: number = Date.now()): Promise<PublishResult> {
  const due = await dueScheduled(now, MAX_DUE_PER_RUN);
  let published = 0;
  for (let i = 0; i < due.length; i += PARALLEL_PUBLISH) {
    const outcomes = await Promise.all(due.slice(i, i + PARALLEL_PUBLISH).map((d) => publishScheduled(d, now)));
    published += outcomes.filter((o) => o === 'published').length;
  }
  if (published > 0) log.info('sweeper: scheduled statuses published', { published, due: due.length });
  return { due: due.length, published };
}
