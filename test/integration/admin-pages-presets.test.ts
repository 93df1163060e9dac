// The warning presets and the appeals page of the moderation pages (/admin/warning_presets, /admin/disputes/appeals),
// each through its real handler with a browser's cookie jar: who may open them (manage_settings, manage_appeals);
// presets added, edited and deleted through the forms, each once in the audit log, bad input a 422 page writing
// nothing, a POST without the session's CSRF token refused; an account action naming a preset (the admin API's
// warning_preset_id, the account page's choice) gives the strike the preset's text joined with the moderator's, as
// the warned account reads it; an appeal the account files on its strike page, approved on the appeals page (the
// sanction lifted, the strike overruled), and another rejected (the sanction kept).
import { handler as action } from '../../functions/admin_accounts/action';
import { handler as disputeShow } from '../../functions/admin_accounts/dispute_show';
import { handler as disputeSubmit } from '../../functions/admin_accounts/dispute_submit';
import { handler as accountShow } from '../../functions/admin_pages/account';
import { handler as accountSubmit } from '../../functions/admin_pages/account_submit';
import { handler as appealsPage } from '../../functions/admin_pages/appeals';
import { handler as appealsSubmit } from '../../functions/admin_pages/appeals_submit';
import { handler as reportsPage } from '../../functions/admin_pages/reports';
import { handler as presetPage } from '../../functions/admin_pages/warning_preset';
import { handler as presetSubmit } from '../../functions/admin_pages/warning_preset_submit';
import { handler as presetsPage } from '../../functions/admin_pages/warning_presets';
import { handler as presetsSubmit } from '../../functions/admin_pages/warning_presets_submit';
import { handler as notificationsIndex } from '../../functions/notifications/index';
import { handler as mailWorker } from '../../functions/workers/mail';
import { handler as signinWorker } from '../../functions/workers/signin';
import { accountById, type Account } from '../../lib/db/accounts';
import { auditLogPage, type AuditEntry } from '../../lib/db/audit_log';
import { pendingAppealsPage, strikeById, strikesOf, type Strike } from '../../lib/db/strikes';
import { allWarningPresets, type WarningPreset } from '../../lib/db/warning_presets';
import { registerInlineWorker } from '../../lib/queue';
import { AdminBrowser, csrfOf, signedInAs, type Handler } from '../support/admin_browser';
import { aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

registerInlineWorker('signin', signinWorker);
registerInlineWorker('mail', mailWorker);
// This file signs in many times from one address; the sign-in limits are tested in ratelimit-signin.test.ts.
process.env.RATE_LIMIT_FACTOR = '100';

const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];

type Signed = { browser: AdminBrowser; user: UserFixture };
let moderator: Signed;
let admin: Signed;
let member: Signed;

beforeAll(async () => {
  [moderator, admin, member] = await Promise.all([signedInAs('1', ADMIN_SCOPES), signedInAs('2', ADMIN_SCOPES), signedInAs(null)]);
});

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

const loggedBy = async (who: Account): Promise<AuditEntry[]> => (await auditLogPage({ limit: 200 })).filter((e) => e.accountId === who.id);

const expectCsrfRefused = (res: Answer) => {
  expect(res.status).toBe(403);
  expect(res.text).toContain('The form has expired or did not come from this site');
};

const expectNotDone = (res: Answer, message: string) => {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain(`id="error">${message}</p>`);
};

/** Adds a preset through the page as the admin; answers it as stored. */
async function aPreset(title: string, text: string): Promise<WarningPreset> {
  const csrf = csrfOf(await admin.browser.get(presetsPage, '/admin/warning_presets'));
  const res = await admin.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: csrf, operation: 'add', title, text });
  expect(res.status).toBe(303);
  const preset = (await allWarningPresets()).find((p) => p.title === title);
  expect(preset).toBeDefined();
  return preset!;
}

/** The admin API's account action, as a moderator's client calls it. */
const accountAction = (target: UserFixture, json: Record<string, unknown>, token = moderator.user.token) =>
  call(action, { method: 'POST', path: `/api/v1/admin/accounts/${target.account.id}/action`, pathParameters: { id: target.account.id }, json, token });

