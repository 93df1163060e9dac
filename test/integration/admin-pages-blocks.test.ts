// The moderation pages of federation, sign-up rules and trends (/admin/domain_blocks, domain_allows,
// email_domain_blocks, ip_blocks, canonical_email_blocks, trends/tags, trends/statuses, trends/links), each
// through its real handler with a browser's cookie jar: without a session to the sign-in form, 403 for a role
// without the page's permission, the page for one with it; each form's change read back through the admin API
// (the same store), once in the audit log; a POST without the session's CSRF token refused; bad input (a domain,
// a range, an address) a 422 page naming the field, with nothing written.
import type { SQSEvent } from 'aws-lambda';
import { handler as canonicalPage } from '../../functions/admin_pages/canonical_email_blocks';
import { handler as canonicalSubmit } from '../../functions/admin_pages/canonical_email_blocks_submit';
import { handler as allowsPage } from '../../functions/admin_pages/domain_allows';
import { handler as allowsSubmit } from '../../functions/admin_pages/domain_allows_submit';
import { handler as blocksPage } from '../../functions/admin_pages/domain_blocks';
import { handler as blocksSubmit } from '../../functions/admin_pages/domain_blocks_submit';
import { handler as emailDomainsPage } from '../../functions/admin_pages/email_domain_blocks';
import { handler as emailDomainsSubmit } from '../../functions/admin_pages/email_domain_blocks_submit';
import { handler as ipPage } from '../../functions/admin_pages/ip_blocks';
import { handler as ipSubmit } from '../../functions/admin_pages/ip_blocks_submit';
import { handler as reportsPage } from '../../functions/admin_pages/reports';
import { handler as trendLinksPage } from '../../functions/admin_pages/trends_links';
import { handler as trendLinksSubmit } from '../../functions/admin_pages/trends_links_submit';
import { handler as trendStatusesPage } from '../../functions/admin_pages/trends_statuses';
import { handler as trendStatusesSubmit } from '../../functions/admin_pages/trends_statuses_submit';
import { handler as trendTagsPage } from '../../functions/admin_pages/trends_tags';
import { handler as trendTagsSubmit } from '../../functions/admin_pages/trends_tags_submit';
import { handler as apiCanonical } from '../../functions/admin_canonical_email_blocks/index';
import { handler as apiCanonicalTest } from '../../functions/admin_canonical_email_blocks/test';
import { handler as apiAllows } from '../../functions/admin_domain_allows/index';
import { handler as apiBlocks } from '../../functions/admin_domain_blocks/index';
import { handler as apiEmailDomains } from '../../functions/admin_email_domain_blocks/index';
import { handler as apiIpBlocks } from '../../functions/admin_ip_blocks/index';
import { handler as apiPublishers } from '../../functions/admin_trends/publishers';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as publicLinks } from '../../functions/trends/links';
import { handler as publicStatuses } from '../../functions/trends/statuses';
import { handler as publicTags } from '../../functions/trends/index';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as signinWorker } from '../../functions/workers/signin';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { auditLogPage, type AuditEntry } from '../../lib/db/audit_log';
import { storeCardOutcome, type PreviewCard } from '../../lib/db/cards';
import { publisherIdOf } from '../../lib/db/trends';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { tagId } from '../../lib/render/tag';
import { countInteraction, countLinkShare } from '../../lib/trends';
import { collectDeliveries } from '../support/activities';
import { AdminBrowser, csrfOf, signedInAs, type Handler } from '../support/admin_browser';
import { aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

registerInlineWorker('signin', signinWorker);
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
collectDeliveries();
// This file signs in many times from one address; the sign-in limits are tested in ratelimit-signin.test.ts.
process.env.RATE_LIMIT_FACTOR = '100';

const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];

type Signed = { browser: AdminBrowser; user: UserFixture };
let moderator: Signed;
let admin: Signed;
let member: Signed;

