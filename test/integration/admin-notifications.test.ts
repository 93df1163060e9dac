// Moderators are told (lib/moderation/staff_notices.ts): a new local sign-up is an admin.sign_up notification to
// each staff account whose role may manage users; a new report (filed here or received as a Flag) an admin.report
// notification and an e-mail to each one whose role may manage reports; nobody else is told. The notifications
// travel the usual way: listed (v1 and grouped), streamed, pushed when the subscription asks for the alert.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SQSEvent } from 'aws-lambda';
import webpush from 'web-push';
import { handler as registerHandler } from '../../functions/accounts/create';
import { handler as resolveHandler } from '../../functions/admin_reports/resolve';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as groupedHandler } from '../../functions/notifications/v2_index';
import { handler as subscribeHandler } from '../../functions/push/create';
import { handler as createReport } from '../../functions/reports/create';
import { handler as mailWorker } from '../../functions/workers/mail';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as pushWorker } from '../../functions/workers/push';
import { setRole, type Account } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import * as keys from '../../lib/db/keys';
import { notificationItem } from '../../lib/db/notifications';
import { query } from '../../lib/db/table';
import { apUrls } from '../../lib/federation/urls';
import { useResolver } from '../../lib/push/endpoint';
import { registerInlineWorker } from '../../lib/queue';
import { receive } from '../support/activities';
import { aRemoteAccount, anAppToken, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { connectThroughHandler, useManagementApi, type ManagementRequest } from '../support/management-api';
import { pushReceiver, type PushReceiver } from '../support/push-receiver';

// ---- the workers: the notify queue is run inline unless a test holds its messages back ----
let held: unknown[] | undefined;
registerInlineWorker('notify', async (event: SQSEvent, context) => {
  if (held) {
    held.push(...event.Records.map((r) => JSON.parse(r.body) as unknown));
    return { batchItemFailures: [] };
  }
  return notifyWorker(event, context);
});
registerInlineWorker('push', pushWorker);
registerInlineWorker('mail', mailWorker);

// ---- push: a real receiver on loopback ----
const VAPID = webpush.generateVAPIDKeys();
beforeAll(() => {
  process.env.VAPID_PUBLIC_KEY = VAPID.publicKey;
  process.env.VAPID_PRIVATE_KEY = VAPID.privateKey;
  process.env.PUSH_ALLOW_LOOPBACK = '1';
  useResolver(async (host: string) => {
    if (host !== 'localhost') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return ['127.0.0.1'];
  });
});
afterAll(() => useResolver(undefined));

// ---- streaming: a stand-in for the Management API records each frame ----
type Frame = { stream: string[]; event: string; payload?: string };
const frames: { connectionId: string; frame: Frame }[] = [];
useManagementApi((req: ManagementRequest, res: ServerResponse) => {
  if (req.method !== 'POST' || !req.connectionId) return res.writeHead(404).end();
  frames.push({ connectionId: req.connectionId, frame: JSON.parse(req.body.toString('utf8')) as Frame });
  res.writeHead(200).end();
});
const notificationFrames = (connectionId: string) =>
  frames.filter((f) => f.connectionId === connectionId && f.frame.event === 'notification').map((f) => JSON.parse(f.frame.payload ?? 'null') as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any

// ---- mail: the local mailer writes one JSON file per message ----
type Mail = { to: string; subject: string; text: string; html?: string };
async function mailsTo(address: string): Promise<Mail[]> {
  const dir = process.env.MAIL_DIR ?? '';
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(`-${address}.json`));
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as Mail));
}

const STAFF_SCOPES = ['read', 'write', 'push', 'admin:read', 'admin:write'];

async function aStaffMember(roleId: string | null, opts: { confirmed?: boolean } = {}): Promise<UserFixture & { account: Account }> {
  const user = await aUser({ scopes: STAFF_SCOPES, ...opts });
  // A null role with the admin flag: an owner made before roles existed (roleOf reads it as Owner).
  const account = await setRole(user.account.id, roleId, roleId === null || roleId === '3');
  return { ...user, account: account! };
}

