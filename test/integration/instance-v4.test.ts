// The instance endpoints of Mastodon 4 (rules, weekly activity, extended description), the version this
// server reports and where (v1, v2, NodeInfo), and the VAPID key the v2 instance always carries.
import { createECDH } from 'node:crypto';
import webpush from 'web-push';
import { handler as activity } from '../../functions/instance/activity';
import { handler as extendedDescription } from '../../functions/instance/extended_description';
import { handler as rules } from '../../functions/instance/rules';
import { handler as v1 } from '../../functions/instance/show';
import { handler as v2 } from '../../functions/instance/show_v2';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as nodeinfoHandler } from '../../functions/wellknown/nodeinfo_document';
import { registerAccount } from '../../lib/accounts/register';
import { API_VERSION, MASTODON_COMPATIBILITY } from '../../lib/config';
import { recordActivity, weekOf } from '../../lib/db/activity';
import { updateInstanceSettings } from '../../lib/db/instance';
import { forgetAllMemos } from '../../lib/memo';
import { countOnInstance, instanceStats } from '../../lib/db/stats';
import { derivedVapidKeys, secrets } from '../../lib/secrets';
import { call } from '../support/http';
import { aUser } from '../support/factories';

// X-Db-Calls on every answer: what each endpoint costs is part of what is tested.
process.env.EXPOSE_METRICS = '1';

const WEEK = 7 * 86_400_000;
const get = (handler: typeof rules, path: string, token?: string) => call(handler, { path, token });

describe('the version reported', () => {
  it('is one value, 4.6.0 with API version 10, in v1, v2 and NodeInfo', async () => {
    expect(MASTODON_COMPATIBILITY).toEqual({ version: '4.6.0', apiVersions: { mastodon: 10 } });
    expect(API_VERSION).toBe('4.6.0 (compatible; tootless 0.1.0)');
    expect((await get(v1, '/api/v1/instance')).body.version).toBe(API_VERSION);
    const two = (await get(v2, '/api/v2/instance')).body;
    expect(two.version).toBe(API_VERSION);
    expect(two.api_versions).toEqual({ mastodon: 10 });
    const nodeinfo = await call(nodeinfoHandler, { path: '/nodeinfo/2.0' });
    expect(nodeinfo.body.metadata.upstream).toEqual({ name: 'mastodon', version: '4.6.0' });
  });
});

describe('GET /api/v2/instance for the apps', () => {
  it('serves the streaming URL where Mastodon 4 puts it and where Ice Cubes reads it', async () => {
    const res = await get(v2, '/api/v2/instance');
    expect(res.body.configuration.urls.streaming).toBe('wss://social.example');
    expect(res.body.urls).toEqual({ streaming_api: 'wss://social.example' });
  });

  it('always carries a VAPID public key: the configured one, else one derived from the secret key base', async () => {
    const derived = (await get(v2, '/api/v2/instance')).body.configuration.vapid.public_key as string;
    expect(derived).toBe(derivedVapidKeys(process.env.SECRET_KEY_BASE!).publicKey);
    // A real P-256 point whose private half the server holds: web-push signs with the pair.
    const pair = secrets();
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(pair.vapidPrivateKey, 'base64url'));
    expect(ecdh.getPublicKey().toString('base64url')).toBe(derived);
    const headers = webpush.getVapidHeaders('https://push.example.net', 'mailto:admin@social.example', pair.vapidPublicKey, pair.vapidPrivateKey, 'aes128gcm');
    expect(headers.Authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/);
    // The same secret gives the same pair (every container, every restart); another secret another pair.
    expect(derivedVapidKeys(process.env.SECRET_KEY_BASE!)).toEqual(derivedVapidKeys(process.env.SECRET_KEY_BASE!));
    expect(derivedVapidKeys('another secret').publicKey).not.toBe(derived);

    const configured = webpush.generateVAPIDKeys();
    process.env.VAPID_PUBLIC_KEY = configured.publicKey;
    process.env.VAPID_PRIVATE_KEY = configured.privateKey;
    try {
      expect((await get(v2, '/api/v2/instance')).body.configuration.vapid.public_key).toBe(configured.publicKey);
    } finally {
      delete process.env.VAPID_PUBLIC_KEY;
      delete process.env.VAPID_PRIVATE_KEY;
    }
  });
});

describe('GET /api/v1/instance/rules', () => {
  it('answers the operator’s rules as Rule entities, publicly, in one read', async () => {
    await updateInstanceSettings({ rules: [{ id: '1', text: 'Be kind' }, { id: '2', text: 'No spam' }] });
    const res = await get(rules, '/api/v1/instance/rules');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ id: '1', text: 'Be kind', hint: '' }, { id: '2', text: 'No spam', hint: '' }]);
    expect(res.headers['cache-control']).toBe('public, max-age=180');
    // The settings item (read anew: the write forgot what this container kept), and the anonymous caller's
    // rate-limit counter (lib/http/ratelimit.ts).
    expect(res.headers['x-db-calls']).toBe('2');
    // Warm: the settings as this container keeps them (lib/memo.ts), only the counter read.
    const warm = await get(rules, '/api/v1/instance/rules');
    expect(warm.body).toEqual(res.body);
    expect(warm.headers['x-db-calls']).toBe('1');
    await updateInstanceSettings({ rules: [] });
    expect((await get(rules, '/api/v1/instance/rules')).body).toEqual([]);
  });
});

