// The admin accounts API (https://docs.joinmastodon.org/methods/admin/accounts/) through its handlers: every route,
// the v1 and v2 filters and their paging, bad input, who may call it (a Moderator, an Admin, a user holding the
// admin scopes without a role) and the outrank rule; strikes, the moderation_warning notification, appeals.
import { readdirSync, readFileSync } from 'node:fs';
import { handler as action } from '../../functions/admin_accounts/action';
import { handler as approve } from '../../functions/admin_accounts/approve';
import { handler as remove } from '../../functions/admin_accounts/delete';
import { dueSuspensionWork } from '../../lib/db/suspensions';
import { handler as enable } from '../../functions/admin_accounts/enable';
import { handler as indexV1 } from '../../functions/admin_accounts/index_v1';
import { handler as indexV2 } from '../../functions/admin_accounts/index_v2';
import { handler as reject } from '../../functions/admin_accounts/reject';
import { handler as show } from '../../functions/admin_accounts/show';
import { handler as unsensitive } from '../../functions/admin_accounts/unsensitive';
import { handler as unsilence } from '../../functions/admin_accounts/unsilence';
import { handler as unsuspend } from '../../functions/admin_accounts/unsuspend';
import { handler as createAccount } from '../../functions/accounts/create';
import { handler as disputeShow } from '../../functions/admin_accounts/dispute_show';
import { handler as disputeSubmit } from '../../functions/admin_accounts/dispute_submit';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as notificationsIndex } from '../../functions/notifications/index';
import { handler as groupedIndex } from '../../functions/notifications/v2_index';
import { handler as mailWorker } from '../../functions/workers/mail';
import { main } from '../../lib/admin/cli';
import { accountById, accountByUsername, setRole, updateAccount, type Account } from '../../lib/db/accounts';
import { instanceSettings, updateInstanceSettings } from '../../lib/db/instance';
import { putReport, reportById } from '../../lib/db/reports';
import { strikesOf } from '../../lib/db/strikes';
import { newId } from '../../lib/ids';
import { config } from '../../lib/config';
import { listAccounts, MAX_QUERIES, SCAN_LIMIT } from '../../lib/moderation/account_list';
import * as keys from '../../lib/db/keys';
import { batchWrite } from '../../lib/db/table';
import { approveAppeal, pendingAppeals, rejectAppeal } from '../../lib/moderation/appeals';
import { appealStrike } from '../../lib/moderation/strikes';
import { registerInlineWorker } from '../../lib/queue';
import { aRemoteAccount, anAppToken, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('mail', mailWorker);

let seq = 0;
const fresh = (prefix: string) => `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}`.slice(0, 30);

const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];
async function aStaffUser(role: '1' | '2' | '3' | null, scopes = ADMIN_SCOPES, username?: string): Promise<UserFixture> {
  const user = await aUser({ scopes, ...(username ? { username } : {}) });
  if (role) user.account = (await setRole(user.account.id, role, role === '3'))!;
  return user;
}

const get = (h: typeof indexV1, path: string, token: string, query: Record<string, string | string[]> = {}) => call(h, { method: 'GET', path, query, token });
const post = (h: typeof action, id: string, verb: string, token: string, json: Record<string, unknown> = {}) =>
  call(h, { method: 'POST', path: `/api/v1/admin/accounts/${id}/${verb}`, pathParameters: { id }, json, token });
const ids = (body: { id: string }[]) => body.map((a) => a.id);

let moderator: UserFixture;
let admin: UserFixture;
beforeAll(async () => {
  moderator = await aStaffUser('1');
  admin = await aStaffUser('2');
});

