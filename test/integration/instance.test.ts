import { readFileSync } from 'node:fs';
import { handler as v1 } from '../../functions/instance/show';
import { handler as v2 } from '../../functions/instance/show_v2';
import { updateAccount } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import * as keys from '../../lib/db/keys';
import { putItem } from '../../lib/db/table';
import { recordActivity } from '../../lib/db/activity';
import { MAX_UPLOAD_BYTES } from '../../lib/http/limits';
import { call } from '../support/http';
import { aUser } from '../support/factories';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
  oneOf?: Schema[];
};

const openapi: { components: { schemas: Record<string, Schema> } } = JSON.parse(
  readFileSync(new URL('../fixtures/mastodon-openapi/schemas.json', import.meta.url), 'utf8'),
);

/**
 * Checks a value against Mastodon's own entity schema: every required field is
 * present, nothing is null where the schema does not allow it, and the JSON
 * types match. Account references are the account serializer's business and
 * are only checked to be objects.
 */
function violations(value: unknown, schema: Schema, path = '$'): string[] {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() ?? '';
    if (name === 'Account') return value !== null && typeof value === 'object' ? [] : [`${path}: expected an Account`];
    return violations(value, openapi.components.schemas[name] ?? {}, path);
  }
  if (schema.oneOf) {
    const fits = schema.oneOf.some((alt) => violations(value, alt, path).length === 0);
    return fits ? [] : [`${path}: matches none of its alternatives`];
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (value === null) return types.includes('null') ? [] : [`${path}: null`];
  const jsonType = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length > 0 && !types.includes(jsonType) && !(jsonType === 'integer' && types.includes('number'))) {
    return [`${path}: ${jsonType}, expected ${types.join('|')}`];
  }
  const out: string[] = [];
  if (jsonType === 'object' && value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) out.push(`${path}.${key}: missing`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) {
      if (key in record) out.push(...violations(record[key], sub, `${path}.${key}`));
    }
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => out.push(...violations(item, schema.items!, `${path}[${i}]`)));
  return out;
}

const getV1 = () => call(v1, { path: '/api/v1/instance' });
const getV2 = () => call(v2, { path: '/api/v2/instance' });

