// The dashboard (POST /api/v1/admin/measures, /dimensions, /retention): Mastodon's Admin::Measure,
// Admin::Dimension and Admin::Cohort, computed from counters the real paths keep (sign-ups through
// POST /api/v1/accounts, favourites, reblogs and replies through their endpoints, a report filed and resolved,
// sign-ins through the sign-in worker, tags through the fan-out), with exact figures for the exact keys.
import type { SQSEvent } from 'aws-lambda';
import { handler as register } from '../../functions/accounts/create';
import { handler as dimensions } from '../../functions/admin_stats/dimensions';
import { handler as measures } from '../../functions/admin_stats/measures';
import { handler as retention } from '../../functions/admin_stats/retention';
import { handler as fileReport } from '../../functions/reports/create';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as favourite } from '../../functions/statuses/favourite';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as signinWorker } from '../../functions/workers/signin';
import { resolveReportCommand } from '../../lib/admin/report_commands';
import { accountByUsername, setRole, type Account } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import { SOFTWARE } from '../../lib/config';
import { newId } from '../../lib/ids';
import { enqueue, registerInlineWorker } from '../../lib/queue';
import { tagId } from '../../lib/render/tag';
import { activity, aNote, collectDeliveries, receive } from '../support/activities';
import { aFollow, anAppToken, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

process.env.RATE_LIMIT_FACTOR = '100';
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('signin', signinWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
collectDeliveries();

const DAY = 24 * 60 * 60 * 1000;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const now = new Date();
const today = dayOf(now);
const yesterday = dayOf(new Date(now.getTime() - DAY));
const midnight = (day: string) => `${day}T00:00:00Z`;

type Measure = { key: string; unit: string | null; total: string; previous_total?: string; human_value?: string; data: { date: string; value: string }[] };
type Cohort = { period: string; frequency: string; data: { date: string; rate: number; value: string }[] };

const ask = (handler: typeof measures, path: string, json: Record<string, unknown>, token: string) => call(handler, { method: 'POST', path, json, token });
const measure = (json: Record<string, unknown>, token: string) => ask(measures, '/api/v1/admin/measures', json, token);
const period = { start_at: yesterday, end_at: today };

describe('admin measures, dimensions and retention on seeded data', () => {
  let moderator: UserFixture;
  let admin: UserFixture;
  let registered: Account[];
  const tag = `dash${newId().slice(-8)}`;

  beforeAll(async () => {
    await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
    moderator = await aUser({ scopes: ['read', 'write', 'admin:read'] });
    await setRole(moderator.account.id, '1', false);
    admin = await aUser({ scopes: ['admin:read'] });
    await setRole(admin.account.id, '2', false);

    // Three sign-ups through the API: today's new users.
    const { token: appToken } = await anAppToken(['read', 'write']);
    registered = [];
    for (let i = 0; i < 3; i++) {
      const username = `dash_${newId().slice(-8)}_${i}`;
      const res = await call(register, { method: 'POST', path: '/api/v1/accounts', token: appToken, json: { username, email: `${username}@example.com`, password: 'hunter2hunter2', agreement: true, locale: 'en' } });
      expect(res.status).toBe(200);
      registered.push((await accountByUsername(username))!);
    }
    // Sign-ins through the sign-in worker: the first account yesterday and today, the second today; the third never.
    const [first, second] = registered as [Account, Account];
    await enqueue('signin', { accountId: first.id, at: new Date(now.getTime() - DAY).toISOString() });
    await enqueue('signin', { accountId: first.id, at: now.toISOString() });
    await enqueue('signin', { accountId: second.id, at: now.toISOString() });
    await enqueue('signin', { accountId: second.id, at: now.toISOString() });

    // Interactions: a favourite, a reblog and a reply to another account (a reply to oneself is none).
    const [alice, bob] = [await aUser(), await aUser()];
    const posted = async (user: UserFixture, json: Record<string, unknown>) => {
      const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json, token: user.token });
      expect(res.status).toBe(200);
      return res.body as { id: string };
    };
    const target = await posted(alice, { status: `hello #${tag}` });
    await posted(alice, { status: `again #${tag}` });
    await posted(bob, { status: `me too #${tag}` });
    for (const [handler, verb] of [[favourite, 'favourite'], [reblog, 'reblog']] as const) {
      expect((await call(handler, { method: 'POST', path: `/api/v1/statuses/${target.id}/${verb}`, pathParameters: { id: target.id }, token: bob.token })).status).toBe(200);
    }
    await posted(bob, { status: 'a reply', in_reply_to_id: target.id });
    await posted(alice, { status: 'to myself', in_reply_to_id: target.id });

    // Statuses received from two servers (followed here, so their Creates are stored): the servers dimension.
    const follower = await aUser();
    for (const [domain, notes] of [['busy.example', 2], ['quiet.example', 1]] as const) {
      const remote = (await aRemoteAccount({ domain, keyless: true })).account as Account & { uri: string; followersUrl: string };
      await aFollow(follower.account, remote);
      for (let i = 0; i < notes; i++) expect(await receive(activity(remote, 'Create', aNote(remote)))).toBe('applied');
      // A report about the busy server's account (not forwarded): an instance report, and one more opened report.
      if (domain === 'busy.example') {
        expect((await call(fileReport, { method: 'POST', path: '/api/v1/reports', json: { account_id: remote.id, comment: 'from afar' }, token: follower.token })).status).toBe(200);
      }
    }

    // Two reports filed, one resolved.
    for (let i = 0; i < 2; i++) {
      const res = await call(fileReport, { method: 'POST', path: '/api/v1/reports', json: { account_id: alice.account.id, comment: `spam ${i}` }, token: bob.token });
      expect(res.status).toBe(200);
      if (i === 0) await resolveReportCommand((res.body as { id: string }).id);
    }
  });

  it('answers each exact key with its figures, the days of the period and the previous period total', async () => {
    const res = await measure({ keys: ['new_users', 'active_users', 'interactions', 'opened_reports', 'resolved_reports'], ...period }, moderator.token);
    expect(res.status).toBe(200);
    const byKey = new Map((res.body as Measure[]).map((m) => [m.key, m]));
    const days = (y: number, t: number) => [{ date: midnight(yesterday), value: String(y) }, { date: midnight(today), value: String(t) }];
    expect(byKey.get('new_users')).toEqual({ key: 'new_users', unit: null, total: '3', previous_total: '0', data: days(0, 3) });
    // Daily active accounts; the period ends today, so its total is its distinct accounts exactly (not 1 + 2).
    expect(byKey.get('active_users')).toEqual({ key: 'active_users', unit: null, total: '2', previous_total: '0', data: days(1, 2) });
    expect(byKey.get('interactions')).toEqual({ key: 'interactions', unit: null, total: '3', previous_total: '0', data: days(0, 3) });
    expect(byKey.get('opened_reports')).toEqual({ key: 'opened_reports', unit: null, total: '3', previous_total: '0', data: days(0, 3) });
    expect(byKey.get('resolved_reports')).toEqual({ key: 'resolved_reports', unit: null, total: '1', previous_total: '0', data: days(0, 1) });
    // Keys come back in the order asked.
    expect((res.body as Measure[]).map((m) => m.key)).toEqual(['new_users', 'active_users', 'interactions', 'opened_reports', 'resolved_reports']);
  });

  it('answers a tag’s uses, accounts and servers by its id (form-encoded, as Mastodon’s web client sends it); 404 for an unknown tag', async () => {
    const body = `keys[]=tag_uses&keys[]=tag_accounts&keys[]=tag_servers&start_at=${yesterday}&end_at=${today}&tag_uses[id]=${tagId(tag)}&tag_accounts[id]=${tagId(tag)}&tag_servers[id]=${tagId(tag)}`;
    const res = await call(measures, { method: 'POST', path: '/api/v1/admin/measures', body: { data: body, contentType: 'application/x-www-form-urlencoded' }, token: moderator.token });
    expect(res.status).toBe(200);
    const [uses, accounts, servers] = res.body as Measure[];
    expect(uses).toEqual({ key: 'tag_uses', unit: null, total: '3', previous_total: '0', data: [{ date: midnight(yesterday), value: '0' }, { date: midnight(today), value: '3' }] });
    expect(accounts).toMatchObject({ key: 'tag_accounts', total: '2', data: [{ value: '0' }, { value: '2' }] });
    // Both authors are of this server: one server used it today.
    expect(servers).toEqual({ key: 'tag_servers', unit: null, total: '1', previous_total: '0', data: [{ date: midnight(yesterday), value: '0' }, { date: midnight(today), value: '1' }] });
    const missing = await measure({ keys: ['tag_uses'], ...period, tag_uses: { id: '123456789' } }, moderator.token);
    expect(missing.status).toBe(404);
  });

  it('answers the instance_* keys to those who manage federation only: a server\'s statuses, accounts and reports per day', async () => {
    const busy = { domain: 'BUSY.example' };
    const json = {
      keys: ['instance_statuses', 'instance_accounts', 'instance_reports', 'instance_media_attachments'],
      ...period,
      instance_statuses: busy, instance_accounts: busy, instance_reports: busy, instance_media_attachments: busy,
    };
    const refused = await measure(json, moderator.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'This action is not allowed' });
    const res = await measure(json, admin.token);
    expect(res.status).toBe(200);
    const days = (t: number) => [{ date: midnight(yesterday), value: '0' }, { date: midnight(today), value: String(t) }];
    expect(res.body).toEqual([
      { key: 'instance_statuses', unit: null, total: '2', data: days(2) },
      { key: 'instance_accounts', unit: null, total: '1', data: days(1) },
      { key: 'instance_reports', unit: null, total: '1', data: days(1) },
      // Nothing counts a server's media here.
      { key: 'instance_media_attachments', unit: 'bytes', total: '0', human_value: '0 Bytes', data: [] },
    ]);
    const noDomain = await measure({ keys: ['instance_statuses'], ...period }, admin.token);
    expect(noDomain.status).toBe(422);
    expect(noDomain.body).toEqual({ error: "Validation failed: instance_statuses[domain] can't be blank" });
  });

  it('answers the dimensions: software versions, sign-in languages, servers and sign-up sources exactly, the uncounted ones with no data', async () => {
    const res = await ask(dimensions, '/api/v1/admin/dimensions', { keys: ['software_versions', 'languages', 'servers', 'sources', 'space_usage'], ...period, limit: 2 }, moderator.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        key: 'software_versions',
        data: [
          { key: 'tootless', human_key: 'Tootless', value: SOFTWARE.version, human_value: SOFTWARE.version },
          { key: 'mastodon_api', human_key: 'Mastodon API', value: '4.6.0', human_value: '4.6.0' },
        ],
      },
      // The accounts whose latest sign-in is in the period, by locale: the first moved from yesterday to today, counted once.
      { key: 'languages', data: [{ key: 'en', human_key: 'English', value: '2' }] },
      // The remote servers whose statuses arrived in the period, most first (at most `limit`).
      { key: 'servers', data: [{ key: 'busy.example', human_key: 'busy.example', value: '2' }, { key: 'quiet.example', human_key: 'quiet.example', value: '1' }] },
      // The three sign-ups came through the test application.
      { key: 'sources', data: [{ key: 'Test app', human_key: 'Test app', value: '3' }] },
      { key: 'space_usage', data: [] },
    ]);
    const tagless = await ask(dimensions, '/api/v1/admin/dimensions', { keys: ['tag_languages'], ...period }, moderator.token);
    expect(tagless.status).toBe(422);
    expect((await ask(dimensions, '/api/v1/admin/dimensions', { keys: ['instance_languages'], ...period, instance_languages: { domain: 'x.example' } }, moderator.token)).status).toBe(403);
  });

  it('answers the sign-up cohorts by day and by month: accounts last active in or after each period, and their share', async () => {
    const res = await ask(retention, '/api/v1/admin/retention', { start_at: today, end_at: today, frequency: 'day' }, moderator.token);
    expect(res.status).toBe(200);
    // Three signed up today (and the fixtures' accounts, which never signed in and are not counted as sign-ups); two signed in.
    expect(res.body).toEqual([{ period: `${today}T00:00:00.000Z`, frequency: 'day', data: [{ date: `${today}T00:00:00.000Z`, rate: 2 / 3, value: '2' }] }]);

    const monthly = await ask(retention, '/api/v1/admin/retention', { start_at: today, end_at: today, frequency: 'month' }, moderator.token);
    expect(monthly.status).toBe(200);
    const month = `${today.slice(0, 7)}-01T00:00:00.000Z`;
    expect(monthly.body).toEqual([{ period: month, frequency: 'month', data: [{ date: month, rate: 2 / 3, value: '2' }] }]);

    const span = (await ask(retention, '/api/v1/admin/retention', { ...period }, moderator.token)).body as Cohort[];
    expect(span.map((c) => c.period)).toEqual([`${yesterday}T00:00:00.000Z`, `${today}T00:00:00.000Z`]);
    expect(span[0]!.data.map((d) => d.date)).toEqual([`${yesterday}T00:00:00.000Z`, `${today}T00:00:00.000Z`]);
    expect(span[0]!.data.every((d) => d.value === '0' && d.rate === 0)).toBe(true);
  });
});