describe('who may call the admin accounts API', () => {
  it('answers 403 to a user holding the admin scopes without a role, and to a role without the scope', async () => {
    const plain = await aStaffUser(null);
    const target = await aUser();
    const list = await get(indexV1, '/api/v1/admin/accounts', plain.token);
    expect(list.status).toBe(403);
    expect(list.body).toEqual({ error: 'This action is not allowed' });
    expect((await call(show, { path: `/api/v1/admin/accounts/${target.account.id}`, pathParameters: { id: target.account.id }, token: plain.token })).status).toBe(403);
    expect((await post(action, target.account.id, 'action', plain.token, { type: 'silence' })).status).toBe(403);
    expect((await accountById(target.account.id))!.silencedAt).toBeNull();
    // A moderator whose token lacks admin scopes: 403 as Mastodon's scope check.
    const noScope = await aStaffUser('1', ['read', 'write']);
    expect((await get(indexV1, '/api/v1/admin/accounts', noScope.token)).status).toBe(403);
    // The granular scope alone is enough.
    const granular = await aStaffUser('1', ['admin:read:accounts']);
    expect((await get(indexV2, '/api/v2/admin/accounts', granular.token, { username: target.account.username })).status).toBe(200);
    expect((await post(action, target.account.id, 'action', granular.token, { type: 'silence' })).status).toBe(403);
  });

  it('refuses an action on oneself or on an account of an equal or higher role, for a moderator and an admin', async () => {
    const otherModerator = await aStaffUser('1');
    expect((await post(action, moderator.account.id, 'action', moderator.token, { type: 'silence' })).status).toBe(403);
    expect((await post(action, otherModerator.account.id, 'action', moderator.token, { type: 'silence' })).status).toBe(403);
    expect((await post(action, admin.account.id, 'action', moderator.token, { type: 'suspend' })).status).toBe(403);
    // An admin outranks a moderator.
    expect((await post(action, otherModerator.account.id, 'action', admin.token, { type: 'silence' })).status).toBe(200);
    expect((await accountById(otherModerator.account.id))!.silencedAt).not.toBeNull();
    expect((await post(unsilence, otherModerator.account.id, 'unsilence', moderator.token)).status).toBe(403);
  });
});

