// The admin API's e-mail rules (Mastodon 4.3): /api/v1/admin/email_domain_blocks and
// /api/v1/admin/canonical_email_blocks (with `test`), every route with its bad inputs and permissions, the audit
// log, and what the rules do at POST /api/v1/accounts: an address of a blocked domain or of any of its subdomains
// refused (422, ERR_BLOCKED, the attempt counted in the block's history), a domain allowing sign-ups with approval
// holding the account, and an address whose canonical form is blocked refused as "taken"; the CLI is not held.
import { createHash, randomUUID } from 'node:crypto';
import { handler as createAccount } from '../../functions/accounts/create';
import { handler as createCanonical } from '../../functions/admin_canonical_email_blocks/create';
import { handler as deleteCanonical } from '../../functions/admin_canonical_email_blocks/delete';
import { handler as listCanonical } from '../../functions/admin_canonical_email_blocks/index';
import { handler as showCanonical } from '../../functions/admin_canonical_email_blocks/show';
import { handler as testCanonical } from '../../functions/admin_canonical_email_blocks/test';
import { handler as createDomainBlock } from '../../functions/admin_email_domain_blocks/create';
import { handler as deleteDomainBlock } from '../../functions/admin_email_domain_blocks/delete';
import { handler as listDomainBlocks } from '../../functions/admin_email_domain_blocks/index';
import { handler as showDomainBlock } from '../../functions/admin_email_domain_blocks/show';
import { registerAccount } from '../../lib/accounts/register';
import { accountByUsername } from '../../lib/db/accounts';
import { auditLogPage } from '../../lib/db/audit_log';
import { canonicalEmail } from '../../lib/policy/sign_up';
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

const aDomain = (what: string) => `${what}-${randomUUID().slice(0, 8)}.example`;
const aName = () => `u${randomUUID().replace(/-/g, '').slice(0, 12)}`;
/** Each sign-up from an address of its own: the sign-up throttle (5 per address per 30 minutes) is not under test. */
let nextHost = 1;
const signUp = (email: string, username = aName(), sourceIp = `198.51.100.${nextHost++}`) =>
  call(createAccount, { method: 'POST', path: '/api/v1/accounts', form: { username, email, password: 'correct horse battery', agreement: 'true', locale: 'en' }, token: appToken, sourceIp });

const EDB = '/api/v1/admin/email_domain_blocks';
const blockDomain = (who: UserFixture, form: Record<string, string>) => call(createDomainBlock, { method: 'POST', path: EDB, form, token: who.token });
const showEdb = (who: UserFixture, id: string) => call(showDomainBlock, { path: `${EDB}/${id}`, pathParameters: { id }, token: who.token });
const removeEdb = (who: UserFixture, id: string) => call(deleteDomainBlock, { method: 'DELETE', path: `${EDB}/${id}`, pathParameters: { id }, token: who.token });
const listEdb = (who: UserFixture, query: Record<string, string> = {}) => call(listDomainBlocks, { path: EDB, query, token: who.token });

const CEB = '/api/v1/admin/canonical_email_blocks';
const blockCanonical = (who: UserFixture, form: Record<string, string>) => call(createCanonical, { method: 'POST', path: CEB, form, token: who.token });
const showCeb = (who: UserFixture, id: string) => call(showCanonical, { path: `${CEB}/${id}`, pathParameters: { id }, token: who.token });
const removeCeb = (who: UserFixture, id: string) => call(deleteCanonical, { method: 'DELETE', path: `${CEB}/${id}`, pathParameters: { id }, token: who.token });
const listCeb = (who: UserFixture, query: Record<string, string> = {}) => call(listCanonical, { path: CEB, query, token: who.token });
const testCeb = (who: UserFixture, email: string) => call(testCanonical, { method: 'POST', path: `${CEB}/test`, form: { email }, token: who.token });

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const midnight = (daysAgo: number) => String(Date.parse(new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)) / 1000);

