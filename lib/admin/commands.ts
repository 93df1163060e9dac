// The operator's commands (in the spirit of Mastodon's tootctl), as plain
// functions over lib/: each answers the text to print, or throws AdminError
// with a message for the operator (unknown user, bad value). lib/admin/cli.ts
// parses the command line and calls them.
import { randomBytes } from 'node:crypto';
import { registerAccount } from '../accounts/register';
import { accountByUsername, accountsByIds, approveAccount, pendingAccounts, setRole, updateAccount, type Account } from '../db/accounts';
import { localAccountIdPages, reindexFacets } from '../db/admin_accounts';
import { allPeers, domainAccountIdsPage } from '../db/instance_domain_blocks';
import { permissionNames, roleCan, roleNamed, roleOf, ROLES } from '../policy/roles';
import { instanceSettings, registrationModes, updateInstanceSettings, type InstanceSettings } from '../db/instance';
import { HttpError } from '../errors';
import { isLanguageCode } from '../text/languages';
import { readFile } from 'node:fs/promises';
import { allEmojis, deleteEmoji, emojisByShortcodes, putEmoji } from '../db/emojis';
import { EMOJI_MAX_BYTES, emojiKeys, processEmojiImage, SHORTCODE } from '../emojis';
import { deleteMediaQuietly, mediaUrl, putMedia } from '../media/storage';
import { deleteApp } from '../db/apps';
import { registerApp } from '../apps';
import { issueAccessToken } from '../tokens';
import { deletePushSubscription } from '../db/push_subscriptions';
import { deleteAppTokens, tokensOfAccount, tokensOfApp } from '../db/tokens';
import { endStreamsOfTokens, type Ended } from '../streaming/withdraw';

export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const onOff = (b: boolean) => (b ? 'on' : 'off');

async function findAccount(username: string): Promise<Account> {
  const name = username.trim().replace(/^@/, '');
  const account = name === '' ? undefined : await accountByUsername(name);
  if (!account || account.domain !== null) throw new AdminError(`No local account named ${username}`);
  return account;
}

// ---- accounts ----

export type CreateAccountOptions = {
  username: string;
  email: string;
  password?: string;
  admin?: boolean;
  confirmed?: boolean;
  approve?: boolean;
};

/** A generated password: 24 URL-safe characters (144 bits). */
const generatePassword = () => randomBytes(18).toString('base64url');

/**
 * Creates a local account through the same rules as registration (minus the
 * agreement and closed registrations). Without --confirmed / --approve the
 * instance's policy applies, as for any sign-up.
 */
export async function createAccount(opts: CreateAccountOptions): Promise<{ account: Account; password: string; output: string }> {
  const password = opts.password ?? generatePassword();
  let account: Account;
  try {
    ({ account } = await registerAccount(
      { username: opts.username, email: opts.email, password },
      {
        skipRules: true,
        admin: opts.admin ?? false,
        ...(opts.confirmed ? { confirmed: true } : {}),
        ...(opts.approve ? { approved: true } : {}),
      },
    ));
  } catch (err) {
    if (err instanceof HttpError) throw new AdminError(err.message);
    throw err;
  }
  const lines = [`Created ${account.username} (id ${account.id})${account.admin ? ' as an admin' : ''}.`];
  if (!opts.password) lines.push(`New password: ${password}`);
  if (!account.confirmedAt) lines.push('The e-mail address is not confirmed yet: a confirmation link was sent (or run `accounts confirm`).');
  if (!account.approved) lines.push('The account awaits approval (run `accounts approve`).');
  return { account, password, output: lines.join('\n') };
}

export async function confirmAccount(username: string): Promise<string> {
  const account = await findAccount(username);
  if (account.confirmedAt) return `${account.username} was already confirmed.`;
  await updateAccount(account.id, { confirmedAt: new Date().toISOString() });
  return `Confirmed ${account.username}.`;
}

/**
 * A new access token of `username`'s, for the operator's scripts (the deploy workflow's smoke test,
 * infra/deploy/smoke.ts): an application of its own named "tootless operator", the token printed once (the
 * table keeps its hash). Revoked as any token: `apps delete <client_id>`, or by the user in the app list.
 */
export async function issueOperatorToken(username: string, scopes: string[]): Promise<string> {
  const account = await findAccount(username);
  const { app } = await registerApp({ client_name: 'tootless operator', redirect_uris: ['urn:ietf:wg:oauth:2.0:oob'], scopes, website: null });
  const { raw } = await issueAccessToken(app, account.id, scopes);
  return raw;
}