describe('GET /api/v1/instance/extended_description', () => {
  it('answers no date for a description never set, as Mastodon, whatever else the operator changed', async () => {
    await updateInstanceSettings({ title: 'Renamed' });
    forgetAllMemos();
    const res = await get(extendedDescription, '/api/v1/instance/extended_description');
    expect(res.body).toEqual({ updated_at: null, content: '' });
  });

  it('answers the operator’s description with when it changed, a date other settings do not move', async () => {
    const set = await updateInstanceSettings({ description: '<p>About us</p>' });
    await new Promise((r) => setTimeout(r, 5));
    await updateInstanceSettings({ title: 'Renamed again', description: '<p>About us</p>' });
    forgetAllMemos();
    expect((await get(extendedDescription, '/api/v1/instance/extended_description')).body).toEqual({ updated_at: set.descriptionUpdatedAt, content: '<p>About us</p>' });
    expect(set.descriptionUpdatedAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
  });

  it('answers the operator’s description with when the settings changed', async () => {
    const settings = await updateInstanceSettings({ description: '<p>About us</p>' });
    const res = await get(extendedDescription, '/api/v1/instance/extended_description');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated_at: settings.descriptionUpdatedAt, content: '<p>About us</p>' });
    // The settings item, and the rate-limit counter; warm, the counter only.
    expect(res.headers['x-db-calls']).toBe('2');
    expect((await get(extendedDescription, '/api/v1/instance/extended_description')).headers['x-db-calls']).toBe('1');
  });
});

describe('GET /api/v1/instance/activity', () => {
  it('answers 12 weeks, the current one first, each a Monday at midnight UTC, all values strings', async () => {
    const res = await get(activity, '/api/v1/instance/activity');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(12);
    const weeks = (res.body as { week: string }[]).map((w) => Number(w.week));
    expect(new Date(weeks[0]! * 1000).toISOString().slice(0, 10)).toBe(weekOf(new Date()));
    for (const [i, w] of weeks.entries()) {
      expect(new Date(w * 1000).getUTCDay()).toBe(1);
      expect(new Date(w * 1000).toISOString()).toMatch(/T00:00:00\.000Z$/);
      if (i > 0) expect(weeks[i - 1]! - w).toBe(7 * 86_400);
    }
    for (const week of res.body) expect(week).toEqual({ week: expect.any(String), statuses: expect.stringMatching(/^\d+$/), logins: expect.stringMatching(/^\d+$/), registrations: expect.stringMatching(/^\d+$/) });
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    // Whatever the instance holds: the weekly logins (one Query), the statistics item, the rate-limit counter.
    expect(res.headers['x-db-calls']).toBe('3');
  });

  it('counts statuses posted, distinct logins and registrations of each week as they happen', async () => {
    const thisWeek = async () => (await get(activity, '/api/v1/instance/activity')).body[0] as Record<string, string>;
    const before = await thisWeek();

    const poster = await aUser();
    const posted = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: 'counted this week' }, token: poster.token });
    expect(posted.status).toBe(200);
    const { account } = await registerAccount({ username: `weekly_${Date.now().toString(36)}`, email: `weekly_${Date.now().toString(36)}@example.com`, password: 'a long enough password', agreement: true, locale: 'en' }, { skipRules: true });
    await recordActivity(account.id);
    await recordActivity(account.id); // the same account again this week: still one login
    await recordActivity(poster.account.id);

    const after = await thisWeek();
    expect(Number(after.statuses) - Number(before.statuses)).toBe(1);
    expect(Number(after.registrations) - Number(before.registrations)).toBe(1);
    expect(Number(after.logins) - Number(before.logins)).toBe(2);
  });

  it('keeps earlier weeks apart, and a deleted status does not uncount its week', async () => {
    const now = new Date();
    const weeksAgo = (n: number) => new Date(now.getTime() - n * WEEK);
    const someone = await aUser();
    await recordActivity(someone.account.id, weeksAgo(3));
    await recordActivity(someone.account.id, new Date(weeksAgo(3).getTime() + 3_600_000)); // same week
    await recordActivity(someone.account.id, weeksAgo(1));
    await countOnInstance('statusCount', 1, weeksAgo(2));
    await countOnInstance('statusCount', 1, weeksAgo(2));
    await countOnInstance('statusCount', -1, weeksAgo(2));
    await countOnInstance('userCount', 1, weeksAgo(5));

    const body = (await get(activity, '/api/v1/instance/activity')).body as Record<string, string>[];
    expect(body[3]).toMatchObject({ logins: '1' });
    expect(body[1]).toMatchObject({ logins: '1' });
    expect(body[2]).toMatchObject({ statuses: '2' });
    expect(body[5]).toMatchObject({ registrations: '1' });
    // The instance-wide counter still moves both ways.
    expect((await instanceStats()).statusCount).toBeGreaterThanOrEqual(1);
  });

  it('drops the counts of weeks past the 12 shown from the statistics item as new ones are counted', async () => {
    const now = new Date();
    await countOnInstance('statusCount', 1, new Date(now.getTime() - 14 * WEEK));
    const { getItem } = await import('../../lib/db/table');
    const keys = await import('../../lib/db/keys');
    const { z } = await import('zod');
    const staleName = `week:${weekOf(new Date(now.getTime() - 14 * WEEK))}:statuses`;
    expect((await getItem(keys.instanceStats(), z.record(z.unknown())))?.[staleName]).toBe(1);
    await countOnInstance('statusCount', 1, now);
    expect((await getItem(keys.instanceStats(), z.record(z.unknown())))?.[staleName]).toBeUndefined();
  });
});