describe('GET /api/v1/admin/accounts/:id', () => {
  it('answers Admin::Account with the login state and the sign-up address; 404 for an unknown id', async () => {
    await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
    const appToken = await anAppToken(['read', 'write']);
    const username = fresh('ipuser');
    const made = await call(createAccount, {
      method: 'POST', path: '/api/v1/accounts', token: appToken.token, sourceIp: '203.0.113.7',
      json: { username, email: `${username}@example.com`, password: 'correct horse battery staple', agreement: true, locale: 'en' },
    });
    expect(made.status).toBe(200);
    const account = (await accountByUsername(username))!;
    const res = await call(show, { path: `/api/v1/admin/accounts/${account.id}`, pathParameters: { id: account.id }, token: moderator.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: account.id, username, domain: null, email: `${username}@example.com`, ip: '203.0.113.7',
      ips: [{ ip: '203.0.113.7', used_at: account.createdAt }], confirmed: true, approved: true, disabled: false,
      silenced: false, suspended: false, sensitized: false, account: { id: account.id, username },
    });
    // The ip filter finds it.
    const byIp = await get(indexV2, '/api/v2/admin/accounts', moderator.token, { ip: '203.0.113.7' });
    expect(ids(byIp.body)).toContain(account.id);
    const unknown = await call(show, { path: '/api/v1/admin/accounts/999999999', pathParameters: { id: '999999999' }, token: moderator.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Record not found' });
    expect((await call(show, { path: '/api/v1/admin/accounts/abc', pathParameters: { id: 'abc' }, token: moderator.token })).status).toBe(404);
  });
});

describe('the account list', () => {
  const prefix = fresh('lst');
  const made: Record<string, Account> = {};
  beforeAll(async () => {
    for (const name of ['plain', 'silenced', 'suspended', 'disabled', 'sensitized', 'pending', 'staff']) {
      const user = await aUser({ username: `${prefix}${name}`, approved: name !== 'pending' });
      made[name] = user.account;
    }
    await updateAccount(made.silenced!.id, { silencedAt: new Date().toISOString(), displayName: 'Quiet One' });
    await updateAccount(made.suspended!.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
    await updateAccount(made.disabled!.id, { disabled: true });
    await updateAccount(made.sensitized!.id, { sensitizedAt: new Date().toISOString() });
    await setRole(made.staff!.id, '1', false);
    made.remote = (await aRemoteAccount({ domain: 'far.example', username: `${prefix}remote`, keyless: true })).account;
  });
  const mine = (body: { id: string; username: string }[]) => body.filter((a) => a.username.startsWith(prefix)).map((a) => a.username.slice(prefix.length)).sort();

  it('v1: each filter', async () => {
    const v1 = (q: Record<string, string>) => get(indexV1, '/api/v1/admin/accounts', moderator.token, { username: prefix, ...q });
    expect(mine((await v1({})).body)).toEqual(['disabled', 'pending', 'plain', 'remote', 'sensitized', 'silenced', 'staff', 'suspended']);
    expect(mine((await v1({ local: 'true' })).body)).toEqual(['disabled', 'pending', 'plain', 'sensitized', 'silenced', 'staff', 'suspended']);
    expect(mine((await v1({ remote: 'true' })).body)).toEqual(['remote']);
    expect(mine((await v1({ by_domain: 'far.example' })).body)).toEqual(['remote']);
    expect(mine((await v1({ pending: 'true' })).body)).toEqual(['pending']);
    expect(mine((await v1({ silenced: 'true' })).body)).toEqual(['silenced']);
    expect(mine((await v1({ suspended: 'true' })).body)).toEqual(['suspended']);
    expect(mine((await v1({ disabled: 'true' })).body)).toEqual(['disabled']);
    expect(mine((await v1({ sensitized: 'true' })).body)).toEqual(['sensitized']);
    expect(mine((await v1({ staff: 'true' })).body)).toEqual(['staff']);
    expect(mine((await v1({ active: 'true' })).body)).not.toContain('suspended');
    expect(mine((await v1({ display_name: 'quiet' })).body)).toEqual(['silenced']);
    expect(mine((await v1({ email: `${prefix}plain@` })).body)).toEqual(['plain']);
    expect(mine((await v1({ email: `${prefix}plain@example.com` })).body)).toEqual(['plain']);
    expect(mine((await v1({ silenced: 'true', local: 'true' })).body)).toEqual(['silenced']);
    expect(mine((await v1({ silenced: 'true', suspended: 'true' })).body)).toEqual([]);
    expect(mine((await v1({ local: 'true', remote: 'true' })).body)).toEqual([]);
  });

  it('v2: origin, status, permissions, role_ids, invited_by', async () => {
    const v2 = (q: Record<string, string | string[]>) => get(indexV2, '/api/v2/admin/accounts', moderator.token, { username: prefix, ...q });
    expect(mine((await v2({ origin: 'local' })).body)).toEqual(['disabled', 'pending', 'plain', 'sensitized', 'silenced', 'staff', 'suspended']);
    expect(mine((await v2({ origin: 'remote' })).body)).toEqual(['remote']);
    for (const status of ['pending', 'silenced', 'suspended', 'disabled', 'sensitized']) expect(mine((await v2({ status })).body)).toEqual([status]);
    expect(mine((await v2({ status: 'active' })).body)).not.toContain('suspended');
    expect(mine((await v2({ permissions: 'staff' })).body)).toEqual(['staff']);
    expect(mine((await v2({ role_ids: ['1'] })).body)).toEqual(['staff']);
    expect(mine((await v2({ role_ids: ['2'] })).body)).toEqual([]);
    expect(mine((await v2({ invited_by: moderator.account.id })).body)).toEqual([]);
    expect(mine((await v2({ by_domain: 'far.example', origin: 'remote' })).body)).toEqual(['remote']);
    expect(mine((await v2({ display_name: 'Quiet' })).body)).toEqual(['silenced']);
  });

  it('answers 422 naming the field for a bad filter', async () => {
    for (const [q, field] of [[{ origin: 'mars' }, 'origin'], [{ status: 'happy' }, 'status'], [{ permissions: 'all' }, 'permissions'], [{ ip: 'not-an-ip' }, 'ip']] as const) {
      const res = await get(indexV2, '/api/v2/admin/accounts', moderator.token, q);
      expect(res.status).toBe(422);
      expect(res.body.error).toContain(field);
    }
    const v1 = await get(indexV1, '/api/v1/admin/accounts', moderator.token, { ip: '300.1.1.1' });
    expect(v1.status).toBe(422);
    expect(v1.body.error).toContain('ip');
  });

  it('pages by id with Link, newest first, in both directions', async () => {
    const first = await get(indexV2, '/api/v2/admin/accounts', moderator.token, { username: prefix, limit: '3' });
    expect(first.body).toHaveLength(3);
    const got = ids(first.body);
    expect([...got].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1))).toEqual(got);
    const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.link!)![1]!);
    expect(next.searchParams.get('max_id')).toBe(got[2]);
    expect(next.searchParams.get('username')).toBe(prefix);
    const second = await get(indexV2, '/api/v2/admin/accounts', moderator.token, { username: prefix, limit: '3', max_id: got[2]! });
    expect(ids(second.body).every((id) => BigInt(id) < BigInt(got[2]!))).toBe(true);
    const back = await get(indexV2, '/api/v2/admin/accounts', moderator.token, { username: prefix, limit: '3', min_id: ids(second.body)[0]! });
    expect(ids(back.body)).toEqual(got);
  });

  it(`holds a page with a filter on the account to ${MAX_QUERIES} Queries and goes on from where it stopped`, async () => {
    // 1,000 facet items with the oldest ids there can be (accounts that no longer exist, so none matches).
    const ghosts = Array.from({ length: 1000 }, (_, i) => String(1000 + i));
    await batchWrite(ghosts.map((id) => ({ ...keys.adminAccountFacet('sensitized', id), accountId: id, username: `ghost${id}`, host: '' })));
    const filter = { states: ['sensitized' as const], displayName: 'nobody-has-this-name' };
    const first = await listAccounts(filter, { max_id: '2000' }, 40);
    expect(first.queries).toBe(MAX_QUERIES);
    expect(first.accounts).toEqual([]);
    // It stopped after MAX_QUERIES x SCAN_LIMIT items, newest first: the Link goes on from the last one examined.
    expect(first.edges.oldest).toBe(String(2000 - MAX_QUERIES * SCAN_LIMIT));
    const rest = await listAccounts(filter, { max_id: first.edges.oldest }, 40);
    expect(rest.accounts).toEqual([]);
    expect(rest.edges).toEqual({ newest: undefined, oldest: undefined });
    // Through the API: an empty page whose Link points on.
    const res = await get(indexV1, '/api/v1/admin/accounts', moderator.token, { sensitized: 'true', display_name: 'nobody-has-this-name', max_id: '2000' });
    expect(res.body).toEqual([]);
    expect(res.headers.link).toContain(`max_id=${first.edges.oldest}`);
    await batchWrite([], ghosts.map((id) => keys.adminAccountFacet('sensitized', id)));
  });
});