/** The warned account signs in on its strike page (/disputes/strikes/:id) and appeals there. */
async function appealAsTheAccount(target: UserFixture, strikeId: string, text: string): Promise<Answer> {
  const browser = new AdminBrowser();
  const path = `/disputes/strikes/${strikeId}`;
  const login = await browser.get(disputeShow, path, { id: strikeId });
  const shown = await browser.post(disputeSubmit, path, { csrf_token: csrfOf(login), email: target.account.email!, password: target.password }, strikeId);
  expect(shown.status).toBe(200);
  const appealed = await browser.post(disputeSubmit, path, { csrf_token: csrfOf(shown), 'appeal[text]': text }, strikeId);
  expect(appealed.status).toBe(200);
  expect(appealed.text).toContain('Your appeal is pending');
  return appealed;
}

const latestStrike = async (account: Account): Promise<Strike> => (await strikesOf(account.id, 1))[0]!;

describe('access to the pages', () => {
  // [name, handler, path, the role that may not open it]
  const pages: [string, Handler, string, () => Signed][] = [
    ['warning presets', presetsPage, '/admin/warning_presets', () => moderator],
    ['appeals', appealsPage, '/admin/disputes/appeals', () => moderator],
  ];

  it.each(pages)('%s: to the sign-in form without a session, 403 without the permission, the page for an admin', async (_name, handler, path, refused) => {
    const anonymous = await new AdminBrowser().get(handler, path);
    expect(anonymous.status).toBe(302);
    const location = new URL(anonymous.headers.location!, 'https://social.example');
    expect(location.pathname).toBe('/admin/sign_in');
    expect(location.searchParams.get('return_to')).toBe(path.replace('/admin', ''));

    for (const denied of [await refused().browser.get(handler, path), await member.browser.get(handler, path)]) {
      expect(denied.status).toBe(403);
      expect(denied.text).toContain('Access denied');
    }

    const shown = await admin.browser.get(handler, path);
    expect(shown.status).toBe(200);
    expect(shown.headers['content-security-policy']).toContain("default-src 'none'");
    expect(shown.text).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it('links both pages in the navigation of an admin, not of a moderator', async () => {
    const nav = (page: Answer) => /<nav>([\s\S]*?)<\/nav>/.exec(page.text)?.[1] ?? '';
    const mod = nav(await moderator.browser.get(reportsPage, '/admin/reports'));
    const adm = nav(await admin.browser.get(reportsPage, '/admin/reports'));
    for (const path of ['/admin/warning_presets', '/admin/disputes/appeals']) {
      expect(mod).not.toContain(`href="${path}"`);
      expect(adm).toContain(`href="${path}"`);
    }
  });
});

describe('warning presets', () => {
  it('adds a preset, shows it escaped, edits it and deletes it, each once in the audit log', async () => {
    const title = `Spam ${unique()}`;
    const page = await admin.browser.get(presetsPage, '/admin/warning_presets');
    const csrf = csrfOf(page);
    const added = await admin.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: csrf, operation: 'add', title, text: '  Do not post <a href="x">links</a> in bulk.\n' });
    expect(added.headers.location).toBe('/admin/warning_presets?notice=created');
    const preset = (await allWarningPresets()).find((p) => p.title === title)!;
    expect(preset).toMatchObject({ title, text: 'Do not post <a href="x">links</a> in bulk.' });
    const listed = await admin.browser.get(presetsPage, '/admin/warning_presets', { query: { notice: 'created' } });
    expect(listed.text).toContain('id="notice">The preset is added.');
    expect(listed.text).toContain(`id="warning-preset-${preset.id}"`);
    expect(listed.text).toContain('Do not post &lt;a href=&quot;x&quot;&gt;links&lt;/a&gt; in bulk.');
    expect(listed.text).not.toContain('<a href="x">');
    expect(listed.text).toContain(`href="/admin/warning_presets/${preset.id}"`);

    // The edit page holds the preset's fields; saving changes both.
    const edit = await admin.browser.get(presetPage, `/admin/warning_presets/${preset.id}`, { id: preset.id });
    expect(edit.status).toBe(200);
    expect(edit.text).toContain(`value="${title}"`);
    expect(edit.text).toContain('>Do not post &lt;a href=&quot;x&quot;&gt;links&lt;/a&gt; in bulk.</textarea>');
    const saved = await admin.browser.post(presetSubmit, `/admin/warning_presets/${preset.id}`, { csrf_token: csrfOf(edit), operation: 'update', title: `${title} (v2)`, text: 'No bulk links.' }, preset.id);
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe('/admin/warning_presets?notice=updated');
    expect((await allWarningPresets()).find((p) => p.id === preset.id)).toMatchObject({ title: `${title} (v2)`, text: 'No bulk links.' });

    const removed = await admin.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: csrf, operation: 'remove', id: preset.id });
    expect(removed.headers.location).toBe('/admin/warning_presets?notice=removed');
    expect((await allWarningPresets()).some((p) => p.id === preset.id)).toBe(false);
    expect((await admin.browser.get(presetsPage, '/admin/warning_presets')).text).not.toContain(`id="warning-preset-${preset.id}"`);
    // Gone: deleting, editing or saving it again is a 404 page.
    expect((await admin.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: csrf, operation: 'remove', id: preset.id })).status).toBe(404);
    expect((await admin.browser.get(presetPage, `/admin/warning_presets/${preset.id}`, { id: preset.id })).status).toBe(404);
    expect((await admin.browser.post(presetSubmit, `/admin/warning_presets/${preset.id}`, { csrf_token: csrf, operation: 'update', title: 'x', text: 'y' }, preset.id)).status).toBe(404);
    expect((await allWarningPresets()).some((p) => p.id === preset.id)).toBe(false);

    const log = (await loggedBy(admin.user.account)).filter((e) => e.targetId === preset.id);
    expect(log.map((e) => [e.action, e.targetType])).toEqual([['destroy', 'AccountWarningPreset'], ['update', 'AccountWarningPreset'], ['create', 'AccountWarningPreset']]);
    expect(log[2]!.humanIdentifier).toBe(`${title} - Do not post <a href="x">lin...`);
  });

  it('answers a blank or oversized text and an oversized title with a 422 page naming the field, writing nothing', async () => {
    const csrf = csrfOf(await admin.browser.get(presetsPage, '/admin/warning_presets'));
    const before = await allWarningPresets();
    const add = (form: Record<string, string>) => admin.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: csrf, operation: 'add', ...form });
    expectNotDone(await add({ title: 'Blank', text: '  \n ' }), "Validation failed: Text can&#39;t be blank");
    expectNotDone(await add({ title: 'No text' }), "Validation failed: Text can&#39;t be blank");
    expectNotDone(await add({ title: 'Long', text: 'x'.repeat(5_001) }), 'Validation failed: Text is too long (maximum is 5000 characters)');
    expectNotDone(await add({ title: 't'.repeat(256), text: 'fine' }), 'Validation failed: Title is too long (maximum is 255 characters)');
    // At the bounds, counted in characters (an emoji is one).
    const title = `${'é'.repeat(240)}${unique()}`.slice(0, 255);
    expect((await add({ title, text: '😀'.repeat(5_000) })).status).toBe(303);
    const atBounds = (await allWarningPresets()).find((p) => p.title === title)!;
    expect(Array.from(atBounds.text)).toHaveLength(5_000);

    // An edit that would blank the text changes nothing.
    const edited = await admin.browser.post(presetSubmit, `/admin/warning_presets/${atBounds.id}`, { csrf_token: csrf, operation: 'update', title: 'changed', text: '' }, atBounds.id);
    expectNotDone(edited, "Validation failed: Text can&#39;t be blank");
    expect((await allWarningPresets()).find((p) => p.id === atBounds.id)).toMatchObject({ title, text: atBounds.text });
    expect(await allWarningPresets()).toHaveLength(before.length + 1);
  });

  it('refuses a form without the session\'s CSRF token, and any change by a role without manage_settings', async () => {
    const preset = await aPreset(`Kept ${unique()}`, 'Stays as it is.');
    const count = (await allWarningPresets()).length;
    expectCsrfRefused(await admin.browser.post(presetsSubmit, '/admin/warning_presets', { operation: 'add', title: 'forged', text: 'forged' }));
    expectCsrfRefused(await admin.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: 'wrong', operation: 'remove', id: preset.id }));
    expectCsrfRefused(await admin.browser.post(presetSubmit, `/admin/warning_presets/${preset.id}`, { csrf_token: '', operation: 'update', title: 'forged', text: 'forged' }, preset.id));

    // A moderator, with its own session's token: 403.
    const modCsrf = csrfOf(await moderator.browser.get(reportsPage, '/admin/reports'));
    for (const res of [
      await moderator.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: modCsrf, operation: 'add', title: 'mod', text: 'mod' }),
      await moderator.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: modCsrf, operation: 'remove', id: preset.id }),
      await moderator.browser.post(presetSubmit, `/admin/warning_presets/${preset.id}`, { csrf_token: modCsrf, operation: 'update', title: 'mod', text: 'mod' }, preset.id),
      await moderator.browser.get(presetPage, `/admin/warning_presets/${preset.id}`, { id: preset.id }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('Access denied');
    }
    expect(await allWarningPresets()).toHaveLength(count);
    expect((await allWarningPresets()).find((p) => p.id === preset.id)).toMatchObject({ text: 'Stays as it is.' });
    expect((await loggedBy(moderator.user.account)).some((e) => e.targetType === 'AccountWarningPreset')).toBe(false);
  });
});