describe('the admin e-mail domain blocks routes', () => {
  it('creates, shows, lists and removes a block as Admin::EmailDomainBlock with seven days of history; each change audited', async () => {
    const domain = aDomain('mail');
    const created = await blockDomain(admin, { domain: domain.toUpperCase() });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      domain,
      allow_with_approval: false,
      created_at: expect.any(String),
      history: Array.from({ length: 7 }, (_, i) => ({ day: midnight(i), accounts: '0', uses: '0' })),
    });
    const id = created.body.id as string;
    expect((await showEdb(admin, id)).body).toEqual(created.body);
    expect((await listEdb(admin)).body).toContainEqual(created.body);
    expect(await removeEdb(admin, id)).toMatchObject({ status: 200, body: {} });
    expect(await showEdb(admin, id)).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    expect(await removeEdb(admin, id)).toMatchObject({ status: 404 });
    const log = (await auditLogPage({ limit: 200 })).filter((e) => e.targetType === 'EmailDomainBlock' && e.targetId === id);
    expect(log.map((e) => e.action).sort()).toEqual(['create', 'destroy']);
  });

  it('answers 422 naming the domain when blank, invalid or already blocked; 404 for an unknown id', async () => {
    expect(await blockDomain(admin, {})).toMatchObject({ status: 422, body: { error: "Validation failed: Domain can't be blank" } });
    expect(await blockDomain(admin, { domain: 'no spaces.example' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Domain is not a valid domain name' } });
    const domain = aDomain('twice');
    expect((await blockDomain(admin, { domain })).status).toBe(200);
    expect(await blockDomain(admin, { domain })).toMatchObject({ status: 422, body: { error: 'Validation failed: Domain has already been taken' } });
    expect(await showEdb(admin, '42')).toMatchObject({ status: 404 });
  });

  it('is 403 for a moderator (no manage_blocks) and a user without a role', async () => {
    const made = await blockDomain(admin, { domain: aDomain('guarded') });
    for (const who of [moderator, user]) {
      for (const res of [await listEdb(who), await showEdb(who, made.body.id), await blockDomain(who, { domain: aDomain('no') }), await removeEdb(who, made.body.id)]) {
        expect(res).toMatchObject({ status: 403, body: { error: 'This action is not allowed' } });
      }
    }
  });

  it('pages newest first with a Link header', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await blockDomain(admin, { domain: aDomain(`p${i}`) })).body.id);
    const first = await listEdb(admin, { limit: '2' });
    expect(first.body.map((b: { id: string }) => b.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers.link).toContain(`max_id=${ids[1]}`);
    expect((await listEdb(admin, { limit: '2', max_id: ids[1]! })).body[0].id).toBe(ids[0]);
  });
});

describe('sign-ups and e-mail domain blocks', () => {
  it('refuses an address of the blocked domain and of its subdomains with 422 ERR_BLOCKED, counted in the history; others pass', async () => {
    const domain = aDomain('spam');
    const block = await blockDomain(admin, { domain });
    for (const email of [`a@${domain}`, `b@mail.${domain}`, `c@${domain.toUpperCase()}`]) {
      const username = aName();
      const res = await signUp(email, username);
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('Validation failed: E-mail address uses a disallowed e-mail provider');
      expect(res.body.details).toEqual({ email: [{ error: 'ERR_BLOCKED', description: 'uses a disallowed e-mail provider' }] });
      expect(await accountByUsername(username)).toBeUndefined();
    }
    // Two more attempts from one address: counted as attempts (uses), that address once (accounts).
    for (let i = 0; i < 2; i++) expect((await signUp(`z${i}@${domain}`, aName(), '192.0.2.99')).status).toBe(422);
    expect((await signUp(`d@other-${domain}`)).status).toBe(200);
    expect((await signUp(`e@${domain}.evil.example`)).status).toBe(200);
    const today = (await showEdb(admin, block.body.id)).body.history[0];
    expect(today).toEqual({ day: midnight(0), uses: '5', accounts: '4' });
  });

  it('holds an account for approval when the block allows sign-ups with approval', async () => {
    const domain = aDomain('approval');
    const block = await blockDomain(admin, { domain, allow_with_approval: 'true' });
    expect(block.body.allow_with_approval).toBe(true);
    const username = aName();
    expect((await signUp(`x@${domain}`, username)).status).toBe(200);
    expect((await accountByUsername(username))?.approved).toBe(false);
    const free = aName();
    expect((await signUp(`x@${aDomain('free')}`, free)).status).toBe(200);
    expect((await accountByUsername(free))?.approved).toBe(true);
  });

  it('does not hold the operator: the CLI creates an account of a blocked domain', async () => {
    const domain = aDomain('operator');
    await blockDomain(admin, { domain });
    const username = aName();
    const { account } = await registerAccount({ username, email: `op@${domain}`, password: 'correct horse battery' }, { skipRules: true, confirmed: true, approved: true });
    expect(account.username).toBe(username);
  });
});