beforeAll(async () => {
  [moderator, admin, member] = await Promise.all([signedInAs('1'), signedInAs('2', ADMIN_SCOPES), signedInAs(null)]);
});

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** What the admin API lists (the store the pages write), as the admin reads it. */
const api = async (handler: Handler, path: string) => {
  const res = await call(handler, { path, token: admin.user.token, query: { limit: '200' } });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>[];
};

const loggedBy = async (who: Account): Promise<AuditEntry[]> => (await auditLogPage({ limit: 200 })).filter((e) => e.accountId === who.id);

/** A 422 page naming the field. */
const expectInvalid = (res: Answer, field: string) => {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toMatch(new RegExp(`id="error">Validation failed: ${field} `));
};

const expectCsrfRefused = (res: Answer) => {
  expect(res.status).toBe(403);
  expect(res.text).toContain('The form has expired or did not come from this site');
};

describe('access to the pages', () => {
  // [name, handler, path, the role that may not open it, the role that may]
  const pages: [string, Handler, string, () => Signed, () => Signed][] = [
    ['domain blocks', blocksPage, '/admin/domain_blocks', () => moderator, () => admin],
    ['domain allows', allowsPage, '/admin/domain_allows', () => moderator, () => admin],
    ['e-mail domain blocks', emailDomainsPage, '/admin/email_domain_blocks', () => moderator, () => admin],
    ['IP rules', ipPage, '/admin/ip_blocks', () => moderator, () => admin],
    ['e-mail address blocks', canonicalPage, '/admin/canonical_email_blocks', () => moderator, () => admin],
    ['trending tags', trendTagsPage, '/admin/trends/tags', () => member, () => moderator],
    ['trending statuses', trendStatusesPage, '/admin/trends/statuses', () => member, () => moderator],
    ['trending links', trendLinksPage, '/admin/trends/links', () => member, () => moderator],
  ];

  it.each(pages)('%s: to the sign-in form without a session, 403 without the permission, the page with it', async (_name, handler, path, refused, allowed) => {
    const anonymous = await new AdminBrowser().get(handler, path);
    expect(anonymous.status).toBe(302);
    const location = new URL(anonymous.headers.location!, 'https://social.example');
    expect(location.pathname).toBe('/admin/sign_in');
    expect(location.searchParams.get('return_to')).toBe(path.replace('/admin', ''));

    const denied = await refused().browser.get(handler, path);
    expect(denied.status).toBe(403);
    expect(denied.text).toContain('Access denied');

    const shown = await allowed().browser.get(handler, path);
    expect(shown.status).toBe(200);
    expect(shown.headers['content-security-policy']).toContain("default-src 'none'");
    expect(shown.text).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it('links the pages in the navigation only for the roles that may open them', async () => {
    const nav = (page: Answer) => /<nav>([\s\S]*?)<\/nav>/.exec(page.text)?.[1] ?? '';
    const mod = nav(await moderator.browser.get(reportsPage, '/admin/reports'));
    expect(mod).toContain('href="/admin/trends/tags"');
    for (const path of ['/domain_blocks', '/domain_allows', '/email_domain_blocks', '/canonical_email_blocks', '/ip_blocks']) {
      expect(mod).not.toContain(`href="/admin${path}"`);
    }
    const adm = nav(await admin.browser.get(reportsPage, '/admin/reports'));
    for (const path of ['/domain_blocks', '/domain_allows', '/email_domain_blocks', '/canonical_email_blocks', '/ip_blocks', '/trends/tags']) {
      expect(adm).toContain(`href="/admin${path}"`);
    }
  });
});

describe('domain blocks', () => {
  it('adds a block with every field, changes it, and removes it, through the admin API\'s store, once each in the audit log', async () => {
    const domain = `pages-${unique()}.example`;
    const csrf = csrfOf(await admin.browser.get(blocksPage, '/admin/domain_blocks'));
    const added = await admin.browser.post(blocksSubmit, '/admin/domain_blocks', {
      csrf_token: csrf, operation: 'add', domain, severity: 'noop', reject_media: '1', reject_reports: '1', obfuscate: '1',
      public_comment: '<b>spam</b>', private_comment: 'seen in reports',
    });
    expect(added.status).toBe(303);
    expect(added.headers.location).toBe('/admin/domain_blocks?notice=created');
    const listed = (await api(apiBlocks, '/api/v1/admin/domain_blocks')).find((b) => b.domain === domain);
    expect(listed).toMatchObject({ severity: 'noop', reject_media: true, reject_reports: true, obfuscate: true, public_comment: '<b>spam</b>', private_comment: 'seen in reports' });
    const shown = await admin.browser.get(blocksPage, '/admin/domain_blocks');
    expect(shown.text).toContain(`id="domain-block-${listed!.id as string}"`);
    expect(shown.text).toContain('&lt;b&gt;spam&lt;/b&gt;');

    // The same domain again: its block changes (boxes left unticked are off).
    const changed = await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: csrf, operation: 'add', domain: domain.toUpperCase(), severity: 'silence', public_comment: '', private_comment: '' });
    expect(changed.headers.location).toBe('/admin/domain_blocks?notice=updated');
    expect((await api(apiBlocks, '/api/v1/admin/domain_blocks')).find((b) => b.domain === domain)).toMatchObject({ id: listed!.id, severity: 'silence', reject_media: false, obfuscate: false });

    expectCsrfRefused(await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: 'wrong', operation: 'remove', id: listed!.id as string }));
    expect((await api(apiBlocks, '/api/v1/admin/domain_blocks')).some((b) => b.domain === domain)).toBe(true);
    const removed = await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: csrf, operation: 'remove', id: listed!.id as string });
    expect(removed.headers.location).toBe('/admin/domain_blocks?notice=removed');
    expect((await api(apiBlocks, '/api/v1/admin/domain_blocks')).some((b) => b.domain === domain)).toBe(false);
    // Removed already: 404.
    expect((await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: csrf, operation: 'remove', id: listed!.id as string })).status).toBe(404);

    const log = (await loggedBy(admin.user.account)).filter((e) => e.targetId === listed!.id);
    expect(log.map((e) => [e.action, e.targetType])).toEqual([['destroy', 'DomainBlock'], ['update', 'DomainBlock'], ['create', 'DomainBlock']]);
  });

  it('answers a bad domain, a bad severity and a subdomain of a suspended domain with a 422 page, writing nothing', async () => {
    const csrf = csrfOf(await admin.browser.get(blocksPage, '/admin/domain_blocks'));
    const before = (await api(apiBlocks, '/api/v1/admin/domain_blocks')).length;
    expectInvalid(await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: csrf, operation: 'add', domain: 'not a domain', severity: 'silence' }), 'Domain');
    expectInvalid(await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: csrf, operation: 'add', domain: `x-${unique()}.example`, severity: 'explode' }), 'Severity');
    expect((await api(apiBlocks, '/api/v1/admin/domain_blocks')).length).toBe(before);

    const parent = `parent-${unique()}.example`;
    await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: csrf, operation: 'add', domain: parent, severity: 'suspend' });
    const sub = await admin.browser.post(blocksSubmit, '/admin/domain_blocks', { csrf_token: csrf, operation: 'add', domain: `sub.${parent}`, severity: 'silence' });
    expect(sub.status).toBe(422);
    expect(sub.text).toContain(`You have already imposed stricter limits on ${parent}.`);
    expect((await api(apiBlocks, '/api/v1/admin/domain_blocks')).some((b) => b.domain === `sub.${parent}`)).toBe(false);
  });
});