/** Every key at every depth, except inside the rendered contact account. */
const nullPaths = (value: unknown, path = '$'): string[] => {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${path}[${i}]`));
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      k === 'contact_account' || (k === 'account' && path.endsWith('.contact')) ? [] : nullPaths(v, `${path}.${k}`),
    );
  }
  return [];
};

describe('GET /api/v1/instance on a fresh instance', () => {
  it('answers the Mastodon 3.x shape with its defaults and zero counters', async () => {
    const res = await getV1();
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cache-control']).toBe('public, max-age=180');
    expect(res.body).toMatchObject({
      uri: 'social.example',
      title: 'Tootless',
      version: expect.stringMatching(/^4\.6\.0 \(compatible; tootless /),
      urls: { streaming_api: 'wss://social.example' },
      stats: { user_count: 0, status_count: 0, domain_count: 0 },
      thumbnail: 'https://social.example/headers/original/missing.png',
      languages: ['en'],
      registrations: true,
      approval_required: false,
      invites_enabled: false,
      rules: [],
      configuration: {
        statuses: { max_characters: 500, max_media_attachments: 4, characters_reserved_per_url: 23 },
        media_attachments: {
          supported_mime_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'image/avif'],
          // What one request carries through API Gateway and Lambda (test/integration/media-size-limit.test.ts).
          image_size_limit: MAX_UPLOAD_BYTES,
          image_matrix_limit: 33177600,
        },
        polls: { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2629746 },
      },
    });
    // With no contact set and no admin, there is no account to name.
    expect(res.body.contact_account).toBeNull();
    expect(nullPaths(res.body)).toEqual([]);
    expect(violations(res.body, openapi.components.schemas.V1Instance!)).toEqual([]);
    // The check itself is not a rubber stamp.
    expect(violations({ ...res.body, email: null }, openapi.components.schemas.V1Instance!)).toEqual(['$.email: null']);
    const { urls: _urls, ...withoutUrls } = res.body;
    expect(violations(withoutUrls, openapi.components.schemas.V1Instance!)).toEqual(['$.urls: missing']);
  });

  it('answers GET /api/v2/instance in the Mastodon 4 shape, nothing null', async () => {
    const res = await getV2();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      domain: 'social.example',
      title: 'Tootless',
      usage: { users: { active_month: 0 } },
      thumbnail: { url: 'https://social.example/headers/original/missing.png' },
      configuration: {
        urls: { streaming: 'wss://social.example' },
        // No pair configured in tests: the stage's own, derived from its secret key base, never ''.
        vapid: { public_key: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/) },
        accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
        statuses: { max_characters: 500 },
        translation: { enabled: false },
      },
      registrations: { enabled: true, approval_required: false, message: '' },
      contact: { email: '', account: null },
      rules: [],
      version: expect.stringMatching(/^4\.6\.0 \(compatible; tootless /),
      api_versions: { mastodon: 10 },
      // Ice Cubes reads only the v2 instance and takes its streaming URL from here.
      urls: { streaming_api: 'wss://social.example' },
    });
    // Mastodon 4.4-4.6 fields whose null means "none": no status page, no terms yet, no minimum age, no external
    // sign-up, no annual report campaign (outside December).
    const meaningful = ['$.configuration.urls.status', '$.configuration.urls.terms_of_service', '$.registrations.min_age', '$.registrations.url', '$.wrapstodon'];
    expect(nullPaths(res.body).filter((p) => !meaningful.includes(p))).toEqual([]);
    expect(violations(res.body, openapi.components.schemas.Instance!)).toEqual([]);
  });
});

describe('instance metadata as the operator configures it', () => {
  it.each([
    ['open', true, false],
    ['approved', true, true],
    ['none', false, false],
  ] as const)('registrations mode %s → registrations %s, approval_required %s', async (mode, open, approval) => {
    await updateInstanceSettings({ registrationsMode: mode });
    const one = await getV1();
    expect(one.body).toMatchObject({ registrations: open, approval_required: approval });
    const two = await getV2();
    expect(two.body.registrations).toMatchObject({ enabled: open, approval_required: approval });
    expect(typeof two.body.registrations.message).toBe('string');
    if (!open) expect(two.body.registrations.message).not.toBe('');
  });

  it('shows the texts, contact e-mail and rules from the settings', async () => {
    await updateInstanceSettings({
      title: 'Cats Social',
      shortDescription: 'A place for cats',
      description: '<p>Long description</p>',
      contactEmail: 'staff@social.example',
      rules: [{ id: '1', text: 'Be kind' }, { id: '2', text: 'No spam' }],
    });
    const one = await getV1();
    expect(one.body).toMatchObject({
      title: 'Cats Social',
      short_description: 'A place for cats',
      description: '<p>Long description</p>',
      email: 'staff@social.example',
      rules: [{ id: '1', text: 'Be kind' }, { id: '2', text: 'No spam' }],
    });
    const two = await getV2();
    expect(two.body).toMatchObject({ title: 'Cats Social', description: 'A place for cats', contact: { email: 'staff@social.example' } });
    expect(two.body.rules).toEqual([{ id: '1', text: 'Be kind', hint: '' }, { id: '2', text: 'No spam', hint: '' }]);
    expect(violations(one.body, openapi.components.schemas.V1Instance!)).toEqual([]);
    expect(violations(two.body, openapi.components.schemas.Instance!)).toEqual([]);
  });

  it('reads the counters from the instance statistics item', async () => {
    await putItem({ ...keys.instanceStats(), userCount: 12, statusCount: 345, domainCount: 6 });
    const res = await getV1();
    expect(res.body.stats).toEqual({ user_count: 12, status_count: 345, domain_count: 6 });
  });

  it('counts distinct accounts active in the last four weeks as active_month', async () => {
    const [a, b] = await Promise.all([aUser(), aUser()]);
    const now = new Date();
    const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);
    await recordActivity(a.account.id, daysAgo(40));
    await recordActivity(b.account.id, daysAgo(3));
    await recordActivity(b.account.id, daysAgo(1));
    await recordActivity(b.account.id, now);
    const before = (await getV2()).body.usage.users.active_month;
    expect(before).toBe(1);
    await recordActivity(a.account.id, now);
    expect((await getV2()).body.usage.users.active_month).toBe(2);
  });
});

describe('the contact account', () => {
  it('is the oldest admin when no contact username is set', async () => {
    await updateInstanceSettings({ contactUsername: null });
    const first = await aUser();
    const second = await aUser();
    await updateAccount(second.account.id, { admin: true });
    await updateAccount(first.account.id, { admin: true });
    const res = await getV1();
    expect(res.body.contact_account).toMatchObject({ id: first.account.id, username: first.account.username, acct: first.account.username });
    const two = await getV2();
    expect(two.body.contact.account).toMatchObject({ id: first.account.id });
    // An admin who is no longer one stops being the contact.
    await updateAccount(first.account.id, { admin: false });
    expect((await getV1()).body.contact_account).toMatchObject({ id: second.account.id });
  });

  it('is the account the operator named, with or without a leading @', async () => {
    const named = await aUser();
    await updateInstanceSettings({ contactUsername: `@${named.account.username.toUpperCase()}` });
    const res = await getV1();
    expect(res.body.contact_account).toMatchObject({ id: named.account.id, username: named.account.username });
    expect(res.body.contact_account).not.toHaveProperty('source');
    expect(JSON.stringify(res.body)).not.toContain('@example.com'); // no login e-mail leaks
  });

  it('falls back to an admin when the named account does not exist', async () => {
    const admin = await aUser();
    await updateAccount(admin.account.id, { admin: true });
    await updateInstanceSettings({ contactUsername: 'nobody_here' });
    const res = await getV1();
    expect(res.body.contact_account).not.toBeNull();
    expect(res.body.contact_account.username).not.toBe('nobody_here');
    expect((await getV2()).body.contact.account).toMatchObject({ id: res.body.contact_account.id });
  });
});

describe('public access', () => {
  it('needs no token and ignores a bad one', async () => {
    const res = await call(v1, { path: '/api/v1/instance', token: 'not-a-token' });
    expect(res.status).toBe(200);
  });
});
