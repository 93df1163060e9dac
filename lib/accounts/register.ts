// Registration of a local account, shared by POST /api/v1/accounts and the
// operator CLI: Mastodon's rules, every broken rule reported at once, then one
// transaction (username, e-mail, account, confirmation link); the instance's
// user count moves after it commits (lib/db/stats.ts).
import { countNamed } from '../db/daily_stats';
import { ROLES } from '../policy/roles';
import { z } from 'zod';
import { config } from '../config';
import { sha256 } from '../crypto';
import { accountByEmail, accountByUsername, confirmationRecord, createLocalAccount, type Account } from '../db/accounts';
import { actorKeysRecord, newActorKeyPair } from '../db/actor_keys';
import type { App } from '../db/apps';
import { instanceSettings, type InstanceSettings } from '../db/instance';
import { recordEmailDomainBlockAttempt } from '../db/sign_up_blocks';
import { signUpVerdict, type SignUpVerdict } from '../policy/sign_up';
import { countOnInstance } from '../db/stats';
import { expiresIn, nowIso } from '../db/table';
import type { Token } from '../db/tokens';
import { forbidden } from '../errors';
import { newId, secretToken } from '../ids';
import { hashPassword } from '../password';
import { enqueue } from '../queue';
import { log } from '../log';
import { issueAccessToken } from '../tokens';
import { confirmationMail } from './confirmation';
import { charLength, describe, Violations } from './violations';
import { isLanguageCode } from '../text/languages';
import { USERNAME_MAX } from '../text/limits';
import { queueStaffNotice } from '../queue/staff_notice';

export type RegistrationInput = {
  username: string;
  email: string;
  password: string;
  locale?: string | null;
  reason?: string | null;
  agreement?: boolean;
};

export type RegistrationOptions = {
  /** The application registering the account; a token for it is issued when given. */
  app?: App;
  /** Scopes of that token (default: the application's registered scopes, as Mastodon). */
  scopes?: string[];
  /** Override the instance policy (e-mail confirmation setting, registration mode). */
  confirmed?: boolean;
  approved?: boolean;
  admin?: boolean;
  /** Operator path (CLI): no agreement needed, and closed registrations do not apply. */
  skipRules?: boolean;
  /** The address the sign-up came from: the operator's IP rules apply to it, and it is kept for moderators (Admin::Account `ip`); none from the CLI. */
  ip?: string;
};

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 72;
export const REASON_MAX = 1000;
export const EMAIL_MAX = 254;
export const CONFIRMATION_TTL_SECONDS = 24 * 60 * 60;

const USERNAME_FORMAT = /^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$/i;
/** Devise's e-mail check with a dot in the domain, and whatever the mail worker accepts. */
const EMAIL_FORMAT = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const deliverable = z.string().email();
export const isEmail = (email: string) => EMAIL_FORMAT.test(email) && deliverable.safeParse(email).success;
/** A BCP 47-shaped tag: `en`, `pt-BR`, `zh-Hant`, `es-419`. */
const LOCALE_FORMAT = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;

/**
 * The locale kept for a new login: a language tag whose language we know, else none. Mastodon's User normalizes a
 * locale it has no translation for to nil rather than refusing the sign-up.
 */
export const knownLocale = (locale: string | null | undefined): string | null => {
  const tag = locale?.trim() ?? '';
  return LOCALE_FORMAT.test(tag) && isLanguageCode(tag.split('-')[0]!) ? tag : null;
};

/** Names that would impersonate the staff or the instance itself (Mastodon's defaults and more). */
const OWNER = ROLES.find((r) => r.name === 'Owner')!;

const RESERVED = ['admin', 'administrator', 'root', 'support', 'help', 'webmaster', 'mod', 'moderator', 'owner', 'staff', 'postmaster', 'hostmaster', 'abuse', 'security', 'noreply', 'no-reply', 'instance'];

export const isReservedUsername = (username: string): boolean => {
  const name = username.toLowerCase();
  const host = config.domain.split(':')[0]?.toLowerCase() ?? '';
  return RESERVED.includes(name) || name === host || name === config.domain.toLowerCase();
};

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** Rules that need no database: every violation of the input, in Mastodon's terms. */
export function checkRegistration(input: RegistrationInput, opts: { skipRules?: boolean } = {}): Violations {
  const v = new Violations();
  const { username, password } = input;
  const email = normalizeEmail(input.email);

  if (username === '') v.add('username', 'Username', 'ERR_BLANK', describe.blank);
  else if (charLength(username) > USERNAME_MAX) v.add('username', 'Username', 'ERR_TOO_LONG', describe.tooLong(USERNAME_MAX));
  else if (!USERNAME_FORMAT.test(username)) v.add('username', 'Username', 'ERR_INVALID', 'must contain only letters, numbers, underscores, dots and dashes');
  else if (isReservedUsername(username)) v.add('username', 'Username', 'ERR_RESERVED', describe.reserved);

  // Mastodon validates presence and the address's form independently: a blank one breaks both.
  if (email === '') v.add('email', 'E-mail address', 'ERR_BLANK', describe.blank).add('email', 'E-mail address', 'ERR_INVALID', describe.invalid);
  else if (email.length > EMAIL_MAX) v.add('email', 'E-mail address', 'ERR_TOO_LONG', describe.tooLong(EMAIL_MAX));
  else if (!isEmail(email)) v.add('email', 'E-mail address', 'ERR_INVALID', describe.invalid);

  if (password === '') v.add('password', 'Password', 'ERR_BLANK', describe.blank);
  else if (charLength(password) < PASSWORD_MIN) v.add('password', 'Password', 'ERR_TOO_SHORT', describe.tooShort(PASSWORD_MIN));
  else if (charLength(password) > PASSWORD_MAX) v.add('password', 'Password', 'ERR_TOO_LONG', describe.tooLong(PASSWORD_MAX));

  if (!opts.skipRules && input.agreement !== true) v.add('agreement', 'Service agreement', 'ERR_ACCEPTED', describe.accepted);

  if (input.reason && charLength(input.reason) > REASON_MAX) v.add('reason', 'Reason', 'ERR_TOO_LONG', describe.tooLong(REASON_MAX));
  return v;
}