export async function approve(username: string): Promise<string> {
  const account = await findAccount(username);
  if (account.approved) return `${account.username} was already approved.`;
  await approveAccount(account.id);
  return `Approved ${account.username}.`;
}

export async function listPending(): Promise<string> {
  const pending = await pendingAccounts(100);
  if (pending.length === 0) return 'No account awaits approval.';
  return pending
    .map((a) => [a.username, a.email ?? '', a.createdAt, a.reason ? `reason: ${a.reason.replace(/\s+/g, ' ')}` : ''].filter(Boolean).join('  '))
    .join('\n');
}

const endedLine = (ended: Ended): string[] => {
  const total = ended.websockets + ended.sse;
  return total > 0 ? [`Ended ${total} open stream${total === 1 ? '' : 's'} (${ended.websockets} WebSocket, ${ended.sse} server-sent events).`] : [];
};

/**
 * Disables or enables a login. Disabling keeps the tokens (enabling makes them
 * work again, as in Mastodon) but ends every open stream of them at once; the
 * API already refuses their requests.
 */
export async function setDisabled(username: string, disabled: boolean): Promise<string> {
  const account = await findAccount(username);
  const name = account.username;
  if (!disabled) {
    if (!account.disabled) return `${name} was already enabled.`;
    await updateAccount(account.id, { disabled: false });
    return `Enabled the login of ${name}.`;
  }
  if (!account.disabled) await updateAccount(account.id, { disabled: true });
  // Even when it was disabled already: a previous run may have stopped before it ended the streams.
  const ended = await endStreamsOfTokens((await tokensOfAccount(account.id)).map((t) => t.id));
  return [account.disabled ? `${name} was already disabled.` : `Disabled the login of ${name}.`, ...endedLine(ended)].join('\n');
}

/** Gives a local account a role (Moderator, Admin, Owner, by name or id) or takes it away (`none`). */
export async function setAccountRole(username: string, roleName: string): Promise<string> {
  const account = await findAccount(username);
  const none = ['none', 'user', 'everyone'].includes(roleName.trim().toLowerCase());
  const role = none ? undefined : roleNamed(roleName);
  if (!none && !role) throw new AdminError(`No role named ${roleName} (one of ${ROLES.map((r) => r.name.toLowerCase()).join(', ')}, or none)`);
  const administrator = role ? roleCan(role, 'administrator') : false;
  await setRole(account.id, role?.id ?? null, administrator);
  return role ? `${account.username} is now ${role.name} (${permissionNames(role).join(', ')}).` : `${account.username} has no role now.`;
}

export async function showAccount(username: string): Promise<string> {
  const a = await findAccount(username);
  return [
    `username:      ${a.username}`,
    `id:            ${a.id}`,
    `e-mail:        ${a.email ?? ''}`,
    `created:       ${a.createdAt}`,
    `confirmed:     ${a.confirmedAt ?? 'no'}`,
    `approved:      ${yesNo(a.approved)}`,
    `disabled:      ${yesNo(a.disabled)}`,
    `role:          ${roleOf(a).name || 'none'}`,
    `silenced:      ${a.silencedAt ?? 'no'}`,
    `suspended:     ${a.suspendedAt ?? 'no'}`,
    `last sign-in:  ${a.lastSignInAt ?? 'never'} (${a.signInCount} sign-ins)`,
    `statuses:      ${a.statusesCount}, followers: ${a.followersCount}, following: ${a.followingCount}`,
    ...(a.reason ? [`reason:        ${a.reason}`] : []),
  ].join('\n');
}

// ---- applications ----

/**
 * Deletes an OAuth application with every access token it issued (their push
 * subscriptions too) and ends their open streams. The app goes first, so no new
 * token can be issued for it meanwhile (the token endpoint authenticates the client).
 */
export async function deleteAppCommand(clientId: string): Promise<string> {
  const app = await deleteApp(clientId.trim());
  if (!app) throw new AdminError(`No application with client_id ${clientId}`);
  const tokens = await tokensOfApp(app.clientId);
  await deleteAppTokens(app.clientId, tokens);
  await Promise.all(tokens.flatMap((t) => (t.accountId ? [deletePushSubscription(t.accountId, t.tokenId)] : [])));
  const ended = await endStreamsOfTokens(tokens.map((t) => t.tokenId));
  return [`Deleted the application ${app.name} (${app.clientId}) and its ${tokens.length} access token${tokens.length === 1 ? '' : 's'}.`, ...endedLine(ended)].join('\n');
}

// ---- settings ----