describe('POST /api/v1/admin/accounts/:id/action and its reversals', () => {
  it('silences, sensitizes, disables and suspends, each idempotent, and lifts each', async () => {
    const target = await aUser();
    const id = target.account.id;
    for (const type of ['silence', 'sensitive', 'disable', 'suspend']) {
      const res = await post(action, id, 'action', moderator.token, { type });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect((await post(action, id, 'action', moderator.token, { type })).status).toBe(200);
    }
    const after = await call(show, { path: `/api/v1/admin/accounts/${id}`, pathParameters: { id }, token: moderator.token });
    expect(after.body).toMatchObject({ silenced: true, sensitized: true, disabled: true, suspended: true });
    // Each shows in its facet.
    const suspended = await get(indexV2, '/api/v2/admin/accounts', moderator.token, { status: 'suspended', username: target.account.username });
    expect(ids(suspended.body)).toEqual([id]);
    for (const [h, verb, field] of [[unsilence, 'unsilence', 'silenced'], [unsensitive, 'unsensitive', 'sensitized'], [enable, 'enable', 'disabled'], [unsuspend, 'unsuspend', 'suspended']] as const) {
      const res = await post(h, id, verb, moderator.token);
      expect(res.status).toBe(200);
      expect(res.body[field]).toBe(false);
      expect((await post(h, id, verb, moderator.token)).body[field]).toBe(false);
    }
    const gone = await get(indexV2, '/api/v2/admin/accounts', moderator.token, { status: 'suspended', username: target.account.username });
    expect(gone.body).toEqual([]);
    expect((await strikesOf(id)).map((s) => s.action).sort()).toEqual(['disable', 'disable', 'sensitive', 'sensitive', 'silence', 'silence', 'suspend', 'suspend']);
  });

  it('answers 422 naming type for a missing or unknown type, 404 for an unknown account, report or warning preset', async () => {
    const target = await aUser();
    for (const json of [{}, { type: 'banish' }]) {
      const res = await post(action, target.account.id, 'action', moderator.token, json);
      expect(res.status).toBe(422);
      expect(res.body.error).toContain('type');
    }
    expect((await post(action, '999999999', 'action', moderator.token, { type: 'silence' })).status).toBe(404);
    expect((await post(action, target.account.id, 'action', moderator.token, { type: 'silence', report_id: '999999999' })).status).toBe(404);
    expect((await post(action, target.account.id, 'action', moderator.token, { type: 'silence', warning_preset_id: '5' })).status).toBe(404);
    expect((await accountById(target.account.id))!.silencedAt).toBeNull();
  });

  it('refuses disable and enable of a remote account; a remote suspension is not ours to lift', async () => {
    const remote = (await aRemoteAccount({ keyless: true })).account;
    expect((await post(action, remote.id, 'action', moderator.token, { type: 'disable' })).status).toBe(403);
    expect((await post(enable, remote.id, 'enable', moderator.token)).status).toBe(403);
    expect((await post(action, remote.id, 'action', moderator.token, { type: 'silence' })).status).toBe(200);
    await updateAccount(remote.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'remote' });
    expect((await post(unsuspend, remote.id, 'unsuspend', moderator.token)).status).toBe(403);
  });
});