describe('an account action with a warning preset', () => {
  it('through the admin API: the strike\'s text is the preset\'s, a blank line, then the moderator\'s, as the account reads it', async () => {
    const preset = await aPreset(`Rule 2 ${unique()}`, 'You broke rule 2: no spam.');
    const target = await aUser();
    const res = await accountAction(target, { type: 'silence', warning_preset_id: preset.id, text: 'Three times this week.', send_email_notification: true });
    expect(res.status).toBe(200);
    expect((await accountById(target.account.id))!.silencedAt).not.toBeNull();
    const strike = await latestStrike(target.account);
    expect(strike).toMatchObject({ action: 'silence', text: 'You broke rule 2: no spam.\n\nThree times this week.' });

    // The account's notification carries the joined text; its strike page shows it.
    const notes = await call(notificationsIndex, { path: '/api/v1/notifications', token: target.token });
    const warning = notes.body.find((n: { type: string }) => n.type === 'moderation_warning');
    expect(warning.moderation_warning).toMatchObject({ id: strike.id, action: 'silence', text: 'You broke rule 2: no spam.\n\nThree times this week.' });
    const browser = new AdminBrowser();
    const path = `/disputes/strikes/${strike.id}`;
    const login = await browser.get(disputeShow, path, { id: strike.id });
    const shown = await browser.post(disputeSubmit, path, { csrf_token: csrfOf(login), email: target.account.email!, password: target.password }, strike.id);
    expect(shown.text).toMatch(/id="strike-text"[^>]*>You broke rule 2: no spam.\n\nThree times this week.<\/p>/);

    // A preset alone: its text only.
    const other = await aUser();
    expect((await accountAction(other, { type: 'none', warning_preset_id: preset.id })).status).toBe(200);
    expect((await latestStrike(other.account)).text).toBe('You broke rule 2: no spam.');
  });

  it('answers 404 for a preset id no preset has (a deleted one too), taking no action and leaving no strike', async () => {
    const preset = await aPreset(`Gone ${unique()}`, 'Soon deleted.');
    const csrf = csrfOf(await admin.browser.get(presetsPage, '/admin/warning_presets'));
    expect((await admin.browser.post(presetsSubmit, '/admin/warning_presets', { csrf_token: csrf, operation: 'remove', id: preset.id })).status).toBe(303);
    const target = await aUser();
    for (const id of [preset.id, '999999999']) {
      const res = await accountAction(target, { type: 'suspend', warning_preset_id: id, text: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect((await accountById(target.account.id))!.suspendedAt).toBeNull();
    expect(await strikesOf(target.account.id)).toEqual([]);
  });

  it('through the account page: a moderator picks a preset in the action form; an unknown one is a 404 page', async () => {
    const preset = await aPreset(`Tone ${unique()}`, 'Please keep a civil tone in every reply you write here.');
    const target = await aUser();
    const path = `/admin/accounts/${target.account.id}`;
    const page = await moderator.browser.get(accountShow, path, { id: target.account.id });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<select id="warning-preset" name="warning_preset_id">');
    // Mastodon's label: the title, then the text cut to 30 characters.
    expect(page.text).toContain(`<option value="${preset.id}">${preset.title} - Please keep a civil tone in...</option>`);
    const csrf = csrfOf(page);
    const warned = await moderator.browser.post(accountSubmit, path, { csrf_token: csrf, operation: 'action', type: 'none', warning_preset_id: preset.id, text: 'Last time.' }, target.account.id);
    expect(warned.status).toBe(303);
    expect((await latestStrike(target.account)).text).toBe('Please keep a civil tone in every reply you write here.\n\nLast time.');

    // No preset chosen: the moderator's text alone.
    await moderator.browser.post(accountSubmit, path, { csrf_token: csrf, operation: 'action', type: 'none', warning_preset_id: '', text: 'Plain.' }, target.account.id);
    expect((await latestStrike(target.account)).text).toBe('Plain.');

    for (const bad of ['not-an-id', '999999999']) {
      const res = await moderator.browser.post(accountSubmit, path, { csrf_token: csrf, operation: 'action', type: 'silence', warning_preset_id: bad }, target.account.id);
      expect(res.status).toBe(404);
    }
    expect((await accountById(target.account.id))!.silencedAt).toBeNull();
    expect(await strikesOf(target.account.id)).toHaveLength(2);
  });
});

describe('the appeals page', () => {
  it('lists an appeal the account filed on its strike page; approving it lifts the sanction and overrules the strike', async () => {
    const target = await aUser();
    expect((await accountAction(target, { type: 'silence', text: 'Too many <b>ads</b>.' })).status).toBe(200);
    const strike = await latestStrike(target.account);
    await appealAsTheAccount(target, strike.id, 'It was <i>one</i> link.');

    const page = await admin.browser.get(appealsPage, '/admin/disputes/appeals');
    const row = new RegExp(`<tr id="appeal-${strike.id}">([\\s\\S]*?)</tr>`).exec(page.text)?.[1] ?? '';
    expect(row).toContain(`href="/admin/accounts/${target.account.id}">@${target.account.username}</a>`);
    expect(row).toContain('Limited');
    expect(row).toContain('Too many &lt;b&gt;ads&lt;/b&gt;.');
    expect(row).toContain('It was &lt;i&gt;one&lt;/i&gt; link.');
    expect(row).toContain(`<input type="hidden" name="strike_id" value="${strike.id}">`);
    expect(row).toContain('value="approve"');
    expect(row).toContain('value="reject"');
    const csrf = csrfOf(page);

    // Without the session's token, or by a role without manage_appeals: nothing decided.
    expectCsrfRefused(await admin.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: 'wrong', operation: 'approve', strike_id: strike.id }));
    const modCsrf = csrfOf(await moderator.browser.get(reportsPage, '/admin/reports'));
    expect((await moderator.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: modCsrf, operation: 'approve', strike_id: strike.id })).status).toBe(403);
    expect((await strikeById(strike.id))!.appeal!.state).toBe('pending');
    expect((await accountById(target.account.id))!.silencedAt).not.toBeNull();

    const approved = await admin.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: csrf, operation: 'approve', strike_id: strike.id });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe('/admin/disputes/appeals?notice=approved');
    expect((await accountById(target.account.id))!.silencedAt).toBeNull();
    const decided = (await strikeById(strike.id))!;
    expect(decided.overruledAt).not.toBeNull();
    expect(decided.appeal).toMatchObject({ state: 'approved', decidedBy: admin.user.account.id });
    expect((await admin.browser.get(appealsPage, '/admin/disputes/appeals')).text).not.toContain(`id="appeal-${strike.id}"`);
    const log = await loggedBy(admin.user.account);
    expect(log.find((e) => e.action === 'approve_appeal' && e.targetId === decided.appeal!.id)).toBeDefined();
    expect(log.find((e) => e.action === 'unsilence' && e.targetId === target.account.id)).toBeDefined();

    // What the account reads on its strike page: its appeal approved.
    const browser = new AdminBrowser();
    const path = `/disputes/strikes/${strike.id}`;
    const login = await browser.get(disputeShow, path, { id: strike.id });
    const shown = await browser.post(disputeSubmit, path, { csrf_token: csrfOf(login), email: target.account.email!, password: target.password }, strike.id);
    expect(shown.text).toContain('Your appeal is approved.');

    // Decided already: a 422 page, nothing more logged.
    const again = await admin.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: csrf, operation: 'reject', strike_id: strike.id });
    expectNotDone(again, 'Validation failed: Appeal has already been decided');
  });

  it('rejects another appeal: the sanction and the strike stand', async () => {
    const target = await aUser();
    expect((await accountAction(target, { type: 'sensitive', text: 'Unmarked gore.' })).status).toBe(200);
    const strike = await latestStrike(target.account);
    await appealAsTheAccount(target, strike.id, 'It was marked.');
    const page = await admin.browser.get(appealsPage, '/admin/disputes/appeals');
    expect(page.text).toContain(`id="appeal-${strike.id}"`);
    const rejected = await admin.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: csrfOf(page), operation: 'reject', strike_id: strike.id });
    expect(rejected.headers.location).toBe('/admin/disputes/appeals?notice=rejected');
    expect((await accountById(target.account.id))!.sensitizedAt).not.toBeNull();
    const decided = (await strikeById(strike.id))!;
    expect(decided.overruledAt).toBeNull();
    expect(decided.appeal).toMatchObject({ state: 'rejected', decidedBy: admin.user.account.id });
    expect((await loggedBy(admin.user.account)).find((e) => e.action === 'reject_appeal' && e.targetId === decided.appeal!.id)).toBeDefined();
    const after = await admin.browser.get(appealsPage, '/admin/disputes/appeals', { query: { notice: 'rejected' } });
    expect(after.text).toContain('The appeal is rejected');
    expect(after.text).not.toContain(`id="appeal-${strike.id}"`);
  });

  it('answers an unknown strike with a 404 page and a form without a strike with a 422 page', async () => {
    const csrf = csrfOf(await admin.browser.get(appealsPage, '/admin/disputes/appeals'));
    expect((await admin.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: csrf, operation: 'approve', strike_id: '999999999' })).status).toBe(404);
    expectNotDone(await admin.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: csrf, operation: 'approve' }), 'Choose an appeal to approve or reject.');
    expectNotDone(await admin.browser.post(appealsSubmit, '/admin/disputes/appeals', { csrf_token: csrf, operation: 'delete', strike_id: '1' }), 'Choose an appeal to approve or reject.');
  });

  it('pages the queue oldest first, each page starting after the last appeal of the one before', async () => {
    const strikes: Strike[] = [];
    for (let i = 0; i < 3; i++) {
      const target = await aUser();
      await accountAction(target, { type: 'none', text: `warning ${i}` });
      const strike = await latestStrike(target.account);
      await appealAsTheAccount(target, strike.id, `appeal ${i}`);
      strikes.push(strike);
    }
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await pendingAppealsPage(2, after);
      seen.push(...page.strikes.map((s) => s.id));
      after = page.last;
    } while (after);
    const ours = seen.filter((id) => strikes.some((s) => s.id === id));
    expect(ours).toEqual(strikes.map((s) => s.id));
    expect(new Set(seen).size).toBe(seen.length);
  });
});