const stored = async (account: Pick<Account, 'id'>) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.notificationsPartition(account.id) } }, notificationItem)).items;
const ofType = async (account: Pick<Account, 'id'>, type: string) => (await stored(account)).filter((n) => n.type === type);

const notificationsOf = (token: string, query: Record<string, string | string[]> = {}) =>
  call(notificationsHandler, { path: '/api/v1/notifications', query, token });

let moderator: Awaited<ReturnType<typeof aStaffMember>>;
let admin: Awaited<ReturnType<typeof aStaffMember>>;
let legacyOwner: Awaited<ReturnType<typeof aStaffMember>>;
let unconfirmedModerator: Awaited<ReturnType<typeof aStaffMember>>;
let plain: UserFixture;
let appToken: string;

beforeAll(async () => {
  await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
  ({ token: appToken } = await anAppToken(['read', 'write']));
  moderator = await aStaffMember('1');
  admin = await aStaffMember('2');
  legacyOwner = await aStaffMember(null);
  unconfirmedModerator = await aStaffMember('1', { confirmed: false });
  plain = await aUser({ scopes: STAFF_SCOPES });
});
beforeEach(() => {
  held = undefined;
});

let seq = 0;
async function signUp(): Promise<string> {
  seq += 1;
  const username = `newcomer_${Date.now().toString(36)}_${seq}`;
  const res = await call(registerHandler, {
    method: 'POST',
    path: '/api/v1/accounts',
    json: { username, email: `${username}@example.com`, password: 'hunter2hunter2', agreement: true },
    token: appToken,
  });
  expect(res.status).toBe(200);
  return username;
}

async function fileReport(reporter: UserFixture, target: Account, comment = 'abuse'): Promise<string> {
  const res = await call(createReport, { method: 'POST', path: '/api/v1/reports', json: { account_id: target.id, comment, category: 'spam' }, token: reporter.token });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

describe('admin.sign_up', () => {
  it('tells each staff account that may manage users, and nobody else, of a new local sign-up', async () => {
    const username = await signUp();
    for (const staff of [moderator, admin, legacyOwner, unconfirmedModerator]) {
      const [n, ...more] = await ofType(staff.account, 'admin.sign_up');
      expect(more).toEqual([]);
      expect(n).toBeDefined();
    }
    expect(await stored(plain.account)).toEqual([]);

    const res = await notificationsOf(moderator.token, { types: ['admin.sign_up'] });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ type: 'admin.sign_up', account: { username, acct: username } });
    expect(res.body[0]).not.toHaveProperty('status');
    expect(res.body[0].group_key).toBe(`ungrouped-${res.body[0].id}`);
  });

  it('stops once the account loses its role', async () => {
    const former = await aStaffMember('1');
    await setRole(former.account.id, null, false);
    const before = (await ofType(moderator.account, 'admin.sign_up')).length;
    await signUp();
    expect(await stored(former.account)).toEqual([]);
    expect(await ofType(moderator.account, 'admin.sign_up')).toHaveLength(before + 1);
  });
});