describe('strikes', () => {
  it('a warning with text and send_email_notification: a strike, a moderation_warning notification, an e-mail; the report resolved', async () => {
    const target = await aUser();
    const reporter = await aUser();
    const reportId = newId();
    await putReport({ id: reportId, accountId: reporter.account.id, targetAccountId: target.account.id, statusIds: [], comment: 'rude', category: 'other', ruleIds: [], forwarded: false, uri: null, actionTakenAt: null, actionTakenByAccountId: null, assignedAccountId: null, createdAt: new Date().toISOString() });
    const res = await post(action, target.account.id, 'action', moderator.token, { type: 'none', text: 'Please be kind.', report_id: reportId, send_email_notification: true });
    expect(res.status).toBe(200);
    const [strike] = await strikesOf(target.account.id);
    expect(strike).toMatchObject({ action: 'none', text: 'Please be kind.', reportId, moderatorId: moderator.account.id });
    expect((await reportById(reportId, true))!.actionTakenAt).not.toBeNull();
    const notes = await call(notificationsIndex, { path: '/api/v1/notifications', token: target.token });
    const warning = notes.body.find((n: { type: string }) => n.type === 'moderation_warning');
    expect(warning).toMatchObject({ account: { id: target.account.id }, moderation_warning: { id: strike!.id, action: 'none', text: 'Please be kind.', appeal: null, target_account: { id: target.account.id } } });
    const grouped = await call(groupedIndex, { path: '/api/v2/notifications', token: target.token });
    const group = grouped.body.notification_groups.find((g: { type: string }) => g.type === 'moderation_warning');
    expect(group).toMatchObject({ moderation_warning: { id: strike!.id, action: 'none', text: 'Please be kind.' } });
    const mails = readdirSync(config.mailDir).filter((f) => f.includes(target.account.email!.replace('@', '@')));
    expect(mails.length).toBeGreaterThan(0);
    const mail = JSON.parse(readFileSync(`${config.mailDir}/${mails.at(-1)}`, 'utf8'));
    expect(JSON.stringify(mail)).toContain(`/disputes/strikes/${strike!.id}`);
  });

  it('without send_email_notification: the strike is recorded, the account is not told', async () => {
    const target = await aUser();
    await post(action, target.account.id, 'action', moderator.token, { type: 'silence' });
    expect(await strikesOf(target.account.id)).toHaveLength(1);
    const notes = await call(notificationsIndex, { path: '/api/v1/notifications', token: target.token });
    expect(notes.body.filter((n: { type: string }) => n.type === 'moderation_warning')).toEqual([]);
  });

  it('an appeal: recorded once, listed for moderators, approving undoes the action; rejecting keeps it', async () => {
    const target = await aUser();
    await post(action, target.account.id, 'action', admin.token, { type: 'silence', text: 'Spam' });
    const [strike] = await strikesOf(target.account.id);
    const other = await aUser();
    await expect(appealStrike(other.account, strike!.id, 'not mine')).rejects.toMatchObject({ status: 404 });
    await expect(appealStrike(target.account, strike!.id, '   ')).rejects.toMatchObject({ status: 422 });
    await appealStrike(target.account, strike!.id, 'I was not spamming');
    await expect(appealStrike(target.account, strike!.id, 'again')).rejects.toMatchObject({ status: 422 });
    await expect(pendingAppeals(moderator.account)).rejects.toMatchObject({ status: 403 }); // manage_appeals is an Admin's
    expect((await pendingAppeals(admin.account)).map((s) => s.id)).toContain(strike!.id);
    const decided = await approveAppeal(admin.account, strike!.id);
    expect(decided.appeal!.state).toBe('approved');
    expect(decided.overruledAt).not.toBeNull();
    expect((await accountById(target.account.id))!.silencedAt).toBeNull();
    expect((await pendingAppeals(admin.account)).map((s) => s.id)).not.toContain(strike!.id);
    await expect(approveAppeal(admin.account, strike!.id)).rejects.toMatchObject({ status: 422 });

    await post(action, target.account.id, 'action', admin.token, { type: 'silence' });
    const [second] = await strikesOf(target.account.id);
    await appealStrike(target.account, second!.id, 'please');
    expect((await rejectAppeal(admin.account, second!.id)).appeal!.state).toBe('rejected');
    expect((await accountById(target.account.id))!.silencedAt).not.toBeNull();
  });
});