export function describeSettings(s: InstanceSettings): string {
  return [
    `registrations:       ${s.registrationsMode}`,
    `email-confirmation:  ${onOff(s.requireEmailConfirmation)}`,
    `public-preview:      ${onOff(s.publicPreview)}`,
    `domain-blocks-public: ${onOff(s.domainBlocksPublic)}`,
    `authorized-fetch:    ${onOff(s.authorizedFetch)}`,
    `trendable-by-default: ${onOff(s.trendableByDefault)}`,
    `limited-federation:  ${onOff(s.limitedFederation)}`,
    `title:               ${s.title}`,
    `short-description:   ${s.shortDescription}`,
    `description:         ${s.description}`,
    `contact-email:       ${s.contactEmail}`,
    `contact-username:    ${s.contactUsername ?? ''}`,
    `languages:           ${s.languages.join(',')}`,
    `status-page-url:     ${s.statusPageUrl ?? ''}`,
    `rules:${s.rules.length === 0 ? '               (none)' : ''}`,
    ...s.rules.map((r) => `  ${r.id}. ${r.text}`),
  ].join('\n');
}

export const showSettings = async () => describeSettings(await instanceSettings());

const switchValue = (key: string, value: string): boolean => {
  const v = value.trim().toLowerCase();
  if (['on', 'true', 'yes', '1'].includes(v)) return true;
  if (['off', 'false', 'no', '0'].includes(v)) return false;
  throw new AdminError(`${key} must be on or off, not ${JSON.stringify(value)}`);
};

const bounded = (key: string, value: string, max: number, opts: { blank?: boolean } = {}): string => {
  const v = value.trim();
  if (!opts.blank && v === '') throw new AdminError(`${key} can't be blank`);
  if ([...v].length > max) throw new AdminError(`${key} is too long (maximum is ${max} characters)`);
  return v;
};

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** The settings `settings set <key> <value>` knows, each with its check. */
const SETTERS: Record<string, (value: string) => Promise<Partial<Parameters<typeof updateInstanceSettings>[0]>>> = {
  registrations: async (value) => {
    const mode = registrationModes.find((m) => m === value.trim().toLowerCase());
    if (!mode) throw new AdminError(`registrations must be one of ${registrationModes.join(', ')}, not ${JSON.stringify(value)}`);
    return { registrationsMode: mode };
  },
  'email-confirmation': async (value) => ({ requireEmailConfirmation: switchValue('email-confirmation', value) }),
  'public-preview': async (value) => ({ publicPreview: switchValue('public-preview', value) }),
  'domain-blocks-public': async (value) => ({ domainBlocksPublic: switchValue('domain-blocks-public', value) }),
  'authorized-fetch': async (value) => ({ authorizedFetch: switchValue('authorized-fetch', value) }),
  'trendable-by-default': async (value) => ({ trendableByDefault: switchValue('trendable-by-default', value) }),
  'limited-federation': async (value) => ({ limitedFederation: switchValue('limited-federation', value) }),
  title: async (value) => ({ title: bounded('title', value, 200) }),
  'short-description': async (value) => ({ shortDescription: bounded('short-description', value, 500, { blank: true }) }),
  description: async (value) => ({ description: bounded('description', value, 10_000, { blank: true }) }),
  'contact-email': async (value) => {
    const email = bounded('contact-email', value, 254, { blank: true });
    if (email !== '' && !EMAIL.test(email)) throw new AdminError(`contact-email is not an e-mail address: ${JSON.stringify(value)}`);
    return { contactEmail: email };
  },
  'contact-username': async (value) => {
    const name = value.trim().replace(/^@/, '');
    if (name === '' || name.toLowerCase() === 'none') return { contactUsername: null };
    const account = await findAccount(name);
    return { contactUsername: account.username };
  },
  languages: async (value) => {
    const codes = [...new Set(value.split(/[\s,]+/).map((c) => c.trim().toLowerCase()).filter(Boolean))];
    const bad = codes.filter((c) => !isLanguageCode(c));
    if (codes.length === 0 || bad.length > 0) throw new AdminError(`languages must be ISO 639-1 codes separated by commas${bad.length ? ` (not ${bad.join(', ')})` : ''}`);
    return { languages: codes };
  },
  'status-page-url': async (value) => {
    const v = value.trim();
    if (v === '' || v.toLowerCase() === 'none') return { statusPageUrl: null };
    if (!isWebUrl(v) || v.length > 2000) throw new AdminError(`status-page-url must be an http(s) address, not ${JSON.stringify(value)}`);
    return { statusPageUrl: v };
  },
};

const isWebUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
};

export const SETTING_KEYS = [...Object.keys(SETTERS), 'rules'];