describe('admin.report', () => {
  it('is sent from the notify queue, not during the request', async () => {
    held = [];
    const target = await aUser();
    const reportId = await fileReport(plain, target.account);
    expect(held).toEqual([{ notice: 'admin.report', reportId }]);
    expect(await ofType(moderator.account, 'admin.report')).toEqual([]);
    // The held notice, run now as the queue would.
    held = undefined;
    await notifyWorker({ Records: [{ body: JSON.stringify({ notice: 'admin.report', reportId }) }] } as SQSEvent);
    expect((await ofType(moderator.account, 'admin.report')).map((n) => n.reportId)).toEqual([reportId]);
    // Delivered again, it tells nobody twice.
    await notifyWorker({ Records: [{ body: JSON.stringify({ notice: 'admin.report', reportId }) }] } as SQSEvent);
    expect(await ofType(moderator.account, 'admin.report')).toHaveLength(1);
    expect((await mailsTo(moderator.account.email!)).filter((m) => m.subject.includes(reportId))).toHaveLength(1);
  });

  it('tells each functional staff account that may manage reports, with the Report, and mails them; nobody else', async () => {
    const target = await aUser();
    const reportId = await fileReport(plain, target.account, 'they keep spamming');
    for (const staff of [moderator, admin, legacyOwner]) {
      const found = (await ofType(staff.account, 'admin.report')).filter((n) => n.reportId === reportId);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ fromAccountId: plain.account.id });
      const mails = (await mailsTo(staff.account.email!)).filter((m) => m.subject === `New report for social.example (#${reportId})`);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain(`${plain.account.username} has reported ${target.account.username}.`);
      expect(mails[0]!.text).toContain('they keep spamming');
      expect(mails[0]!.text).toContain(`https://social.example/admin/reports/${reportId}`);
      expect(mails[0]!.html).toContain(`/admin/reports/${reportId}`);
    }
    // Not yet confirmed: not functional (Mastodon's User#functional?), so not told; nor are the reporter, the
    // target or a user without a role.
    expect((await ofType(unconfirmedModerator.account, 'admin.report')).filter((n) => n.reportId === reportId)).toEqual([]);
    expect(await mailsTo(unconfirmedModerator.account.email!)).toEqual([]);
    expect(await ofType(plain.account, 'admin.report')).toEqual([]);
    expect(await stored(target.account)).toEqual([]);
    expect(await mailsTo(plain.account.email!)).toEqual([]);

    // Listed with the Report entity (v1 and grouped).
    const res = await notificationsOf(moderator.token, { types: ['admin.report'] });
    const listed = (res.body as Record<string, any>[]).find((n) => n.report?.id === reportId); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(listed).toMatchObject({
      type: 'admin.report',
      account: { id: plain.account.id },
      report: { id: reportId, category: 'spam', comment: 'they keep spamming', action_taken: false, target_account: { id: target.account.id } },
    });
    const excluded = await notificationsOf(moderator.token, { exclude_types: ['admin.report', 'admin.sign_up'] });
    expect(excluded.body).toEqual([]);
    const grouped = await call(groupedHandler, { path: '/api/v2/notifications', query: { types: ['admin.report'] }, token: moderator.token });
    expect(grouped.status).toBe(200);
    const group = (grouped.body.notification_groups as Record<string, any>[]).find((g) => g.report?.id === reportId); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(group).toMatchObject({ type: 'admin.report', notifications_count: 1, sample_account_ids: [plain.account.id], report: { target_account: { id: target.account.id } } });
  });

  it('carries a fallback text (Mastodon 4.6) for a client that lists the types it shows and not these', async () => {
    const target = await aUser();
    const reportId = await fileReport(plain, target.account, 'they <b>keep</b> spamming');
    const res = await notificationsOf(moderator.token, { types: ['admin.report', 'admin.sign_up'], supported_types: ['mention', 'favourite'] });
    const listed = (res.body as Record<string, any>[]).find((n) => n.report?.id === reportId); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(listed!.fallback).toEqual({
      text: expect.stringMatching(new RegExp(`^<p><span class="h-card" translate="no"><a href="[^"]+" class="u-url mention">@<span>${plain.account.username}</span></a></span> reported <span class="h-card"`)),
      summary: 'New report',
      description: '<p>Category: spam</p><p>they &lt;b&gt;keep&lt;/b&gt; spamming</p>',
    });
    const signUps = (res.body as Record<string, any>[]).filter((n) => n.type === 'admin.sign_up'); // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const n of signUps) expect(n.fallback).toMatchObject({ text: expect.stringContaining('signed up</p>'), summary: 'New sign-up' });
    const knowing = await notificationsOf(moderator.token, { types: ['admin.report'], supported_types: ['admin.report'] });
    expect((knowing.body as Record<string, unknown>[]).every((n) => !('fallback' in n))).toBe(true);
  });

  it('is not sent again while another report about the same account is open (Mastodon\'s unresolved siblings); after it is resolved, it is', async () => {
    const target = await aUser();
    const first = await fileReport(plain, target.account);
    const second = await fileReport(admin, target.account);
    const reportIds = async () => (await ofType(moderator.account, 'admin.report')).map((n) => n.reportId);
    expect(await reportIds()).toContain(first);
    expect(await reportIds()).not.toContain(second);
    expect((await mailsTo(moderator.account.email!)).filter((m) => m.subject.includes(second))).toEqual([]);

    for (const id of [first, second]) {
      expect((await call(resolveHandler, { method: 'POST', path: `/api/v1/admin/reports/${id}/resolve`, pathParameters: { id }, token: moderator.token })).status).toBe(200);
    }
    const third = await fileReport(plain, target.account);
    expect(await reportIds()).toContain(third);
  });

  it('is sent for a report received in a Flag, from the reporting server\'s actor', async () => {
    const target = await aUser();
    const server = (await aRemoteAccount({ domain: 'reporting.example', keyless: true })).account as Account & { uri: string };
    const flag = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `https://reporting.example/${randomUUID()}`,
      type: 'Flag',
      actor: server.uri,
      object: [apUrls.actor(target.account.username)],
      content: 'from afar',
    };
    expect(await receive(flag)).toBe('applied');
    const [n] = (await ofType(admin.account, 'admin.report')).filter((x) => x.fromAccountId === server.id);
    expect(n).toBeDefined();
    const res = await notificationsOf(admin.token, { types: ['admin.report'] });
    expect((res.body as Record<string, any>[]).find((x) => x.id === n!.id)).toMatchObject({ account: { id: server.id }, report: { comment: 'from afar', target_account: { id: target.account.id } } }); // eslint-disable-line @typescript-eslint/no-explicit-any
    const mail = (await mailsTo(admin.account.email!)).find((m) => m.subject.includes(n!.reportId!));
    expect(mail?.text).toContain('another server (reporting.example) has reported');
    // The same Flag again tells nobody again.
    expect(await receive(flag)).toBe('replayed');
    expect((await ofType(admin.account, 'admin.report')).filter((x) => x.fromAccountId === server.id)).toHaveLength(1);
  });
});