describe('the strike page /disputes/strikes/:id', () => {
  const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
  const pair = (setCookie: string) => setCookie.split(';')[0]!;

  it('signs the warned account in, shows the strike and takes its appeal, CSRF-protected, without JavaScript', async () => {
    const target = await aUser();
    await post(action, target.account.id, 'action', moderator.token, { type: 'silence', text: 'Too many ads', send_email_notification: true });
    const [strike] = await strikesOf(target.account.id);
    const path = `/disputes/strikes/${strike!.id}`;
    const first = await call(disputeShow, { path, pathParameters: { id: strike!.id } });
    expect(first.status).toBe(200);
    expect(first.headers['content-security-policy']).toContain("form-action 'self'");
    expect(first.text).toContain('<form method="post"');
    const csrfCookie = first.cookies.find((c) => c.startsWith('tootless_oauth_csrf='))!;
    // One session for the site: the sign-in here serves /oauth and /admin too.
    expect(csrfCookie).toContain('Path=/;');
    // A login without the form's token is refused.
    const forged = await call(disputeSubmit, { method: 'POST', path, pathParameters: { id: strike!.id }, form: { email: target.account.email!, password: target.password } });
    expect(forged.status).toBe(403);
    const login = await call(disputeSubmit, {
      method: 'POST', path, pathParameters: { id: strike!.id }, cookies: [pair(csrfCookie)],
      form: { csrf_token: csrfOf(first.text), email: target.account.email!, password: target.password },
    });
    expect(login.status).toBe(200);
    expect(login.text).toContain('Too many ads');
    expect(login.text).toContain('Your account has been limited');
    const session = login.cookies.find((c) => c.startsWith('tootless_oauth_session='))!;
    expect(session).toContain('Path=/;');
    // Someone else's strike is not shown to this session.
    const other = await aUser();
    await post(action, other.account.id, 'action', moderator.token, { type: 'none', text: 'x' });
    const [otherStrike] = await strikesOf(other.account.id);
    expect((await call(disputeShow, { path: `/disputes/strikes/${otherStrike!.id}`, pathParameters: { id: otherStrike!.id }, cookies: [pair(session)] })).status).toBe(404);
    // The appeal, without then with the session's CSRF token.
    const noToken = await call(disputeSubmit, { method: 'POST', path, pathParameters: { id: strike!.id }, cookies: [pair(session)], form: { 'appeal[text]': 'It was one link' } });
    expect(noToken.status).toBe(403);
    const page = await call(disputeShow, { path, pathParameters: { id: strike!.id }, cookies: [pair(session)] });
    const appealed = await call(disputeSubmit, {
      method: 'POST', path, pathParameters: { id: strike!.id }, cookies: [pair(session)], form: { csrf_token: csrfOf(page.text), 'appeal[text]': 'It was one link' },
    });
    expect(appealed.status).toBe(200);
    expect(appealed.text).toContain('Your appeal is pending');
    const [stored] = await strikesOf(target.account.id);
    expect(stored!.appeal).toMatchObject({ text: 'It was one link', state: 'pending' });
    expect((await pendingAppeals(admin.account)).map((s) => s.id)).toContain(strike!.id);
  });
});