export async function setSetting(key: string, value: string): Promise<string> {
  const setter = SETTERS[key];
  if (!setter) {
    if (key === 'rules') throw new AdminError('Rules are changed with `settings rules add <text>` and `settings rules remove <id>`');
    throw new AdminError(`Unknown setting ${JSON.stringify(key)}; known: ${SETTING_KEYS.join(', ')}`);
  }
  const changes = await setter(value);
  const updated = await updateInstanceSettings(changes);
  return describeSettings(updated);
}

export const RULE_MAX = 300;

export async function addRule(text: string): Promise<string> {
  const ruleText = bounded('rule', text, RULE_MAX);
  const { rules } = await instanceSettings();
  const next = String(rules.reduce((max, r) => Math.max(max, Number(r.id) || 0), 0) + 1);
  const updated = await updateInstanceSettings({ rules: [...rules, { id: next, text: ruleText }] });
  return describeSettings(updated);
}

export async function removeRule(id: string): Promise<string> {
  const { rules } = await instanceSettings();
  if (!rules.some((r) => r.id === id.trim())) throw new AdminError(`No rule with id ${JSON.stringify(id)}`);
  const updated = await updateInstanceSettings({ rules: rules.filter((r) => r.id !== id.trim()) });
  return describeSettings(updated);
}

// ---- custom emoji (issue 4) ----

export type AddEmojiOptions = { category?: string; hidden?: boolean };
const EMOJI_PROBLEMS = {
  size: `Image too large (the limit is ${EMOJI_MAX_BYTES / 1024} KB)`,
  type: 'Not a PNG, GIF or WebP image',
  corrupt: 'The image could not be decoded',
} as const;

/** Adds a custom emoji from an image file: validated, resized, stored in the media bucket. */
export async function addEmoji(shortcode: string, file: string, opts: AddEmojiOptions = {}): Promise<string> {
  if (!SHORTCODE.test(shortcode)) throw new AdminError(`Invalid shortcode ${JSON.stringify(shortcode)}: at least 2 letters, digits or underscores`);
  const category = opts.category?.trim() || null;
  if (category !== null && category.length > 64) throw new AdminError('Category too long (maximum is 64 characters)');
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    throw new AdminError(`Cannot read ${file}`);
  }
  const processed = await processEmojiImage(data);
  if (!processed.ok) throw new AdminError(EMOJI_PROBLEMS[processed.problem]);
  if ((await emojisByShortcodes([shortcode])).has(shortcode)) throw new AdminError(`The shortcode :${shortcode}: is taken`);
  const { key, staticKey } = emojiKeys(shortcode, processed.images.original.extension);
  await putMedia(key, processed.images.original.data, processed.images.original.contentType);
  await putMedia(staticKey, processed.images.static, 'image/png');
  const created = await putEmoji({ shortcode, key, staticKey, category, visibleInPicker: !opts.hidden, createdAt: new Date().toISOString() });
  if (!created) {
    await deleteMediaQuietly([key, staticKey]);
    throw new AdminError(`The shortcode :${shortcode}: is taken`);
  }
  return `Added :${shortcode}:${category ? ` in ${category}` : ''}${opts.hidden ? ' (hidden from the picker)' : ''}: ${mediaUrl(key)}`;
}

export async function removeEmoji(shortcode: string): Promise<string> {
  const removed = await deleteEmoji(shortcode);
  if (!removed) throw new AdminError(`No custom emoji :${shortcode}:`);
  await deleteMediaQuietly([removed.key, removed.staticKey]);
  return `Removed :${shortcode}:`;
}

export async function listEmojiCommand(): Promise<string> {
  const emojis = await allEmojis();
  if (emojis.length === 0) return 'No custom emoji';
  return emojis
    .map((e) => `:${e.shortcode}:  ${e.category ?? '-'}  ${e.visibleInPicker ? 'visible' : 'hidden'}  ${mediaUrl(e.key)}`)
    .join('\n');
}

/**
 * Puts every stored account, local and remote, in the admin API's list facets (lib/db/admin_accounts.ts): for
 * accounts made before the facets existed. Idempotent; pages through the table's username claims and each known
 * domain's accounts.
 */
export async function reindexAdminAccounts(): Promise<string> {
  const read = async (ids: string[]) => [...(await accountsByIds(ids)).values()];
  const local = await reindexFacets(localAccountIdPages(), read);
  async function* remotePages() {
    for (const domain of await allPeers()) {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await domainAccountIdsPage(domain, 100, start);
        if (page.ids.length > 0) yield page.ids;
        start = page.lastKey;
      } while (start);
    }
  }
  const remote = await reindexFacets(remotePages(), read);
  return `Indexed ${local} local and ${remote} remote accounts for the admin API.`;
}