describe('the admin canonical e-mail blocks routes', () => {
  it('canonicalizes as Mastodon: lower-case, dots and +suffix removed from the local part, any domain', () => {
    expect(canonicalEmail('J.Doe+news@Example.COM')).toBe('jdoe@example.com');
    expect(canonicalEmail('j.d.o.e@gmail.com')).toBe('jdoe@gmail.com');
  });

  it('creates by email or by hash, shows, lists, tests and removes as Admin::CanonicalEmailBlock; each change audited', async () => {
    const local = aName();
    const domain = aDomain('canon');
    const byEmail = await blockCanonical(admin, { email: `${local.slice(0, 3)}.${local.slice(3)}+tag@${domain}` });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toEqual({ id: expect.stringMatching(/^\d+$/), canonical_email_hash: sha256(`${local}@${domain}`) });
    const id = byEmail.body.id as string;
    expect((await showCeb(admin, id)).body).toEqual(byEmail.body);
    expect((await listCeb(admin)).body).toContainEqual(byEmail.body);
    expect(await testCeb(admin, `${local.toUpperCase()}+other@${domain}`)).toMatchObject({ status: 200, body: [byEmail.body] });
    expect(await testCeb(admin, `someone-else@${domain}`)).toMatchObject({ status: 200, body: [] });

    const hash = sha256(`${aName()}@${domain}`);
    const byHash = await blockCanonical(admin, { canonical_email_hash: hash.toUpperCase() });
    expect(byHash.body.canonical_email_hash).toBe(hash);

    expect(await removeCeb(admin, id)).toMatchObject({ status: 200, body: {} });
    expect(await showCeb(admin, id)).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    expect(await testCeb(admin, `${local}@${domain}`)).toMatchObject({ status: 200, body: [] });
    const log = (await auditLogPage({ limit: 200 })).filter((e) => e.targetType === 'CanonicalEmailBlock' && e.targetId === id);
    expect(log.map((e) => e.action).sort()).toEqual(['create', 'destroy']);
    expect(log[0]!.humanIdentifier).toBe(sha256(`${local}@${domain}`));
  });

  it('answers 422 naming the field for nothing given, a bad hash, a bad address or one already blocked', async () => {
    expect(await blockCanonical(admin, {})).toMatchObject({ status: 422, body: { error: "Validation failed: Canonical email hash can't be blank" } });
    expect(await blockCanonical(admin, { canonical_email_hash: 'abc' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Canonical email hash is invalid' } });
    expect(await blockCanonical(admin, { email: 'no-at-sign' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Email is invalid' } });
    const email = `${aName()}@${aDomain('dup')}`;
    expect((await blockCanonical(admin, { email })).status).toBe(200);
    expect(await blockCanonical(admin, { email: email.toUpperCase() })).toMatchObject({ status: 422, body: { error: 'Validation failed: Canonical email hash has already been taken' } });
    expect(await testCeb(admin, '')).toMatchObject({ status: 422, body: { error: "Validation failed: Email can't be blank" } });
  });

  it('is 403 for a moderator (no manage_blocks) and a user without a role', async () => {
    const made = await blockCanonical(admin, { email: `${aName()}@${aDomain('guarded')}` });
    for (const who of [moderator, user]) {
      for (const res of [await listCeb(who), await showCeb(who, made.body.id), await testCeb(who, 'a@b.example'), await blockCanonical(who, { email: 'x@y.example' }), await removeCeb(who, made.body.id)]) {
        expect(res).toMatchObject({ status: 403, body: { error: 'This action is not allowed' } });
      }
    }
  });

  it('pages newest first with a Link header', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await blockCanonical(admin, { email: `${aName()}@${aDomain('p')}` })).body.id);
    const first = await listCeb(admin, { limit: '2' });
    expect(first.body.map((b: { id: string }) => b.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers.link).toContain(`max_id=${ids[1]}`);
  });
});

describe('sign-ups and canonical e-mail blocks', () => {
  it('refuses any spelling of a blocked address as "has already been taken" (ERR_TAKEN); another address passes', async () => {
    const domain = aDomain('gmail-like');
    await blockCanonical(admin, { email: `jane.doe@${domain}` });
    for (const email of [`janedoe@${domain}`, `Jane.Doe+spam@${domain}`, `j.a.n.e.d.o.e@${domain}`]) {
      const res = await signUp(email);
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual({ email: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] });
    }
    expect((await signUp(`john.doe@${domain}`)).status).toBe(200);
  });
});
