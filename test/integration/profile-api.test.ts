// Mastodon 4.6's profile API (issue 29): GET, PATCH and PUT /api/v1/profile through their handlers against the
// emulators. The Profile entity (values as written, images null when unset, the profile tabs, featured tags),
// what PATCH takes (the changes of update_credentials, lib/accounts/profile.ts, plus the tabs), its 422s naming
// each field (each bad case beside a good twin), its scopes, and what update_credentials now takes as well.
import sharp from 'sharp';
import { handler as showAccountHandler } from '../../functions/accounts/show';
import { handler as updateCredentialsHandler } from '../../functions/accounts/update_credentials';
import { handler as showHandler } from '../../functions/profile/show';
import { handler as updateHandler } from '../../functions/profile/update';
import { handler as featureTagHandler } from '../../functions/featured_tags/create';
import { accountById, type Account } from '../../lib/db/accounts';
import { createFollow } from '../../lib/db/follows';
import { apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { schemaViolations } from '../support/entity_schema';
import { anAppToken, aRemoteAccount, aUser } from '../support/factories';
import { call, type Answer, type Call } from '../support/http';
import { multipart } from '../support/multipart';

process.env.EXPOSE_METRICS = '1';

type Delivery = { inbox: string; activity: Record<string, unknown> };
const deliveries: Delivery[] = [];
registerInlineWorker('deliver', async (event) => {
  for (const r of event.Records) deliveries.push(JSON.parse(r.body) as Delivery);
  return { batchItemFailures: [] };
});
beforeEach(() => {
  deliveries.length = 0;
});

const getProfile = (token: string | undefined) => call(showHandler, { path: '/api/v1/profile', token });
const patch = (token: string | undefined, request: Partial<Call>, method: 'PATCH' | 'PUT' = 'PATCH') =>
  call(updateHandler, { method, path: '/api/v1/profile', token, ...request });
const account = async (id: string) => (await call(showAccountHandler, { path: `/api/v1/accounts/${id}`, pathParameters: { id } })).body;
const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 90, g: 20, b: 160 } } }).png().toBuffer();

const expect422 = (res: Answer, field: string, message: RegExp) => {
  expect(res.status).toBe(422);
  expect(res.body.error).toMatch(message);
  expect(Object.keys(res.body.details ?? {})).toEqual([field]);
};

describe('GET /api/v1/profile', () => {
  it("answers the user's Profile: values as written, images null until set, the tabs shown", async () => {
    const { account: me, token } = await aUser();
    const res = await getProfile(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: me.id,
      display_name: '',
      note: '',
      fields: [],
      avatar: null,
      avatar_static: null,
      avatar_description: '',
      header: null,
      header_static: null,
      header_description: '',
      locked: false,
      bot: false,
      hide_collections: null,
      discoverable: false,
      indexable: false,
      show_media: true,
      show_media_replies: true,
      show_featured: true,
      attribution_domains: [],
      featured_tags: [],
    });
    expect(schemaViolations(res.body, 'Profile')).toEqual([]);
  });

  it('lists the featured tags', async () => {
    const { token } = await aUser();
    const featured = await call(featureTagHandler, { method: 'POST', path: '/api/v1/featured_tags', token, json: { name: 'Cats' } });
    expect(featured.status).toBe(200);
    const res = await getProfile(token);
    expect(res.body.featured_tags).toEqual([featured.body]);
  });

  it.each([
    ['read:accounts', ['read:accounts'], 200],
    ['read', ['read'], 200],
    ['write only', ['write'], 403],
    ['read:statuses only', ['read:statuses'], 403],
  ])('with %s (%j) answers %i', async (_name, scopes, status) => {
    const { token } = await aUser({ scopes });
    expect((await getProfile(token)).status).toBe(status);
  });

  it('answers 401 without a token and 422 to an app token, which has no user', async () => {
    expect((await getProfile(undefined)).status).toBe(401);
    const { token } = await anAppToken(['read']);
    expect((await getProfile(token)).status).toBe(422);
  });
});