describe('approve, reject, delete', () => {
  it('approves a pending sign-up once; 403 for an approved or remote account', async () => {
    const pending = await aUser({ approved: false });
    const res = await post(approve, pending.account.id, 'approve', moderator.token);
    expect(res.status).toBe(200);
    expect(res.body.approved).toBe(true);
    const list = await get(indexV2, '/api/v2/admin/accounts', moderator.token, { status: 'pending', username: pending.account.username });
    expect(list.body).toEqual([]);
    expect((await post(approve, pending.account.id, 'approve', moderator.token)).status).toBe(403);
    const remote = (await aRemoteAccount({ keyless: true })).account;
    expect((await post(approve, remote.id, 'approve', moderator.token)).status).toBe(403);
  });

  it('rejects a pending sign-up: the account is deleted, its username free again', async () => {
    const pending = await aUser({ approved: false });
    const res = await post(reject, pending.account.id, 'reject', moderator.token);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(pending.account.id);
    expect(await accountById(pending.account.id)).toBeUndefined();
    expect(await accountByUsername(pending.account.username)).toBeUndefined();
    const list = await get(indexV1, '/api/v1/admin/accounts', moderator.token, { username: pending.account.username });
    expect(list.body).toEqual([]);
    expect((await post(reject, pending.account.id, 'reject', moderator.token)).status).toBe(404);
    const approved = await aUser();
    expect((await post(reject, approved.account.id, 'reject', moderator.token)).status).toBe(403);
  });

  it('deletes only a suspended account, only with delete_user_data: the purge is due at once, and the account cannot be unsuspended', async () => {
    const target = await aUser();
    const del = (token: string) => call(remove, { method: 'DELETE', path: `/api/v1/admin/accounts/${target.account.id}`, pathParameters: { id: target.account.id }, token });
    expect((await del(admin.token)).status).toBe(403); // not suspended
    await post(action, target.account.id, 'action', admin.token, { type: 'suspend' });
    expect((await del(moderator.token)).status).toBe(403); // a moderator lacks delete_user_data
    const res = await del(admin.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.account.id, suspended: true });
    const requested = (await accountById(target.account.id))!.purgeRequestedAt;
    expect(requested).not.toBeNull();
    // The purge, due 30 days after the suspension, is the sweeper's next work.
    const due = await dueSuspensionWork(new Date().toISOString(), 1000);
    expect(due.filter((w) => w.accountId === target.account.id && w.kind === 'purge')).toHaveLength(1);
    expect((await del(admin.token)).status).toBe(200);
    expect((await accountById(target.account.id))!.purgeRequestedAt).toBe(requested);
    expect((await post(unsuspend, target.account.id, 'unsuspend', admin.token)).status).toBe(403);
  });
});

describe('the CLI', () => {
  it('`accounts reindex` puts accounts made before the facets into the list', async () => {
    const old = await aUser({ username: fresh('oldie') });
    const remote = (await aRemoteAccount({ domain: 'old.example', keyless: true })).account;
    // As before this change: in no facet.
    await batchWrite([], ['all', 'local', 'remote'].flatMap((f) => [keys.adminAccountFacet(f, old.account.id), keys.adminAccountFacet(f, remote.id)]));
    expect((await get(indexV1, '/api/v1/admin/accounts', moderator.token, { username: old.account.username })).body).toEqual([]);
    const out: string[] = [];
    expect(await main(['accounts', 'reindex'], { out: (l: string) => out.push(l), err: (l: string) => out.push(l) })).toBe(0);
    expect(out.join('\n')).toMatch(/Indexed \d+ local and \d+ remote accounts/);
    expect(ids((await get(indexV1, '/api/v1/admin/accounts', moderator.token, { username: old.account.username })).body)).toEqual([old.account.id]);
    expect(ids((await get(indexV2, '/api/v2/admin/accounts', moderator.token, { by_domain: 'old.example' })).body)).toEqual([remote.id]);
  });


  it('`accounts role alice moderator` shows as `role` on verify_credentials', async () => {
    const alice = await aUser({ username: fresh('alice') });
    const out: string[] = [];
    await main(['accounts', 'role', alice.account.username, 'moderator'], { out: (l: string) => out.push(l), err: (l: string) => out.push(l) });
    const res = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: alice.token });
    expect(res.body.role).toMatchObject({ id: '1', name: 'Moderator' });
  });
});

void instanceSettings;