describe('domain allows', () => {
  it('says whether limited federation is on, adds an allow and removes it through the admin API\'s store', async () => {
    const domain = `allowed-${unique()}.example`;
    const page = await admin.browser.get(allowsPage, '/admin/domain_allows');
    expect(page.text).toContain('Limited federation is off');
    const csrf = csrfOf(page);
    expect((await admin.browser.post(allowsSubmit, '/admin/domain_allows', { csrf_token: csrf, operation: 'add', domain })).headers.location).toBe('/admin/domain_allows?notice=created');
    const allow = (await api(apiAllows, '/api/v1/admin/domain_allows')).find((a) => a.domain === domain);
    expect(allow).toBeDefined();
    expect((await admin.browser.get(allowsPage, '/admin/domain_allows')).text).toContain(`id="domain-allow-${allow!.id as string}"`);

    expectCsrfRefused(await admin.browser.post(allowsSubmit, '/admin/domain_allows', { operation: 'remove', id: allow!.id as string }));
    expectInvalid(await admin.browser.post(allowsSubmit, '/admin/domain_allows', { csrf_token: csrf, operation: 'add', domain: 'bad/domain' }), 'Domain');
    expect((await admin.browser.post(allowsSubmit, '/admin/domain_allows', { csrf_token: csrf, operation: 'remove', id: allow!.id as string })).headers.location).toBe('/admin/domain_allows?notice=removed');
    expect((await api(apiAllows, '/api/v1/admin/domain_allows')).some((a) => a.domain === domain)).toBe(false);
    const log = (await loggedBy(admin.user.account)).filter((e) => e.targetId === allow!.id);
    expect(log.map((e) => [e.action, e.targetType])).toEqual([['destroy', 'DomainAllow'], ['create', 'DomainAllow']]);
  });
});