describe('admin measures: bad input and permissions', () => {
  let moderator: UserFixture;
  beforeAll(async () => {
    moderator = await aUser({ scopes: ['admin:read'] });
    await setRole(moderator.account.id, '1', false);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown key', { keys: ['new_users', 'daily_mood'], start_at: '2026-01-01', end_at: '2026-01-02' }, 'Validation failed: keys has unknown keys: daily_mood'],
    ['no keys', { start_at: '2026-01-01', end_at: '2026-01-02' }, "Validation failed: keys can't be blank"],
    ['a bad start_at', { keys: ['new_users'], start_at: 'yesterday', end_at: '2026-01-02' }, 'Validation failed: start_at must be a date'],
    ['an impossible end_at', { keys: ['new_users'], start_at: '2026-01-01', end_at: '2026-02-31x' }, 'Validation failed: end_at must be a date'],
    ['an end before the start', { keys: ['new_users'], start_at: '2026-01-05', end_at: '2026-01-01' }, 'Validation failed: end_at must not be before start_at'],
    ['a period over 400 days', { keys: ['new_users'], start_at: '2020-01-01', end_at: '2026-01-01' }, 'Validation failed: end_at must be at most 400 days after start_at'],
    ['a tag measure without its id', { keys: ['tag_uses'], start_at: '2026-01-01', end_at: '2026-01-02' }, "Validation failed: tag_uses[id] can't be blank"],
  ])('measures: 422 for %s', async (_what, json, error) => {
    const res = await measure(json, moderator.token);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error });
  });

  it('dimensions and retention: 422 naming the field', async () => {
    const unknown = await ask(dimensions, '/api/v1/admin/dimensions', { keys: ['colours'], start_at: '2026-01-01', end_at: '2026-01-02' }, moderator.token);
    expect(unknown.body).toEqual({ error: 'Validation failed: keys has unknown keys: colours' });
    const week = await ask(retention, '/api/v1/admin/retention', { start_at: '2026-01-01', end_at: '2026-01-02', frequency: 'week' }, moderator.token);
    expect(week.status).toBe(422);
    expect(week.body).toEqual({ error: 'Validation failed: frequency must be day or month' });
    const undated = await ask(retention, '/api/v1/admin/retention', { frequency: 'day' }, moderator.token);
    expect(undated.body).toEqual({ error: "Validation failed: start_at can't be blank, end_at can't be blank" });
  });

  it('403 without view_dashboard or the admin:read scope', async () => {
    const json = { keys: ['new_users'], start_at: '2026-01-01', end_at: '2026-01-02' };
    const nobody = await aUser({ scopes: ['admin:read'] });
    for (const [handler, path] of [[measures, '/api/v1/admin/measures'], [dimensions, '/api/v1/admin/dimensions'], [retention, '/api/v1/admin/retention']] as const) {
      const res = await ask(handler, path, json, nobody.token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'This action is not allowed' });
    }
    const unscoped = await aUser({ scopes: ['read'] });
    await setRole(unscoped.account.id, '2', false);
    expect((await measure(json, unscoped.token)).body).toEqual({ error: 'This action is outside the authorized scopes' });
  });
});
