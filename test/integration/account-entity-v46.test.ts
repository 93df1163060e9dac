// The Account entity as Mastodon 4.6's REST::AccountSerializer renders it (issue 29): `uri`, `indexable`, the
// image descriptions, `hide_collections` and the profile tabs always; `suspended`, `limited` only when true;
// `noindex` and `roles` only for local accounts; `moved` and `memorial` never (no Move or memorial is stored
// here, and Mastodon leaves both out of an account that is neither). The render reads nothing of its own.
import { handler as showHandler } from '../../functions/accounts/show';
import { handler as verifyHandler } from '../../functions/accounts/verify_credentials';
import { handler as instanceV2Handler } from '../../functions/instance/show_v2';
import { z } from 'zod';
import { updateAccount, type Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { getItem } from '../../lib/db/table';
import { schemaViolations } from '../support/entity_schema';
import { aRemoteAccount, aUser } from '../support/factories';
import { call } from '../support/http';

process.env.EXPOSE_METRICS = '1';

const show = (id: string) => call(showHandler, { path: `/api/v1/accounts/${id}`, pathParameters: { id } });
const day = (account: Account) => `${account.createdAt.slice(0, 10)}T00:00:00.000Z`;

describe('GET /api/v1/accounts/:id renders the 4.6 Account', () => {
  it("renders a local account in Mastodon's shape, with the owner's defaults", async () => {
    const { account } = await aUser();
    const res = await show(account.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: account.id,
      username: account.username,
      acct: account.username,
      display_name: '',
      locked: false,
      bot: false,
      discoverable: false,
      indexable: false,
      group: false,
      created_at: day(account),
      note: '',
      url: `https://social.example/@${account.username}`,
      uri: `https://social.example/users/${account.username}`,
      avatar: 'https://social.example/avatars/original/missing.png',
      avatar_static: 'https://social.example/avatars/original/missing.png',
      avatar_description: '',
      header: 'https://social.example/headers/original/missing.png',
      header_static: 'https://social.example/headers/original/missing.png',
      header_description: '',
      followers_count: 0,
      following_count: 0,
      statuses_count: 0,
      last_status_at: null,
      hide_collections: null,
      show_media: true,
      show_media_replies: true,
      show_featured: true,
      emojis: [],
      fields: [],
      noindex: false,
      roles: [],
    });
    expect(schemaViolations(res.body, 'Account')).toEqual([]);
  });

  it('renders what the owner chose', async () => {
    const { account } = await aUser();
    await updateAccount(account.id, {
      avatarDescription: 'A red square',
      headerDescription: 'A blue band',
      hideCollections: true,
      indexable: true,
      showMedia: false,
      showMediaReplies: false,
      showFeatured: false,
    });
    const res = await show(account.id);
    expect(res.body).toMatchObject({
      avatar_description: 'A red square',
      header_description: 'A blue band',
      hide_collections: true,
      indexable: true,
      show_media: false,
      show_media_replies: false,
      show_featured: false,
    });
  });

  it("renders a remote account's actor id as uri, without noindex or roles", async () => {
    const { account } = await aRemoteAccount({ domain: 'far.example', keyless: true });
    const res = await show(account.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      acct: `${account.username}@far.example`,
      url: `https://far.example/@${account.username}`,
      uri: `https://far.example/users/${account.username}`,
      hide_collections: null,
      indexable: false,
    });
    expect(res.body).not.toHaveProperty('roles');
    expect(res.body).not.toHaveProperty('noindex');
    expect(schemaViolations(res.body, 'Account')).toEqual([]);
  });

  it('leaves suspended, limited, memorial and moved out of an account that is none of them', async () => {
    const { account } = await aUser();
    const res = await show(account.id);
    for (const key of ['suspended', 'limited', 'memorial', 'moved']) expect(res.body).not.toHaveProperty(key);
  });

  it('says limited for a silenced account, and blanks what a suspended one chose', async () => {
    const silenced = (await aUser()).account;
    await updateAccount(silenced.id, { silencedAt: new Date().toISOString() });
    expect((await show(silenced.id)).body).toMatchObject({ limited: true });

    // A suspended account is still shown, blanked (Mastodon's `unavailable?` branches).
    const { account } = await aRemoteAccount({ domain: 'gone.example', keyless: true });
    await updateAccount(account.id, {
      suspendedAt: new Date().toISOString(),
      suspensionOrigin: 'local',
      avatarDescription: 'A face',
      headerDescription: 'A field',
      indexable: true,
      hideCollections: true,
      showMedia: false,
    });
    const res = await show(account.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      suspended: true,
      avatar_description: '',
      header_description: '',
      indexable: false,
      // The owner's tab choices and hide_collections are sent as stored, as Mastodon's serializer sends them.
      hide_collections: true,
      show_media: false,
    });
  });

  it("reads nothing to render the new fields: the address's rate-limit count and the account, as before", async () => {
    const { account } = await aUser();
    await updateAccount(account.id, { avatarDescription: 'x', attributionDomains: ['example.com'] });
    const res = await show(account.id);
    expect(res.status).toBe(200);
    expect(res.headers['x-db-calls']).toBe('2');
  });
});