describe('e-mail domain blocks', () => {
  it('adds a block held for approval, lists it, and removes it; a bad domain is a 422 naming it; no CSRF token, nothing', async () => {
    const domain = `mail-${unique()}.example`;
    const csrf = csrfOf(await admin.browser.get(emailDomainsPage, '/admin/email_domain_blocks'));
    expectCsrfRefused(await admin.browser.post(emailDomainsSubmit, '/admin/email_domain_blocks', { operation: 'add', domain }));
    expectInvalid(await admin.browser.post(emailDomainsSubmit, '/admin/email_domain_blocks', { csrf_token: csrf, operation: 'add', domain: 'no spaces allowed.example' }), 'Domain');
    expect((await api(apiEmailDomains, '/api/v1/admin/email_domain_blocks')).some((b) => b.domain === domain)).toBe(false);

    expect((await admin.browser.post(emailDomainsSubmit, '/admin/email_domain_blocks', { csrf_token: csrf, operation: 'add', domain, allow_with_approval: '1' })).status).toBe(303);
    const block = (await api(apiEmailDomains, '/api/v1/admin/email_domain_blocks')).find((b) => b.domain === domain);
    expect(block).toMatchObject({ domain, allow_with_approval: true });
    const shown = await admin.browser.get(emailDomainsPage, '/admin/email_domain_blocks');
    expect(shown.text).toMatch(new RegExp(`id="email-domain-block-${block!.id as string}">\\s*<td>${domain}</td>\\s*<td>Held for approval</td>`));
    // The same domain twice: taken.
    expectInvalid(await admin.browser.post(emailDomainsSubmit, '/admin/email_domain_blocks', { csrf_token: csrf, operation: 'add', domain }), 'Domain');

    expect((await admin.browser.post(emailDomainsSubmit, '/admin/email_domain_blocks', { csrf_token: csrf, operation: 'remove', id: block!.id as string })).status).toBe(303);
    expect((await api(apiEmailDomains, '/api/v1/admin/email_domain_blocks')).some((b) => b.domain === domain)).toBe(false);
    const log = (await loggedBy(admin.user.account)).filter((e) => e.targetId === block!.id);
    expect(log.map((e) => e.action)).toEqual(['destroy', 'create']);
  });
});

