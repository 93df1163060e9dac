// verify_credentials, update_credentials (text fields) and preferences.
import { handler as update } from '../../functions/accounts/update_credentials';
import { handler as verify } from '../../functions/accounts/verify_credentials';
import { handler as preferences } from '../../functions/accounts/preferences';
import { accountById, updateAccount } from '../../lib/db/accounts';
import { call, type Call } from '../support/http';
import { anAppToken, aUser } from '../support/factories';

const patch = (token: string, request: Partial<Call>) =>
  call(update, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token, ...request });
const me = (token: string) => call(verify, { path: '/api/v1/accounts/verify_credentials', token });

describe('GET /api/v1/accounts/verify_credentials', () => {
  it("answers the user's own account with source, in Mastodon's shape", async () => {
    const { account, token } = await aUser();
    const res = await me(token);
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
      created_at: `${account.createdAt.slice(0, 10)}T00:00:00.000Z`,
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
      source: {
        privacy: 'public',
        sensitive: false,
        language: null,
        // Mastodon 4.5's default quote policy (another change of issue 29).
        quote_policy: 'public',
        note: '',
        fields: [],
        follow_requests_count: 0,
        hide_collections: null,
        discoverable: false,
        indexable: false,
        attribution_domains: [],
      },
      // Mastodon 4: an account without a role has the `everyone` role.
      role: { id: '-99', name: '', permissions: '65536', color: '', highlighted: false },
    });
  });

  it('renders last_status_at as a date', async () => {
    const { account, token } = await aUser();
    await updateAccount(account.id, { lastStatusAt: '2024-03-05T23:59:59.000Z', statusesCount: 3 });
    const res = await me(token);
    expect(res.body).toMatchObject({ last_status_at: '2024-03-05', statuses_count: 3 });
  });

  it.each([
    ['no token', undefined, 401, 'The access token is invalid'],
    ['an unknown token', 'nope', 401, 'The access token is invalid'],
  ])('answers %s with %i', async (_name, token, status, error) => {
    const res = await call(verify, { path: '/api/v1/accounts/verify_credentials', token });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
  });

  it('answers 422 to an app token, which has no user', async () => {
    const { token } = await anAppToken(['read']);
    const res = await me(token);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'This method requires an authenticated user' });
  });

  it('answers 403 to a token without read:accounts', async () => {
    const { token } = await aUser({ scopes: ['write', 'read:statuses'] });
    const res = await me(token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
  });

  it('accepts the granular read:accounts scope', async () => {
    const { token } = await aUser({ scopes: ['read:accounts'] });
    expect((await me(token)).status).toBe(200);
  });

  it('answers 403 for a disabled login', async () => {
    const { account, token } = await aUser();
    await updateAccount(account.id, { disabled: true });
    const res = await me(token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Your login is currently disabled' });
  });

  it('answers 403 for an unconfirmed login', async () => {
    const { token } = await aUser({ confirmed: false });
    const res = await me(token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Your login is missing a confirmed e-mail address' });
  });
});

describe('PATCH /api/v1/accounts/update_credentials', () => {
  it('updates the profile from JSON and renders the HTML on the server', async () => {
    const { token } = await aUser();
    const res = await patch(token, {
      json: {
        display_name: '  Ada <Lovelace>  ',
        note: 'Hello <world>\nhttps://example.com/ada\n\nSecond paragraph',
        locked: true,
        bot: 'true',
        discoverable: true,
        source: { privacy: 'unlisted', sensitive: true, language: 'de' },
        fields_attributes: [
          { name: 'Website', value: 'https://ada.example.org' },
          { name: 'Pronouns', value: '<she/her>' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      display_name: 'Ada <Lovelace>',
      locked: true,
      bot: true,
      discoverable: true,
      note:
        '<p>Hello &lt;world&gt;<br /><a href="https://example.com/ada" target="_blank" rel="nofollow noopener noreferrer">' +
        '<span class="invisible">https://</span><span class="">example.com/ada</span><span class="invisible"></span></a></p><p>Second paragraph</p>',
      fields: [
        {
          name: 'Website',
          value:
            '<a href="https://ada.example.org/" target="_blank" rel="me nofollow noopener noreferrer"><span class="invisible">https://</span><span class="">ada.example.org</span><span class="invisible"></span></a>',
          verified_at: null,
        },
        { name: 'Pronouns', value: '&lt;she/her&gt;', verified_at: null },
      ],
      source: {
        privacy: 'unlisted',
        sensitive: true,
        language: 'de',
        note: 'Hello <world>\nhttps://example.com/ada\n\nSecond paragraph',
        fields: [
          { name: 'Website', value: 'https://ada.example.org', verified_at: null },
          { name: 'Pronouns', value: '<she/her>', verified_at: null },
        ],
      },
    });
    expect((await me(token)).body).toEqual(res.body);
  });

  it('accepts form bodies with index-keyed fields_attributes, dropping empty rows', async () => {
    const { token } = await aUser();
    const res = await patch(token, {
      body: {
        contentType: 'application/x-www-form-urlencoded',
        data:
          'display_name=Form&source[privacy]=private&source[sensitive]=1&locked=false' +
          '&fields_attributes[1][name]=Second&fields_attributes[1][value]=two' +
          '&fields_attributes[0][name]=First&fields_attributes[0][value]=one' +
          '&fields_attributes[2][name]=&fields_attributes[2][value]=' +
          '&fields_attributes[3][name]=%20&fields_attributes[3][value]=%20',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.display_name).toBe('Form');
    expect(res.body.source).toMatchObject({ privacy: 'private', sensitive: true });
    expect(res.body.source.fields.map((f: { name: string }) => f.name)).toEqual(['First', 'Second']);
  });

  it('accepts an index-keyed object in JSON as Rails does', async () => {
    const { token } = await aUser();
    const res = await patch(token, { json: { fields_attributes: { '0': { name: 'A', value: '1' }, '1': { name: 'B', value: '2' } } } });
    expect(res.status).toBe(200);
    expect(res.body.source.fields).toEqual([
      { name: 'A', value: '1', verified_at: null },
      { name: 'B', value: '2', verified_at: null },
    ]);
  });

  it('changes only what was sent, and clears fields, note and language when sent empty', async () => {
    const { token } = await aUser();
    await patch(token, { json: { display_name: 'Keep', note: 'old note', fields_attributes: [{ name: 'a', value: 'b' }], source: { language: 'fr' } } });
    const res = await patch(token, { json: { note: '', fields_attributes: [], source: { language: '' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'Keep', note: '', fields: [], source: { note: '', fields: [], language: null } });
  });

  it('accepts the limits exactly: 30-character name, 500-character note, 4 fields of 255', async () => {
    const { token } = await aUser();
    const field = { name: 'n'.repeat(255), value: 'v'.repeat(255) };
    const res = await patch(token, { json: { display_name: '🐘'.repeat(30), note: 'x'.repeat(500), fields_attributes: [field, field, field, field] } });
    expect(res.status).toBe(200);
    expect(res.body.fields).toHaveLength(4);
  });

  it('counts a URL in the note as 23 characters', async () => {
    const { token } = await aUser();
    const res = await patch(token, { json: { note: `${'x'.repeat(470)} https://example.com/${'p'.repeat(100)}` } });
    expect(res.status).toBe(200);
  });

  const tooLong = (n: number) => 'x'.repeat(n);
  it.each([
    ['a 31-character display name', { display_name: tooLong(31) }, 'Validation failed: Display name is too long (maximum is 30 characters)'],
    ['a 501-character note', { note: tooLong(501) }, 'Validation failed: Note is too long (maximum is 500 characters)'],
    ['five fields', { fields_attributes: Array.from({ length: 5 }, (_, i) => ({ name: `n${i}`, value: 'v' })) }, 'Validation failed: Fields are too many (maximum is 4)'],
    ['a 256-character field name', { fields_attributes: [{ name: tooLong(256), value: 'v' }] }, 'Validation failed: Fields have a name or value that is too long (maximum is 255 characters)'],
    ['a 256-character field value', { fields_attributes: [{ name: 'n', value: tooLong(256) }] }, 'Validation failed: Fields have a name or value that is too long (maximum is 255 characters)'],
    ['a field value without a name', { fields_attributes: [{ name: '', value: 'orphan' }] }, 'Validation failed: Fields contains values with missing labels'],
    ['an unknown privacy', { source: { privacy: 'direct' } }, 'Validation failed: Default privacy is not included in the list'],
    ['an unknown language', { source: { language: 'xx' } }, 'Validation failed: Default language is not included in the list'],
    ['a three-letter language', { source: { language: 'eng' } }, 'Validation failed: Default language is not included in the list'],
    ['a non-string display name', { display_name: 42 }, /display_name must be a string/],
    ['a non-boolean locked', { locked: 'maybe' }, /locked must be a boolean/],
    ['a field row as a string', { fields_attributes: ['nope'] }, /fields_attributes/],
    ['a non-object source', { source: 'public' }, /source must be an object/],
    ['an avatar sent as text', { avatar: 'data:image/png;base64,AAAA' }, /avatar must be an image file/],
    ['a huge display name', { display_name: tooLong(20_000) }, /display_name is too long/],
    ['too many field rows', { fields_attributes: Array.from({ length: 17 }, () => ({ name: '', value: '' })) }, /fields_attributes has too many rows/],
  ])('refuses %s with 422 and changes nothing', async (_name, json, message) => {
    const { account, token } = await aUser();
    const res = await patch(token, { json: { display_name: 'Changed', ...json } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(res.body.error).toMatch(message);
    expect(await accountById(account.id)).toEqual(account);
  });

  it.each([
    ['a string in JSON', { json: { display_name: 'Changed', fields_attributes: 'nope' } }],
    ['`undefined` in a form', { body: { contentType: 'application/x-www-form-urlencoded', data: 'display_name=Changed&fields_attributes=undefined' } }],
    ['a number', { json: { display_name: 'Changed', fields_attributes: 3 } }],
  ])('ignores fields_attributes given as %s, as Mastodon, and keeps the fields', async (_name, body) => {
    const { token } = await aUser();
    await patch(token, { json: { fields_attributes: [{ name: 'Kept', value: 'yes' }] } });
    const res = await patch(token, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'Changed', fields: [{ name: 'Kept', value: 'yes' }] });
  });

  it('reports every broken rule in one message', async () => {
    const { token } = await aUser();
    const res = await patch(token, { json: { display_name: tooLong(31), note: tooLong(501), source: { privacy: 'x' } } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(
      'Validation failed: Display name is too long (maximum is 30 characters), Note is too long (maximum is 500 characters), Default privacy is not included in the list',
    );
  });

  it('rejects malformed JSON with 400, writing nothing', async () => {
    const { account, token } = await aUser();
    const res = await patch(token, { body: { data: '{"display_name":', contentType: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await accountById(account.id)).toEqual(account);
  });

  it.each([
    ['a read-only token', ['read'], 403, 'This action is outside the authorized scopes'],
    ['a write:statuses token', ['write:statuses'], 403, 'This action is outside the authorized scopes'],
  ])('answers %s with %i, changing nothing', async (_name, scopes, status, error) => {
    const { account, token } = await aUser({ scopes });
    const res = await patch(token, { json: { display_name: 'Nope' } });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
    expect(await accountById(account.id)).toEqual(account);
  });

  it('answers 401 without a token', async () => {
    const res = await call(update, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', json: { display_name: 'x' } });
    expect(res.status).toBe(401);
  });

  it('answers 403 for a disabled login, changing nothing', async () => {
    const { account, token } = await aUser();
    const disabled = await updateAccount(account.id, { disabled: true });
    const res = await patch(token, { json: { display_name: 'Nope' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Your login is currently disabled' });
    expect(await accountById(account.id)).toEqual(disabled);
  });
});

describe('GET /api/v1/preferences', () => {
  it("answers the user's posting defaults and Mastodon's reading defaults", async () => {
    const { token } = await aUser();
    await patch(token, { json: { source: { privacy: 'private', sensitive: true, language: 'ja' } } });
    const res = await call(preferences, { path: '/api/v1/preferences', token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      'posting:default:visibility': 'private',
      'posting:default:sensitive': true,
      'posting:default:language': 'ja',
      'reading:expand:media': 'default',
      'reading:expand:spoilers': false,
    });
  });

  it.each([
    ['no token', undefined, 401],
    ['a token without read:accounts', 'write-only', 403],
    ['an app token', 'app', 422],
  ])('answers %s with %i', async (_name, kind, status) => {
    let token: string | undefined;
    if (kind === 'write-only') token = (await aUser({ scopes: ['write'] })).token;
    if (kind === 'app') token = (await anAppToken(['read'])).token;
    const res = await call(preferences, { path: '/api/v1/preferences', token });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});