describe('verify_credentials source (CredentialAccount)', () => {
  it('carries hide_collections, discoverable, indexable and attribution_domains', async () => {
    const { account, token } = await aUser();
    await updateAccount(account.id, { hideCollections: false, discoverable: true, indexable: true, attributionDomains: ['blog.example'] });
    const res = await call(verifyHandler, { path: '/api/v1/accounts/verify_credentials', token });
    expect(res.status).toBe(200);
    expect(res.body.source).toMatchObject({
      hide_collections: false,
      discoverable: true,
      indexable: true,
      attribution_domains: ['blog.example'],
    });
    expect(schemaViolations(res.body, 'CredentialAccount')).toEqual([]);
  });
});

describe('GET /api/v2/instance configuration.accounts', () => {
  it("states the profile's limits that update_credentials and /api/v1/profile enforce", async () => {
    const res = await call(instanceV2Handler, { path: '/api/v2/instance' });
    expect(res.status).toBe(200);
    expect(res.body.configuration.accounts).toEqual({
      max_featured_tags: 10,
      max_pinned_statuses: 5,
      max_display_name_length: 30,
      max_note_length: 500,
      max_avatar_description_length: 1500,
      max_header_description_length: 1500,
      max_profile_fields: 4,
      profile_field_name_limit: 255,
      profile_field_value_limit: 255,
    });
  });
});

describe('what an account item stores of the 4.4-4.6 profile attributes', () => {
  const rawItem = async (id: string) => (await getItem(keys.account(id), z.record(z.unknown()), true))!;
  const SPARSE = ['avatarDescription', 'headerDescription', 'showMedia', 'showMediaReplies', 'showFeatured', 'hideCollections', 'indexable', 'attributionDomains'];

  it('leaves them out while they hold their default (each write to the item is billed by its size), and reads them back as Mastodon\'s defaults', async () => {
    const { account } = await aUser();
    const stored = await rawItem(account.id);
    for (const name of SPARSE) expect(stored).not.toHaveProperty(name);
    expect(account).toMatchObject({ avatarDescription: '', showMedia: true, hideCollections: null, indexable: false, attributionDomains: [] });

    const changed = await updateAccount(account.id, { showMedia: false, avatarDescription: 'A square' });
    expect(changed).toMatchObject({ showMedia: false, avatarDescription: 'A square' });
    expect(await rawItem(account.id)).toMatchObject({ showMedia: false, avatarDescription: 'A square' });
    // Back to the default: removed, not set.
    const back = await updateAccount(account.id, { showMedia: true, avatarDescription: '' });
    expect(back).toMatchObject({ showMedia: true, avatarDescription: '' });
    const after = await rawItem(account.id);
    expect(after).not.toHaveProperty('showMedia');
    expect(after).not.toHaveProperty('avatarDescription');
  });

  it('stores a remote account the same way', async () => {
    const remote = (await aRemoteAccount({ domain: 'sparse.example' })).account;
    const stored = await rawItem(remote.id);
    for (const name of SPARSE) expect(stored).not.toHaveProperty(name);
  });
});
