// What Mastodon 4.4 to 4.6 added to the v2 instance entity (besides accounts, translation, quotes and collections):
// `configuration.urls` (status, about, privacy_policy, terms_of_service), `configuration.limited_federation`,
// `configuration.timelines_access` (4.5), `registrations` min_age/reason_required/url, `thumbnail.description` and
// `wrapstodon` (4.6); the whole entity checked against Mastodon's schema.
import { readFileSync } from 'node:fs';
import { handler as aboutPage } from '../../functions/instance/about_page';
import { handler as privacyPolicyPage } from '../../functions/instance/privacy_policy_page';
import { handler as termsPage } from '../../functions/instance/terms_page';
import { handler as v2 } from '../../functions/instance/show_v2';
import { main } from '../../lib/admin/cli';
import { recordActivity } from '../../lib/db/activity';
import { updateInstanceSettings } from '../../lib/db/instance';
import { allTermsVersions, deleteTermsVersion, putTermsVersion } from '../../lib/db/instance_documents';
import { call } from '../support/http';
import { aUser } from '../support/factories';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema; $ref?: string; enum?: unknown[] };
const openapi: { components: { schemas: Record<string, Schema> } } = JSON.parse(
  readFileSync(new URL('../fixtures/mastodon-openapi/schemas.json', import.meta.url), 'utf8'),
);

/** Mastodon's own entity schema, checked: required fields present, JSON types and enums as declared, null only where allowed. */
function violations(value: unknown, schema: Schema, path = '$'): string[] {
  if (schema.$ref) return violations(value, openapi.components.schemas[schema.$ref.split('/').pop() ?? ''] ?? {}, path);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (value === null) return types.includes('null') ? [] : [`${path}: null`];
  const jsonType = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length > 0 && !types.includes(jsonType) && !(jsonType === 'integer' && types.includes('number'))) return [`${path}: ${jsonType}`];
  if (schema.enum && !schema.enum.includes(value)) return [`${path}: ${JSON.stringify(value)} not one of ${JSON.stringify(schema.enum)}`];
  const out: string[] = [];
  if (jsonType === 'object' && value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) out.push(`${path}.${key}: missing`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) if (key in record) out.push(...violations(record[key], sub, `${path}.${key}`));
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => out.push(...violations(item, schema.items!, `${path}[${i}]`)));
  return out;
}

type Instance = {
  configuration: { urls: Record<string, string | null>; limited_federation: boolean; timelines_access: Record<string, { local: string; remote: string }> };
  thumbnail: { url: string; description: string };
  usage: { users: { active_month: number } };
  registrations: Record<string, unknown>;
} & Record<string, unknown>;
const instance = async () => (await call(v2, { path: '/api/v2/instance' })).body as Instance;

const cli = async (...argv: string[]) => {
  const err: string[] = [];
  const code = await main(argv, { out: () => undefined, err: (t) => void (/^Stage \S+, table /.test(t) || err.push(t)) });
  return { code, err: err.join('\n') };
};

beforeEach(async () => {
  await updateInstanceSettings({ statusPageUrl: null, limitedFederation: false, publicPreview: true });
  for (const v of await allTermsVersions()) await deleteTermsVersion(v.effectiveDate);
});

describe('configuration.urls (Mastodon 4.4)', () => {
  it('names the streaming API and this server’s about and privacy policy pages, which it serves', async () => {
    const { urls } = (await instance()).configuration;
    expect(urls).toEqual({
      streaming: 'wss://social.example',
      status: null,
      about: 'https://social.example/about',
      privacy_policy: 'https://social.example/privacy-policy',
      terms_of_service: null,
    });
    expect((await call(aboutPage, { path: '/about' })).status).toBe(200);
    expect((await call(privacyPolicyPage, { path: '/privacy-policy' })).status).toBe(200);
  });

  it('names the terms of service only once some are published, as the page answers only then', async () => {
    expect((await instance()).configuration.urls.terms_of_service).toBeNull();
    expect((await call(termsPage, { path: '/terms-of-service' })).status).toBe(404);
    // An upcoming version counts: it is what the terms endpoint answers until one is in effect.
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    await putTermsVersion({ effectiveDate: date, source: 'x', format: 'html', contentHtml: '<p>x</p>' });
    expect((await instance()).configuration.urls.terms_of_service).toBe('https://social.example/terms-of-service');
    expect((await call(termsPage, { path: '/terms-of-service' })).status).toBe(200);
    await deleteTermsVersion(date);
    expect((await instance()).configuration.urls.terms_of_service).toBeNull();
  });

  it('names the status page the operator sets, and none again once cleared; refuses what is not a web address', async () => {
    expect((await cli('settings', 'set', 'status-page-url', 'https://status.social.example')).code).toBe(0);
    expect((await instance()).configuration.urls.status).toBe('https://status.social.example');
    const bad = await cli('settings', 'set', 'status-page-url', 'javascript:alert(1)');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('status-page-url must be an http(s) address');
    expect((await instance()).configuration.urls.status).toBe('https://status.social.example');
    expect((await cli('settings', 'set', 'status-page-url', 'none')).code).toBe(0);
    expect((await instance()).configuration.urls.status).toBeNull();
  });
});

describe('the thumbnail (Mastodon 4.6)', () => {
  it('carries alt text describing the default banner it points to', async () => {
    const { thumbnail } = await instance();
    expect(thumbnail).toEqual({ url: 'https://social.example/headers/original/missing.png', description: 'A plain dark grey banner.' });
  });
});

describe('limited federation and timeline access', () => {
  it('says whether federation is limited, and then counts no active users, as Mastodon', async () => {
    const user = await aUser();
    await recordActivity(user.account.id);
    const open = await instance();
    expect(open.configuration.limited_federation).toBe(false);
    expect(open.usage.users.active_month).toBeGreaterThan(0);
    await updateInstanceSettings({ limitedFederation: true });
    const limited = await instance();
    expect(limited.configuration.limited_federation).toBe(true);
    expect(limited.usage.users.active_month).toBe(0);
  });

  it('says the public, hashtag and link timelines need a token when public preview is off (Mastodon 4.5)', async () => {
    const everyone = { local: 'public', remote: 'public' };
    expect((await instance()).configuration.timelines_access).toEqual({ live_feeds: everyone, hashtag_feeds: everyone, trending_link_feeds: everyone });
    await updateInstanceSettings({ publicPreview: false });
    const members = { local: 'authenticated', remote: 'authenticated' };
    expect((await instance()).configuration.timelines_access).toEqual({ live_feeds: members, hashtag_feeds: members, trending_link_feeds: members });
  });
});

describe('the whole entity', () => {
  it('has the registration fields of 4.4, the annual report campaign of today, and matches Mastodon’s schema', async () => {
    await putTermsVersion({ effectiveDate: '2020-01-01', source: 'x', format: 'html', contentHtml: '<p>x</p>' });
    // Mastodon's schema wants a contact account: this server names one once there is an account to name.
    const contact = await aUser();
    await updateInstanceSettings({ statusPageUrl: 'https://status.social.example', contactUsername: contact.account.username });
    const body = await instance();
    expect(body.registrations).toMatchObject({ reason_required: false, min_age: null, url: null });
    // The campaign runs from December 10th to the year's end (lib/annual_reports/campaign.ts).
    const now = new Date();
    expect(body.wrapstodon).toBe(now.getUTCMonth() === 11 && now.getUTCDate() >= 10 ? String(now.getUTCFullYear()) : null);
    expect(violations(body, openapi.components.schemas.Instance!)).toEqual([]);
  });
});
