// A new user's first steps, driven the way an app drives a Mastodon server:
// the `masto` client over HTTP against the running local stack.
import sharp from 'sharp';
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { useStack } from '../support/stack';

const stack = useStack();

const unique = () => `e2e${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

describe('a new user with masto', () => {
  let app: mastodon.v1.Client;
  let appToken: string;
  let user: mastodon.rest.Client;
  const username = unique();
  const email = `${username}@example.com`;
  const password = 'a sturdy passphrase 42';

  it('creates an application and gets an app token (client credentials)', async () => {
    const anon = createRestAPIClient({ url: stack().baseUrl });
    app = await anon.v1.apps.create({
      clientName: 'masto e2e',
      redirectUris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read write follow push',
      website: 'https://example.com',
    });
    expect(app.clientId).toBeTruthy();
    expect(app.clientSecret).toBeTruthy();

    const oauth = createOAuthAPIClient({ url: stack().baseUrl });
    const token = await oauth.token.create({
      grantType: 'client_credentials',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
      scope: 'read write',
    });
    expect(token.tokenType).toBe('Bearer');
    appToken = token.accessToken;

    const asApp = createRestAPIClient({ url: stack().baseUrl, accessToken: appToken });
    const verified = await asApp.v1.apps.verifyCredentials();
    expect(verified.name).toBe('masto e2e');
  });

  it('registers an account with the app token', async () => {
    const asApp = createRestAPIClient({ url: stack().baseUrl, accessToken: appToken });
    const token = await asApp.v1.accounts.create({ username, email, password, agreement: true, locale: 'en' });
    expect(token.accessToken).toBeTruthy();
    const registered = createRestAPIClient({ url: stack().baseUrl, accessToken: token.accessToken });
    const me = await registered.v1.accounts.verifyCredentials();
    expect(me.username).toBe(username);
  });

  it('gets a user token with the password grant and reads the profile', async () => {
    const oauth = createOAuthAPIClient({ url: stack().baseUrl });
    const token = await oauth.token.create({
      grantType: 'password',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
      username: email,
      password,
      scope: 'read write follow',
    });
    expect(token.scope).toBe('read write follow');
    user = createRestAPIClient({ url: stack().baseUrl, accessToken: token.accessToken });
    const me = await user.v1.accounts.verifyCredentials();
    expect(me).toMatchObject({ username, acct: username, locked: false, bot: false, followersCount: 0 });
    expect(me.source).toMatchObject({ privacy: 'public', sensitive: false });
    const prefs = await user.v1.preferences.fetch();
    expect(prefs['posting:default:visibility']).toBe('public');
  });

  it('updates the profile, with an avatar that becomes a 400x400 image', async () => {
    const png = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#3a7bd5' } }).png().toBuffer();
    const updated = await user.v1.accounts.updateCredentials({
      displayName: 'E2E <Tester>',
      note: 'Hello & welcome, see https://example.com/about',
      locked: true,
      source: { privacy: 'unlisted', sensitive: true, language: 'en' },
      fieldsAttributes: [{ name: 'Site', value: 'https://example.org' }],
      avatar: new Blob([png], { type: 'image/png' }),
    });
    expect(updated.displayName).toBe('E2E <Tester>');
    expect(updated.locked).toBe(true);
    expect(updated.note).toContain('Hello &amp; welcome');
    expect(updated.note).toContain('href="https://example.com/about"');
    expect(updated.fields[0]).toMatchObject({ name: 'Site' });
    expect(updated.fields[0]!.value).toMatch(/href="https:\/\/example\.org\/?"/);
    expect(updated.source?.privacy).toBe('unlisted');

    const avatar = await fetch(updated.avatar);
    expect(avatar.status).toBe(200);
    const meta = await sharp(Buffer.from(await avatar.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([400, 400]);

    const anon = createRestAPIClient({ url: stack().baseUrl });
    const looked = await anon.v1.accounts.lookup({ acct: username });
    expect(looked.id).toBe(updated.id);
    const fetched = await anon.v1.accounts.$select(updated.id).fetch();
    expect(fetched.displayName).toBe('E2E <Tester>');
    expect(fetched).not.toHaveProperty('source');
  });

  it('reads the instance in both shapes', async () => {
    const anon = createRestAPIClient({ url: stack().baseUrl });
    const v1 = await anon.v1.instance.fetch();
    expect(v1.urls.streamingApi).toBe(stack().wsUrl);
    expect(v1.version).toMatch(/^4\.6\.\d+ \(compatible; tootless /);
    const v2 = await anon.v2.instance.fetch();
    expect(v2.configuration.urls.streaming).toBe(stack().wsUrl);
    expect(v2.registrations.enabled).toBe(true);
  });

  it('answers the spec errors as a client sees them', async () => {
    const stranger = createRestAPIClient({ url: stack().baseUrl, accessToken: 'not-a-token' });
    await expect(stranger.v1.accounts.verifyCredentials()).rejects.toMatchObject({ statusCode: 401, message: 'The access token is invalid' });
    const anon = createRestAPIClient({ url: stack().baseUrl });
    await expect(anon.v1.accounts.$select('1').fetch()).rejects.toMatchObject({ statusCode: 404, message: 'Record not found' });
    const res = await fetch(`${stack().baseUrl}/api/v1/no/such/route`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: expect.any(String) });
  });
});