describe('IP rules', () => {
  it('adds a range with its severity and expiry, lists it, and removes it; an invalid CIDR is a 422 naming the field', async () => {
    const third = Math.floor(Math.random() * 250);
    const range = `198.51.${third}.0/24`;
    const csrf = csrfOf(await admin.browser.get(ipPage, '/admin/ip_blocks'));
    const before = (await api(apiIpBlocks, '/api/v1/admin/ip_blocks')).length;
    for (const ip of ['999.1.2.3', '10.0.0.0/33', 'not an address']) {
      expectInvalid(await admin.browser.post(ipSubmit, '/admin/ip_blocks', { csrf_token: csrf, operation: 'add', ip, severity: 'sign_up_block', expires_in: '' }), 'Ip');
    }
    expectInvalid(await admin.browser.post(ipSubmit, '/admin/ip_blocks', { csrf_token: csrf, operation: 'add', ip: range, severity: 'everything', expires_in: '' }), 'Severity');
    expectCsrfRefused(await admin.browser.post(ipSubmit, '/admin/ip_blocks', { csrf_token: '', operation: 'add', ip: range, severity: 'sign_up_block', expires_in: '' }));
    expect((await api(apiIpBlocks, '/api/v1/admin/ip_blocks')).length).toBe(before);

    const at = Date.now();
    const added = await admin.browser.post(ipSubmit, '/admin/ip_blocks', { csrf_token: csrf, operation: 'add', ip: `198.51.${third}.77/24`, severity: 'sign_up_requires_approval', expires_in: String(14 * 86_400), comment: '<i>spam wave</i>' });
    expect(added.headers.location).toBe('/admin/ip_blocks?notice=created');
    const rule = (await api(apiIpBlocks, '/api/v1/admin/ip_blocks')).find((b) => b.ip === range);
    expect(rule).toMatchObject({ ip: range, severity: 'sign_up_requires_approval', comment: '<i>spam wave</i>' });
    const expiresIn = Date.parse(rule!.expires_at as string) - at;
    expect(expiresIn).toBeGreaterThan(14 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(14 * 86_400_000 + 60_000);
    const shown = await admin.browser.get(ipPage, '/admin/ip_blocks');
    expect(shown.text).toContain(`id="ip-block-${rule!.id as string}"`);
    expect(shown.text).toContain('&lt;i&gt;spam wave&lt;/i&gt;');

    expect((await admin.browser.post(ipSubmit, '/admin/ip_blocks', { csrf_token: csrf, operation: 'remove', id: rule!.id as string })).headers.location).toBe('/admin/ip_blocks?notice=removed');
    expect((await api(apiIpBlocks, '/api/v1/admin/ip_blocks')).some((b) => b.ip === range)).toBe(false);
    const log = (await loggedBy(admin.user.account)).filter((e) => e.targetId === rule!.id);
    expect(log.map((e) => [e.action, e.targetType])).toEqual([['destroy', 'IpBlock'], ['create', 'IpBlock']]);
  });
});

describe('e-mail address blocks', () => {
  it('blocks an address (its canonical form matched by the API\'s test), and removes it; a bad address is a 422 naming the field', async () => {
    const local = `block.me${unique()}`;
    const csrf = csrfOf(await admin.browser.get(canonicalPage, '/admin/canonical_email_blocks'));
    const before = (await api(apiCanonical, '/api/v1/admin/canonical_email_blocks')).length;
    expectInvalid(await admin.browser.post(canonicalSubmit, '/admin/canonical_email_blocks', { csrf_token: csrf, operation: 'add', email: 'no-at-sign' }), 'Email');
    expectInvalid(await admin.browser.post(canonicalSubmit, '/admin/canonical_email_blocks', { csrf_token: csrf, operation: 'add', email: '' }), 'Email');
    expectCsrfRefused(await admin.browser.post(canonicalSubmit, '/admin/canonical_email_blocks', { operation: 'add', email: `${local}@mail.example` }));
    expect((await api(apiCanonical, '/api/v1/admin/canonical_email_blocks')).length).toBe(before);

    expect((await admin.browser.post(canonicalSubmit, '/admin/canonical_email_blocks', { csrf_token: csrf, operation: 'add', email: `${local}@mail.example` })).status).toBe(303);
    const test = async (email: string) =>
      (await call(apiCanonicalTest, { method: 'POST', path: '/api/v1/admin/canonical_email_blocks/test', json: { email }, token: admin.user.token })).body as { id: string }[];
    const [block] = await test(`${local.replace('.', '')}+extra@mail.example`);
    expect(block).toBeDefined();
    expect((await admin.browser.get(canonicalPage, '/admin/canonical_email_blocks')).text).toContain(`id="canonical-email-block-${block!.id}"`);

    expect((await admin.browser.post(canonicalSubmit, '/admin/canonical_email_blocks', { csrf_token: csrf, operation: 'remove', id: block!.id })).status).toBe(303);
    expect(await test(`${local}@mail.example`)).toEqual([]);
    const log = (await loggedBy(admin.user.account)).filter((e) => e.targetId === block!.id);
    expect(log.map((e) => [e.action, e.targetType])).toEqual([['destroy', 'CanonicalEmailBlock'], ['create', 'CanonicalEmailBlock']]);
  });
});

// ---- trends review (trendable_by_default is off: an unreviewed item does not trend publicly) ----

let crowd: UserFixture[] = [];

async function aTrendingStatus(): Promise<string> {
  const author = await aUser();
  await updateAccount(author.account.id, { discoverable: true });
  const status = await aPostedStatus({ ...author.account, discoverable: true }, { contentHtml: '<p>trending words</p>' });
  for (const fan of crowd) await countInteraction(status, 'favourite', fan.account.id);
  return status.id;
}

const cardOf = (url: string): PreviewCard => ({
  url, title: `About ${url}`, description: 'a page', type: 'link', authorName: '', authorUrl: '', providerName: 'News', providerUrl: '',
  html: '', width: 0, height: 0, imageKey: null, imageDescription: '', embedUrl: '', blurhash: null, language: 'en', publishedAt: null,
});

async function aTrendingLink(host: string): Promise<string> {
  const url = `https://${host}/${newId()}`;
  await storeCardOutcome({ url, card: cardOf(url), fetchedAt: new Date().toISOString() });
  for (const sharer of crowd.slice(0, 2)) await countLinkShare(url, await aPostedStatus(sharer.account, { text: url }));
  return url;
}

async function aTrendingTag(): Promise<string> {
  const tag = `pagereview${newId().slice(-8)}`;
  for (const poster of crowd) {
    const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: `about #${tag}` }, token: poster.token });
    expect(res.status).toBe(200);
  }
  return tag;
}

