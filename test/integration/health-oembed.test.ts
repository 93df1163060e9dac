// GET /health (Mastodon's HealthController: `OK` as text) and GET /api/oembed (Mastodon's Api::OEmbedController
// and OEmbedSerializer: the oEmbed of a local status URL anyone may read, 404 for any other URL).
import { handler as embedPage } from '../../functions/activitypub/profile_status_embed';
import { handler as health } from '../../functions/system/health';
import { handler as oembed } from '../../functions/system/oembed';
import { updateAccount } from '../../lib/db/accounts';
import { aPostedReblog, aPostedStatus, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call, warmContainer } from '../support/http';

const embed = (query: Record<string, string>) => call(oembed, { path: '/api/oembed', query });

describe('GET /health', () => {
  it('answers OK as plain text, to anyone, reading nothing', async () => {
    process.env.EXPOSE_METRICS = '1';
    try {
      // What every request reads once per container (the address blocks, the instance's domain blocks) is read.
      await warmContainer();
      const res = await call(health, { path: '/health' });
      expect([res.status, res.text]).toEqual([200, 'OK']);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(Number(res.headers['x-db-calls'] ?? 0)).toBe(0);
      // A token, even a bad one, changes nothing: nobody is asked who they are.
      expect((await call(health, { path: '/health', token: 'not-a-token' })).text).toBe('OK');
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });
});

describe('GET /api/oembed', () => {
  let author: UserFixture;
  beforeAll(async () => {
    author = await aUser({ username: 'embedded_ann' });
    await updateAccount(author.account.id, { displayName: 'Ann <Embed>' });
  });

  it('answers the oEmbed of a public status by its page URL, as Mastodon’s serializer shapes it', async () => {
    const status = await aPostedStatus(author.account, { visibility: 'public', text: 'hello embed' });
    const res = await embed({ url: `https://social.example/@embedded_ann/${status.id}` });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      type: 'rich',
      version: '1.0',
      author_name: 'Ann <Embed>',
      author_url: 'https://social.example/@embedded_ann',
      provider_name: 'social.example',
      provider_url: 'https://social.example/',
      cache_age: 86400,
      html: expect.any(String),
      width: 400,
      height: null,
    });
    // The html frames the status's embed page (which exists here and may be read by anyone), escaped.
    expect(res.body.html).toBe(
      `<iframe src="https://social.example/@embedded_ann/${status.id}/embed" class="mastodon-embed" style="max-width: 100%; border: 0" width="400" allowfullscreen="allowfullscreen" title="Post by @embedded_ann@social.example"></iframe>`,
    );

    // That page shows the status, may be framed by any site, and runs nothing.
    const page = await call(embedPage, { path: `/@embedded_ann/${status.id}/embed`, pathParameters: { handle: '@embedded_ann', id: status.id }, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('hello embed');
    expect(page.text).toContain('Ann &lt;Embed&gt;');
    expect(page.text).not.toContain('<script');
    expect(page.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['x-frame-options']).toBeUndefined();
  });

  it('serves no embed page for a status others may not read, nor for a path that is no status', async () => {
    const priv = await aPostedStatus(author.account, { visibility: 'private' });
    const page = (handle: string, id: string) => call(embedPage, { path: `/${handle}/${id}/embed`, pathParameters: { handle, id }, headers: { accept: 'text/html' } });
    expect((await page('@embedded_ann', priv.id)).status).toBe(404);
    expect((await page('@embedded_ann', '12345')).status).toBe(404);
    expect((await page('api', 'v1')).status).toBe(404);
  });

  it('takes the Note URL, an unlisted status, and maxwidth / maxheight', async () => {
    const status = await aPostedStatus(author.account, { visibility: 'unlisted' });
    const res = await embed({ url: `https://social.example/users/embedded_ann/statuses/${status.id}`, maxwidth: '320', maxheight: '200' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ width: 320, height: 200, author_name: 'Ann <Embed>' });
    expect(res.body.html).toContain('width="320" height="200"');
  });

  it('falls back to the username when there is no display name', async () => {
    const plain = await aUser({ username: 'embedded_bob' });
    const status = await aPostedStatus(plain.account, { visibility: 'public' });
    expect((await embed({ url: `https://social.example/@embedded_bob/${status.id}` })).body).toMatchObject({ author_name: 'embedded_bob' });
  });

  it('is 404 for a URL that is not a public or unlisted local status', async () => {
    const priv = await aPostedStatus(author.account, { visibility: 'private' });
    const direct = await aPostedStatus(author.account, { visibility: 'direct' });
    const pub = await aPostedStatus(author.account, { visibility: 'public' });
    const other = await aUser();
    const reblog = await aPostedReblog(other.account, pub);
    const remote = await aRemoteAccount({ domain: 'embed-remote.example' });
    const suspended = await aUser();
    const hidden = await aPostedStatus(suspended.account, { visibility: 'public' });
    await updateAccount(suspended.account.id, { suspendedAt: new Date().toISOString() });
    const urls = [
      `https://social.example/@embedded_ann/${priv.id}`,
      `https://social.example/@embedded_ann/${direct.id}`,
      `https://social.example/@${other.account.username}/${reblog.id}`,
      // Someone else's status under this author's name, and an unknown id.
      `https://social.example/@${other.account.username}/${pub.id}`,
      'https://social.example/@embedded_ann/99999999999',
      // Another server's URL, and one of ours that is no status.
      `https://embed-remote.example/@${remote.account.username}/${pub.id}`,
      'https://social.example/@embedded_ann',
      'https://social.example/about',
      `https://social.example/@${suspended.account.username}/${hidden.id}`,
      'not a url',
      'javascript:alert(1)',
    ];
    for (const url of urls) {
      const res = await embed({ url });
      expect([url, res.status, res.body]).toEqual([url, 404, { error: 'Record not found' }]);
    }
  });

  it.each([
    ['no url', {}, 'url'],
    ['a blank url', { url: ' ' }, 'url'],
    ['a maxwidth that is not a number', { url: 'https://social.example/@embedded_ann/1', maxwidth: 'wide' }, 'maxwidth'],
    ['a maxheight of zero', { url: 'https://social.example/@embedded_ann/1', maxheight: '0' }, 'maxheight'],
  ])('%s is 422 naming the parameter', async (_, query, field) => {
    const res = await embed(query as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body.error).toContain(field);
  });
});