describe('push and streaming', () => {
  let receiver: PushReceiver;
  let otherReceiver: PushReceiver;
  beforeEach(async () => {
    receiver = await pushReceiver();
    otherReceiver = await pushReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await otherReceiver.close();
  });

  const subscribe = async (user: UserFixture, to: PushReceiver, alerts: Record<string, boolean>) => {
    const res = await call(subscribeHandler, {
      method: 'POST',
      path: '/api/v1/push/subscription',
      token: user.token,
      json: { subscription: { endpoint: to.endpoint, keys: to.keys }, data: { alerts } },
    });
    expect(res.status).toBe(200);
    expect(res.body.alerts).toMatchObject(alerts);
  };

  it('pushes admin.report and admin.sign_up to subscriptions asking for them, and streams them to the user stream', async () => {
    await subscribe(moderator, receiver, { 'admin.report': true, 'admin.sign_up': true });
    await subscribe(admin, otherReceiver, { 'admin.report': false, mention: true });
    const moderatorStream = await connectThroughHandler(moderator.token, { stream: 'user' });
    const plainStream = await connectThroughHandler(plain.token, { stream: 'user:notification' });

    const target = await aUser();
    const reportId = await fileReport(plain, target.account);
    const username = await signUp();

    const payloads = receiver.received.map((r) => JSON.parse(receiver.decrypt(r.body)) as Record<string, unknown>);
    expect(payloads.map((p) => p.notification_type)).toEqual(['admin.report', 'admin.sign_up']);
    expect(payloads[0]).toMatchObject({ title: `${plain.account.username} submitted a report` });
    expect(payloads[1]).toMatchObject({ title: `${username} signed up` });
    // The admin's subscription did not ask for either.
    expect(otherReceiver.received).toEqual([]);

    const streamed = notificationFrames(moderatorStream);
    expect(streamed.map((n) => n.type)).toEqual(['admin.report', 'admin.sign_up']);
    expect(streamed[0]).toMatchObject({ report: { id: reportId, target_account: { id: target.account.id } }, account: { id: plain.account.id } });
    expect(streamed[1]).toMatchObject({ account: { username } });
    expect(notificationFrames(plainStream)).toEqual([]);
  });
});
