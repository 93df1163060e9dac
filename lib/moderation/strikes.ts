// Strikes (Mastodon's AccountWarning): every moderator action on an account leaves one, as Admin::AccountAction
// does; the account is told of it (a `moderation_warning` notification, streamed and pushed, and an e-mail) when
// the moderator asks for it (`send_email_notification`) and the account is local. The account may appeal a strike
// for Appeal::MAX_STRIKE_AGE (20 days); what a decided appeal does is ./appeals.ts.
import type { Account } from '../db/accounts';
import { createNotification, type Notification } from '../db/notifications';
import { putAppeal, putStrike, strikeById, type Strike, type StrikeAction } from '../db/strikes';
import { nowIso } from '../db/table';
import { notFound, unprocessable } from '../errors';
import { config } from '../config';
import { newId } from '../ids';
import { log } from '../log';
import { offerPush } from '../push/offer';
import { enqueue } from '../queue';
import { publishNotification } from '../streaming/publish';

/** Mastodon's Appeal::MAX_STRIKE_AGE: a strike older than this may not be appealed. */
export const APPEAL_MAX_STRIKE_AGE_DAYS = 20;
/** Mastodon's appeal text limit. */
export const APPEAL_TEXT_MAX = 2_000;

export type StrikeInput = { action: StrikeAction; text: string; reportId: string | null; statusIds: string[]; notify: boolean };

/** Records the strike of an action on `target`, and tells the account when asked to. */
export async function recordStrike(moderator: Pick<Account, 'id'>, target: Account, input: StrikeInput): Promise<Strike> {
  const strike: Strike = {
    id: newId(),
    accountId: target.id,
    moderatorId: moderator.id,
    action: input.action,
    text: input.text,
    reportId: input.reportId,
    statusIds: input.statusIds,
    createdAt: nowIso(),
    overruledAt: null,
    appeal: null,
  };
  await putStrike(strike);
  if (input.notify && target.domain === null) await tellOfStrike(target, strike);
  return strike;
}

async function tellOfStrike(target: Account, strike: Strike): Promise<void> {
  // As Mastodon's LocalNotificationWorker: the account is the notification's own `account`; no policy holds it back.
  const notification: Notification = {
    id: newId(),
    type: 'moderation_warning',
    accountId: target.id,
    fromAccountId: target.id,
    statusId: null,
    createdAt: strike.createdAt,
    strikeId: strike.id,
  };
  // The once-key is (recipient, type, actor, status): a strike per notification needs its own, so the strike id
  // stands in for the status in it.
  if (await createNotification({ ...notification, statusId: strike.id })) {
    await publishNotification({ ...notification, statusId: strike.id }, target);
    await offerPush(notification);
  }
  if (target.email) {
    try {
      await enqueue('mail', warningMail(target, strike));
    } catch (err) {
      log.error('strike: warning mail not queued', { strikeId: strike.id, err });
    }
  }
}

const ACTION_SUBJECTS: Record<StrikeAction, string> = {
  none: 'You have received a warning',
  disable: 'Your account has been disabled',
  mark_statuses_as_sensitive: 'Your posts have been marked as sensitive',
  delete_statuses: 'Your posts have been removed',
  sensitive: 'Your posts will be marked as sensitive from now on',
  silence: 'Your account has been limited',
  suspend: 'Your account has been suspended',
};

function warningMail(target: Account, strike: Strike) {
  const host = config.domain.split(':')[0];
  const link = `${config.baseUrl}/disputes/strikes/${strike.id}`;
  return {
    to: target.email!,
    subject: `${ACTION_SUBJECTS[strike.action]} (${host})`,
    text: [
      `Hello ${target.username},`,
      '',
      ACTION_SUBJECTS[strike.action] + '.',
      ...(strike.text ? ['', strike.text] : []),
      '',
      `You may appeal this decision within ${APPEAL_MAX_STRIKE_AGE_DAYS} days: ${link}`,
    ].join('\n'),
  };
}

/** The strike, for its own account only (404 for anyone else, as a strike of another is not theirs to see). */
export async function ownStrike(account: Pick<Account, 'id'>, strikeId: string): Promise<Strike> {
  const strike = /^\d{1,30}$/.test(strikeId) ? await strikeById(strikeId) : undefined;
  if (!strike || strike.accountId !== account.id) throw notFound();
  return strike;
}

export const mayAppeal = (strike: Strike, now = Date.now()): boolean =>
  strike.appeal === null && now - Date.parse(strike.createdAt) < APPEAL_MAX_STRIKE_AGE_DAYS * 86_400_000;

/** The account appeals its strike: 422 naming `text` when empty or too long, or when it may not (appealed, too old). */
export async function appealStrike(account: Pick<Account, 'id'>, strikeId: string, text: string): Promise<Strike> {
  const strike = await ownStrike(account, strikeId);
  const trimmed = text.trim();
  if (!trimmed) throw unprocessable("Validation failed: Text can't be blank");
  if (Array.from(trimmed).length > APPEAL_TEXT_MAX) throw unprocessable(`Validation failed: Text is too long (maximum is ${APPEAL_TEXT_MAX} characters)`);
  if (strike.appeal !== null) throw unprocessable('Validation failed: Strike has already been appealed');
  if (!mayAppeal(strike)) throw unprocessable('Validation failed: Strike cannot be appealed after 20 days');
  const appeal = { id: newId(), text: trimmed, state: 'pending' as const, createdAt: nowIso(), decidedAt: null, decidedBy: null };
  if (!(await putAppeal(strike.id, appeal))) throw unprocessable('Validation failed: Strike has already been appealed');
  return { ...strike, appeal };
}
