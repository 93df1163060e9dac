// The admin API's IP rules (/api/v1/admin/ip_blocks, Mastodon 4.3): every route with its bad inputs and
// permissions, ranges stored masked (IPv4 and IPv6), the audit log, and what each severity does: sign_up_block
// refuses POST /api/v1/accounts as Mastodon's AppSignUpService (403), sign_up_requires_approval holds the account,
// no_access refuses every request from the range with what Mastodon's Rack::Attack blocklist answers (403
// "Forbidden"), the streaming WebSocket's handshake too, loopback excepted; an expired rule, or one removed, applies no more. The rules are kept per
// container (lib/memo.ts): a request from an address no rule holds reads nothing for them.
import { randomUUID } from 'node:crypto';
import { handler as createAccount } from '../../functions/accounts/create';
import { handler as createRule } from '../../functions/admin_ip_blocks/create';
import { handler as deleteRule } from '../../functions/admin_ip_blocks/delete';
import { handler as listRules } from '../../functions/admin_ip_blocks/index';
import { handler as showRule } from '../../functions/admin_ip_blocks/show';
import { handler as updateRule } from '../../functions/admin_ip_blocks/update';
import { handler as instanceHandler } from '../../functions/instance/show_v2';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as connect } from '../../functions/streaming/connect';
import { connectionById } from '../../lib/db/connections';
import { accountByUsername } from '../../lib/db/accounts';
import { auditLogPage } from '../../lib/db/audit_log';
import { createIpBlock } from '../../lib/db/sign_up_blocks';
import { newId } from '../../lib/ids';
import { forgetIpBlocks } from '../../lib/policy/ip_blocks';
import { anAppToken, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { aStaffUser } from '../support/staff';

let admin: UserFixture;
let moderator: UserFixture;
let user: UserFixture;
let appToken: string;
beforeAll(async () => {
  [admin, moderator, user] = await Promise.all([aStaffUser('admin'), aStaffUser('moderator'), aStaffUser(null)]);
  ({ token: appToken } = await anAppToken(['read', 'write', 'follow', 'push']));
});

/** The admin's own requests come from loopback, which no rule refuses (as Mastodon's Rack::Attack safelist). */
const ADMIN_IP = '127.0.0.1';
const PATH = '/api/v1/admin/ip_blocks';
const create = (who: UserFixture, form: Record<string, string>) => call(createRule, { method: 'POST', path: PATH, form, token: who.token, sourceIp: ADMIN_IP });
const show = (who: UserFixture, id: string) => call(showRule, { path: `${PATH}/${id}`, pathParameters: { id }, token: who.token, sourceIp: ADMIN_IP });
const update = (who: UserFixture, id: string, form: Record<string, string>) =>
  call(updateRule, { method: 'PUT', path: `${PATH}/${id}`, pathParameters: { id }, form, token: who.token, sourceIp: ADMIN_IP });
const remove = (who: UserFixture, id: string) => call(deleteRule, { method: 'DELETE', path: `${PATH}/${id}`, pathParameters: { id }, token: who.token, sourceIp: ADMIN_IP });
const list = (who: UserFixture, query: Record<string, string> = {}) => call(listRules, { path: PATH, query, token: who.token, sourceIp: ADMIN_IP });

/** A /24 of the documentation ranges per test, so that rules of one test never hold another's addresses. */
let nextNet = 1;
const aNet = () => `10.${nextNet++}.0`;
const aName = () => `u${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const signUp = (sourceIp: string, username = aName()) =>
  call(createAccount, { method: 'POST', path: '/api/v1/accounts', form: { username, email: `${username}@example.com`, password: 'correct horse battery', agreement: 'true' }, token: appToken, sourceIp });

/** The streaming WebSocket's $connect from `sourceIp`, as API Gateway sends it, with the user's token. */
async function handshake(sourceIp: string) {
  const connectionId = `${randomUUID().replace(/-/g, '').slice(0, 14)}=`;
  const result = await connect({
    requestContext: { connectionId, routeKey: '$connect', eventType: 'CONNECT', requestId: randomUUID(), identity: { sourceIp } },
    headers: { Host: 'social.example', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    queryStringParameters: { access_token: user.token },
    isBase64Encoded: false,
  });
  return { connectionId, result };
}

describe('the admin IP blocks routes', () => {
  it('creates, shows, lists, updates and removes a rule as Admin::IpBlock, the range stored masked; each change audited', async () => {
    const net = aNet();
    const created = await create(admin, { ip: `${net}.77/24`, severity: 'no_access', comment: 'botnet', expires_in: '86400' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^\d+$/), ip: `${net}.0/24`, severity: 'no_access', comment: 'botnet', created_at: expect.any(String), expires_at: expect.any(String) });
    const expiresIn = Date.parse(created.body.expires_at) - Date.parse(created.body.created_at);
    expect(Math.abs(expiresIn - 86_400_000)).toBeLessThan(5_000);
    const id = created.body.id as string;
    expect((await show(admin, id)).body).toEqual(created.body);
    expect((await list(admin)).body).toContainEqual(created.body);

    const updated = await update(admin, id, { ip: `${net}.0/25`, severity: 'sign_up_block', comment: '', expires_in: '' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, ip: `${net}.0/25`, severity: 'sign_up_block', comment: '', expires_at: null });
    expect((await show(admin, id)).body).toEqual(updated.body);

    expect(await remove(admin, id)).toMatchObject({ status: 200, body: {} });
    expect(await show(admin, id)).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    const log = (await auditLogPage({ limit: 200 })).filter((e) => e.targetType === 'IpBlock' && e.targetId === id);
    expect(log.map((e) => e.action).sort()).toEqual(['create', 'destroy', 'update']);
  });

  it('takes IPv6 ranges and single addresses in canonical form', async () => {
    const v6 = await create(admin, { ip: `2001:0db8:${(nextNet++).toString(16)}::1/48`, severity: 'sign_up_block' });
    expect(v6.body.ip).toMatch(/^2001:db8:[0-9a-f]+::\/48$/);
    const single = await create(admin, { ip: `${aNet()}.9`, severity: 'sign_up_requires_approval' });
    expect(single.body.ip).toMatch(/\.9\/32$/);
  });

  it('answers 422 naming the field for a bad or taken range, a missing or unknown severity, a bad expiry; 404 for an unknown id', async () => {
    const net = aNet();
    for (const ip of ['10.0.0.0/33', '300.1.2.3', 'not-an-ip', '127.1', '2001:db8::/129']) {
      expect(await create(admin, { ip, severity: 'no_access' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Ip is invalid' } });
    }
    expect(await create(admin, { ip: `${net}.0/24` })).toMatchObject({ status: 422, body: { error: "Validation failed: Severity can't be blank" } });
    expect(await create(admin, { ip: `${net}.0/24`, severity: 'ban' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Severity is not included in the list' } });
    expect(await create(admin, { ip: `${net}.0/24`, severity: 'no_access', expires_in: '-5' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Expires in is invalid' } });
    expect((await create(admin, { ip: `${net}.0/24`, severity: 'sign_up_block' })).status).toBe(200);
    // The same range however written.
    expect(await create(admin, { ip: `${net}.200/24`, severity: 'no_access' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Ip has already been taken' } });
    const other = await create(admin, { ip: `${aNet()}.0/24`, severity: 'sign_up_block' });
    expect(await update(admin, other.body.id, { ip: `${net}.0/24` })).toMatchObject({ status: 422, body: { error: 'Validation failed: Ip has already been taken' } });
    for (const res of [await show(admin, '77'), await update(admin, '77', { comment: 'x' }), await remove(admin, '77')]) expect(res).toMatchObject({ status: 404 });
  });

  it('is 403 for a moderator (no manage_blocks) and a user without a role', async () => {
    const made = await create(admin, { ip: `${aNet()}.0/24`, severity: 'sign_up_block' });
    for (const who of [moderator, user]) {
      for (const res of [await list(who), await show(who, made.body.id), await create(who, { ip: `${aNet()}.0/24`, severity: 'no_access' }), await update(who, made.body.id, { severity: 'no_access' }), await remove(who, made.body.id)]) {
        expect(res).toMatchObject({ status: 403, body: { error: 'This action is not allowed' } });
      }
    }
    expect((await show(admin, made.body.id)).body.severity).toBe('sign_up_block');
  });

  it('pages newest first with a Link header', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(admin, { ip: `${aNet()}.0/24`, severity: 'sign_up_block' })).body.id);
    const first = await list(admin, { limit: '2' });
    expect(first.body.map((b: { id: string }) => b.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers.link).toContain(`max_id=${ids[1]}`);
    expect((await list(admin, { limit: '2', max_id: ids[1]! })).body[0].id).toBe(ids[0]);
  });
});

describe('what an IP rule does', () => {
  it('sign_up_block: a sign-up from the range is refused (403, as Mastodon) and nothing is stored; from outside it passes', async () => {
    const net = aNet();
    await create(admin, { ip: `${net}.0/24`, severity: 'sign_up_block' });
    const username = aName();
    expect(await signUp(`${net}.5`, username)).toMatchObject({ status: 403, body: { error: 'This action is not allowed' } });
    expect(await accountByUsername(username)).toBeUndefined();
    expect((await signUp(`${aNet()}.5`)).status).toBe(200);
  });

  it('sign_up_requires_approval: the account is held for approval (IPv6 too); outside the range it is not', async () => {
    const prefix = `2001:db8:ff${(nextNet++).toString(16).padStart(2, '0')}`;
    await create(admin, { ip: `${prefix}::/48`, severity: 'sign_up_requires_approval' });
    const held = aName();
    expect((await signUp(`${prefix}:1::42`, held)).status).toBe(200);
    expect((await accountByUsername(held))?.approved).toBe(false);
    const free = aName();
    expect((await signUp(`${aNet()}.8`, free)).status).toBe(200);
    expect((await accountByUsername(free))?.approved).toBe(true);
  });

  it('no_access: every request from the range is refused 403 "Forbidden" (signed in or not, IPv4-mapped too); others and loopback pass', async () => {
    const net = aNet();
    const rule = await create(admin, { ip: `${net}.0/24`, severity: 'no_access' });
    for (const sourceIp of [`${net}.1`, `::ffff:${net}.2`]) {
      const anonymous = await call(instanceHandler, { path: '/api/v2/instance', sourceIp });
      expect(anonymous.status).toBe(403);
      expect(anonymous.text).toBe('Forbidden\n');
      expect(anonymous.headers['content-type']).toMatch(/^text\/plain/);
      expect((await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: user.token, sourceIp })).status).toBe(403);
    }
    expect((await call(instanceHandler, { path: '/api/v2/instance', sourceIp: `${aNet()}.1` })).status).toBe(200);
    expect((await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: user.token, sourceIp: `${aNet()}.1` })).status).toBe(200);
    // The streaming WebSocket's handshake too: refused, and no connection recorded.
    const refused = await handshake(`${net}.3`);
    expect(refused.result.statusCode).toBe(403);
    expect(JSON.parse(refused.result.body ?? '{}')).toEqual({ error: 'Forbidden' });
    expect(await connectionById(refused.connectionId)).toBeUndefined();
    const opened = await handshake(`${aNet()}.3`);
    expect(opened.result.statusCode).toBe(200);
    expect(await connectionById(opened.connectionId)).toBeDefined();

    await remove(admin, rule.body.id);
    expect((await call(instanceHandler, { path: '/api/v2/instance', sourceIp: `${net}.1` })).status).toBe(200);

    // Loopback is never refused: the stack cannot be locked out of itself.
    const everything = await create(admin, { ip: '127.0.0.0/8', severity: 'no_access' });
    expect((await call(instanceHandler, { path: '/api/v2/instance', sourceIp: '127.0.0.1' })).status).toBe(200);
    await remove(admin, everything.body.id);
  });

  it('an expired rule applies no more', async () => {
    const net = aNet();
    const past = new Date(Date.now() - 60_000).toISOString();
    await createIpBlock({ id: newId(), cidr: `${net}.0/24`, severity: 'no_access', comment: '', expiresAt: past, createdAt: past, updatedAt: past });
    forgetIpBlocks();
    expect((await call(instanceHandler, { path: '/api/v2/instance', sourceIp: `${net}.1` })).status).toBe(200);
  });

  it('reads the rules once per container: further requests read nothing for them', async () => {
    process.env.EXPOSE_METRICS = '1';
    try {
      // Warm: what the endpoint itself keeps is kept; then only the rules are read anew, by the first request alone.
      await call(instanceHandler, { path: '/api/v2/instance', sourceIp: `${aNet()}.3` });
      forgetIpBlocks();
      const first = await call(instanceHandler, { path: '/api/v2/instance', sourceIp: `${aNet()}.3` });
      const second = await call(instanceHandler, { path: '/api/v2/instance', sourceIp: `${aNet()}.3` });
      expect(first.headers['x-db-calls']).toMatch(/^\d+$/);
      expect(Number(first.headers['x-db-calls'])).toBe(Number(second.headers['x-db-calls']) + 1);
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });
});