const publicStatusIds = async () => ((await call(publicStatuses, { path: '/api/v1/trends/statuses', query: { limit: '40' } })).body as { id: string }[]).map((s) => s.id);
const publicLinkUrls = async () => ((await call(publicLinks, { path: '/api/v1/trends/links', query: { limit: '20' } })).body as { url: string }[]).map((l) => l.url);
const publicTagNames = async () => ((await call(publicTags, { path: '/api/v1/trends/tags', query: { limit: '20' } })).body as { name: string }[]).map((t) => t.name);

describe('trends review', () => {
  beforeAll(async () => {
    crowd = await Promise.all([aUser(), aUser(), aUser()]);
  });

  it('lists a trending tag awaiting review; approving it makes it trend publicly, rejecting takes it off', async () => {
    const tag = await aTrendingTag();
    const id = tagId(tag);
    const page = await moderator.browser.get(trendTagsPage, '/admin/trends/tags');
    const row = new RegExp(`<tr id="trend-tag-${id}">([\\s\\S]*?)</tr>`).exec(page.text)?.[1] ?? '';
    expect(row).toContain(`#${tag}`);
    expect(row).toContain('Awaits review');
    expect(await publicTagNames()).not.toContain(tag);
    const csrf = csrfOf(page);
    expectCsrfRefused(await moderator.browser.post(trendTagsSubmit, '/admin/trends/tags', { id, decision: 'approve' }));
    expect(await publicTagNames()).not.toContain(tag);

    expect((await moderator.browser.post(trendTagsSubmit, '/admin/trends/tags', { csrf_token: csrf, id, decision: 'approve' })).headers.location).toBe('/admin/trends/tags?notice=approve');
    expect(await publicTagNames()).toContain(tag);
    expect((await moderator.browser.get(trendTagsPage, '/admin/trends/tags')).text).toMatch(new RegExp(`id="trend-tag-${id}">[\\s\\S]*?Approved`));
    await moderator.browser.post(trendTagsSubmit, '/admin/trends/tags', { csrf_token: csrf, id, decision: 'reject' });
    expect(await publicTagNames()).not.toContain(tag);
    const log = (await loggedBy(moderator.user.account)).filter((e) => e.targetId === id);
    expect(log.map((e) => [e.action, e.targetType])).toEqual([['reject', 'Tag'], ['approve', 'Tag']]);
  });

  it('lists a trending status with its text; approving it makes it trend publicly; an unknown one is a 404 page', async () => {
    const id = await aTrendingStatus();
    const page = await moderator.browser.get(trendStatusesPage, '/admin/trends/statuses');
    const item = new RegExp(`<div class="trend" id="trend-status-${id}">([\\s\\S]*?)</form>`).exec(page.text)?.[1] ?? '';
    expect(item).toContain('trending words');
    expect(item).toContain('Awaits review');
    expect(await publicStatusIds()).not.toContain(id);
    const csrf = csrfOf(page);
    expect((await moderator.browser.post(trendStatusesSubmit, '/admin/trends/statuses', { csrf_token: csrf, id, decision: 'approve' })).status).toBe(303);
    expect(await publicStatusIds()).toContain(id);
    expect((await moderator.browser.post(trendStatusesSubmit, '/admin/trends/statuses', { csrf_token: csrf, id: '123', decision: 'approve' })).status).toBe(404);
    expect((await moderator.browser.post(trendStatusesSubmit, '/admin/trends/statuses', { csrf_token: csrf, id, decision: 'explode' })).status).toBe(422);
  });

  it('lists a trending link and its publisher; approving the link trends it, rejecting the publisher is read back by the API', async () => {
    const host = `news-${unique()}.example`;
    const url = await aTrendingLink(host);
    const page = await moderator.browser.get(trendLinksPage, '/admin/trends/links');
    const linkId = new RegExp(`<tr id="trend-link-(\\d+)">\\s*<td><a href="${url.replace(/[.]/g, '\\.')}"`).exec(page.text)?.[1];
    expect(linkId).toBeDefined();
    const publisherId = publisherIdOf(host);
    expect(page.text).toMatch(new RegExp(`<tr id="trend-publisher-${publisherId}">\\s*<td>${host.replace(/[.]/g, '\\.')}</td>`));
    expect(await publicLinkUrls()).not.toContain(url);
    const csrf = csrfOf(page);
    expect((await moderator.browser.post(trendLinksSubmit, '/admin/trends/links', { csrf_token: csrf, id: linkId!, kind: 'link', decision: 'approve' })).status).toBe(303);
    expect(await publicLinkUrls()).toContain(url);

    expect((await moderator.browser.post(trendLinksSubmit, '/admin/trends/links', { csrf_token: csrf, id: publisherId, kind: 'publisher', decision: 'reject' })).status).toBe(303);
    const publishers = (await call(apiPublishers, { path: '/api/v1/admin/trends/links/publishers', token: (await signedInAs('1', ADMIN_SCOPES)).user.token, query: { limit: '200' } })).body as Record<string, unknown>[];
    expect(publishers.find((p) => p.id === publisherId)).toMatchObject({ domain: host, trendable: false, requires_review: false });
    const log = (await loggedBy(moderator.user.account)).filter((e) => e.targetId === linkId || e.targetId === publisherId);
    expect(log.map((e) => [e.action, e.targetType])).toEqual([['reject', 'PreviewCardProvider'], ['approve', 'PreviewCard']]);
  });
});