describe('PATCH and PUT /api/v1/profile', () => {
  it('changes everything the profile takes, answers the Profile, and the Account shows it', async () => {
    const { account: me, token } = await aUser();
    const res = await patch(token, {
      json: {
        display_name: 'Ada',
        note: 'Counting engines, see https://example.com',
        fields_attributes: [{ name: 'Site', value: 'https://ada.example' }],
        locked: true,
        bot: true,
        discoverable: true,
        indexable: true,
        hide_collections: true,
        show_media: false,
        show_media_replies: false,
        show_featured: false,
        avatar_description: '  A portrait  ',
        header_description: 'An engine',
        attribution_domains: ['https://Blog.Example', '*.news.example', 'blog.example', ''],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: me.id,
      display_name: 'Ada',
      // As written: the Profile shows the source, not the HTML.
      note: 'Counting engines, see https://example.com',
      fields: [{ name: 'Site', value: 'https://ada.example', verified_at: null }],
      locked: true,
      bot: true,
      discoverable: true,
      indexable: true,
      hide_collections: true,
      show_media: false,
      show_media_replies: false,
      show_featured: false,
      avatar_description: 'A portrait',
      header_description: 'An engine',
      attribution_domains: ['blog.example', 'news.example'],
    });
    expect(schemaViolations(res.body, 'Profile')).toEqual([]);
    const shown = await account(me.id);
    expect(shown).toMatchObject({ display_name: 'Ada', locked: true, bot: true, indexable: true, hide_collections: true, show_media: false, avatar_description: 'A portrait' });
    expect(shown.note).toContain('<a href="https://example.com/"');
  });

  it('leaves out what it is not sent, and takes PUT as PATCH', async () => {
    const { account: me, token } = await aUser();
    expect((await patch(token, { json: { display_name: 'First', show_media: false } })).status).toBe(200);
    const res = await patch(token, { json: { note: 'Second' } }, 'PUT');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'First', note: 'Second', show_media: false, show_featured: true });
    expect((await accountById(me.id))?.note).toBe('Second');
  });

  it('takes form encoding: booleans as strings, the domains as a list', async () => {
    const { token } = await aUser();
    const res = await patch(token, { form: { show_featured: 'false', hide_collections: '1', 'attribution_domains[]': ['one.example', 'two.example'] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ show_featured: false, hide_collections: true, attribution_domains: ['one.example', 'two.example'] });
  });

  it('ignores what only update_credentials takes (the posting defaults)', async () => {
    const { account: me, token } = await aUser();
    const res = await patch(token, { json: { source: { privacy: 'private' }, display_name: 'Kept' } });
    expect(res.status).toBe(200);
    expect((await accountById(me.id))?.privacy).toBe('public');
  });

  it('uploads an avatar with its description, answering its URL where the Profile had null', async () => {
    const { account: me, token } = await aUser();
    const body = await multipart({ avatar: { data: await png(400, 400), filename: 'a.png', type: 'image/png' }, avatar_description: 'Purple' });
    const res = await patch(token, { body });
    expect(res.status).toBe(200);
    expect(res.body.avatar).toMatch(/\/accounts\/avatars\/\d{20}\/[\w-]+\.png$/);
    expect(res.body.avatar_static).toBe(res.body.avatar);
    expect(res.body.header).toBeNull();
    expect(res.body.avatar_description).toBe('Purple');
    expect((await fetch(res.body.avatar)).status).toBe(200);
    expect((await account(me.id)).avatar).toBe(res.body.avatar);
  });

  it("tells remote followers' servers with an Update of the Person", async () => {
    const { account: me, token } = await aUser();
    const follower: Account = (await aRemoteAccount({ domain: 'profile-followers.example', keyless: true })).account;
    const record = { id: newId(), followerId: follower.id, followedId: me.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
    expect(await createFollow(record, { followerInbox: follower.sharedInboxUrl! })).toBe(true);
    const res = await patch(token, { json: { display_name: 'Announced' } });
    expect(res.status).toBe(200);
    const updates = deliveries.filter((d) => d.activity.type === 'Update');
    expect(updates.map((d) => d.inbox)).toEqual(['https://profile-followers.example/inbox']);
    expect(updates[0]!.activity).toMatchObject({ actor: apUrls.actor(me.username), object: { type: 'Person', name: 'Announced' } });
  });

  const long = (n: number) => 'a'.repeat(n);
  const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.example`);
  it.each([
    ['display_name', { display_name: long(31) }, { display_name: long(30) }, /Display name is too long/],
    ['note', { note: long(501) }, { note: long(500) }, /Note is too long/],
    ['avatar_description', { avatar_description: long(1501) }, { avatar_description: long(1500) }, /Avatar description is too long \(maximum is 1500/],
    ['header_description', { header_description: long(1501) }, { header_description: long(1500) }, /Header description is too long/],
    ['attribution_domains', { attribution_domains: domains(11) }, { attribution_domains: domains(10) }, /Attribution domains are too many/],
    ['attribution_domains', { attribution_domains: ['not a domain'] }, { attribution_domains: ['a-domain.example'] }, /Attribution domains is invalid/],
    ['attribution_domains', { attribution_domains: ['under_score.example'] }, { attribution_domains: ['bücher.example'] }, /Attribution domains is invalid/],
    ['fields', { fields_attributes: [1, 2, 3, 4, 5].map((i) => ({ name: `n${i}`, value: 'v' })) }, { fields_attributes: [1, 2, 3, 4].map((i) => ({ name: `n${i}`, value: 'v' })) }, /Fields are too many/],
  ])('refuses a bad %s with 422 naming it, and stores nothing', async (field, bad, good, message) => {
    const { account: me, token } = await aUser();
    const refused = await patch(token, { json: { ...bad, display_name: field === 'display_name' ? long(31) : 'Not stored' } });
    expect422(refused, field, message);
    expect((await accountById(me.id))?.displayName).toBe('');
    const twin = await patch(token, { json: good });
    expect(twin.status).toBe(200);
  });

  it('refuses a file that is no image with 422 naming the avatar', async () => {
    const { token } = await aUser();
    const body = await multipart({ avatar: { data: Buffer.from('not an image'), filename: 'a.png', type: 'image/png' } });
    const res = await patch(token, { body });
    expect422(res, 'avatar', /Avatar/);
  });

  it.each([
    ['write:accounts', ['write:accounts'], 200],
    ['write', ['write'], 200],
    ['read only', ['read'], 403],
  ])('with %s (%j) answers %i', async (_name, scopes, status) => {
    const { token } = await aUser({ scopes });
    expect((await patch(token, { json: { display_name: 'Scoped' } })).status).toBe(status);
  });
});

describe('update_credentials takes the 4.x profile attributes too', () => {
  it('sets hide_collections, indexable, the descriptions and attribution_domains, but not the profile tabs', async () => {
    const { account: me, token } = await aUser();
    const res = await call(updateCredentialsHandler, {
      method: 'PATCH',
      path: '/api/v1/accounts/update_credentials',
      token,
      json: { hide_collections: true, indexable: true, header_description: 'Hills', attribution_domains: ['site.example'], show_media: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hide_collections: true, indexable: true, header_description: 'Hills', show_media: true });
    expect(res.body.source).toMatchObject({ hide_collections: true, indexable: true, attribution_domains: ['site.example'] });
    expect((await accountById(me.id))?.showMedia).toBe(true);
  });

  it('answers its 422 with the message alone, as Mastodon', async () => {
    const { token } = await aUser();
    const res = await call(updateCredentialsHandler, {
      method: 'PATCH',
      path: '/api/v1/accounts/update_credentials',
      token,
      json: { avatar_description: 'a'.repeat(1501) },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Validation failed: Avatar description is too long (maximum is 1500 characters)' });
  });
});