const taken = (v: Violations, attribute: 'username' | 'email') =>
  v.add(attribute, attribute === 'username' ? 'Username' : 'E-mail address', 'ERR_TAKEN', describe.taken);

/**
 * Registers a local account. Throws 403 when registrations are closed (API path)
 * and 422 with Mastodon's `details` when any rule is broken; writes nothing then.
 */
export async function registerAccount(
  input: RegistrationInput,
  opts: RegistrationOptions,
): Promise<{ account: Account; token?: { raw: string; token: Token } }> {
  const settings: InstanceSettings = await instanceSettings();
  if (!opts.skipRules && settings.registrationsMode === 'none') throw forbidden();

  const violations = checkRegistration(input, opts);
  const email = normalizeEmail(input.email);
  // The operator's sign-up rules (lib/policy/sign_up.ts); the CLI's accounts are the operator's own.
  const verdict: SignUpVerdict | undefined = opts.skipRules || violations.has('email') ? undefined : await signUpVerdict(email, opts.ip ?? '');
  // As Mastodon's AppSignUpService: a sign-up from a blocked range is not permitted at all.
  if (verdict?.ipBlocked) throw forbidden();
  if (verdict && verdict.emailDomainBlocks.length > 0) {
    violations.add('email', 'E-mail address', 'ERR_BLOCKED', describe.blocked);
    await recordRefusedAttempts(verdict, opts.ip ?? '');
  }
  // The transaction below is the real guard; these reads let one answer name both duplicates.
  const [byUsername, byEmail] = await Promise.all([
    violations.has('username') ? undefined : accountByUsername(input.username),
    violations.has('email') ? undefined : accountByEmail(email),
  ]);
  if (byUsername) taken(violations, 'username');
  // A canonical e-mail block answers as an address in use, as Mastodon's validator words it.
  if (byEmail || (verdict?.canonicalEmailBlocked && !violations.has('email'))) taken(violations, 'email');
  violations.check({ details: true });

  const confirmed = opts.confirmed ?? !settings.requireEmailConfirmation;
  const approved = opts.approved ?? (settings.registrationsMode !== 'approved' && !verdict?.requiresApproval);
  const id = newId();
  const confirmationToken = confirmed ? undefined : secretToken();
  // The account is a fediverse actor from its first moment: its key pair is written in the same transaction.
  const extra = [
    actorKeysRecord(id, await newActorKeyPair()),
    ...(confirmationToken
      ? [confirmationRecord({ tokenHash: sha256(confirmationToken), accountId: id, email, createdAt: nowIso(), expiresAt: expiresIn(CONFIRMATION_TTL_SECONDS) })]
      : []),
  ];

  const created = await createLocalAccount(
    {
      id,
      username: input.username,
      email,
      passwordHash: await hashPassword(input.password),
      confirmedAt: confirmed ? nowIso() : null,
      approved,
      admin: opts.admin ?? false,
      // An account made an admin from the command line is the instance's Owner (lib/policy/roles.ts).
      roleId: opts.admin ? OWNER.id : null,
      locale: knownLocale(input.locale),
      reason: input.reason?.trim() || null,
      createdByClientId: opts.app?.clientId ?? null,
      signUpIp: opts.ip || null,
    },
    extra,
  );
  if (!created.ok) throw taken(new Violations(), created.taken).error({ details: true });
  // The dashboard's sources: which application a sign-up came through (Mastodon's 'web' without one).
  await Promise.all([countOnInstance('userCount', 1), countNamed('source', opts.app?.name ?? 'web')]);
  // The staff are told of a sign-up (admin.sign_up), off the request path; not of the operator's own (the CLI).
  if (!opts.skipRules) await queueStaffNotice({ notice: 'admin.sign_up', accountId: id });

  if (confirmationToken) {
    try {
      await enqueue('mail', confirmationMail(email, input.username, confirmationToken));
    } catch (err) {
      // The account exists either way; failing the request now would only make a retry hit "taken".
      log.error('registration: confirmation mail not queued', { accountId: id, err });
    }
  }
  const token = opts.app ? await issueAccessToken(opts.app, created.account.id, opts.scopes ?? opts.app.scopes) : undefined;
  return { account: created.account, token };
}

/** Counts the refusal in each refusing block's history (Admin::EmailDomainBlock `history`); a failure to count refuses nothing. */
async function recordRefusedAttempts(verdict: SignUpVerdict, ip: string): Promise<void> {
  const day = nowIso().slice(0, 10);
  try {
    await Promise.all(verdict.emailDomainBlocks.map((b) => recordEmailDomainBlockAttempt(b.id, day, ip)));
  } catch (err) {
    log.warn('registration: refused attempt not counted', { err });
  }
}

const bounded = z.string({ invalid_type_error: 'must be a string' }).max(10_000, 'is too long (maximum is 10000 characters)');

/** The API's input: shapes only (the rules above give Mastodon's answers); missing text is blank. */
export const registrationInput = z.object({
  username: bounded.optional().default(''),
  email: bounded.optional().default(''),
  password: bounded.optional().default(''),
  // Rails' acceptance rule: true, "true" or "1"; anything else is not consent.
  agreement: z.unknown().optional().transform((v) => v === true || v === 'true' || v === '1' || v === 1),
  locale: bounded.nullable().optional(),
  reason: bounded.nullable().optional(),
});
