// Preview cards (lib/cards/, the `cards` queue, functions/workers/cards.ts): a status posted
// through the handler, with the fan-out and cards workers run inline, gets the card of its
// first link, fetched from a web server on loopback (names resolved to it by a test resolver,
// reachable only on the local stage with FEDERATION_ALLOW_PRIVATE, as for federation). The
// card renders in GET /api/v1/statuses/:id and the home timeline, its image is in the bucket
// with a blurhash; OpenGraph, Twitter-only, oEmbed and <title>-only pages, huge, non-HTML,
// slow and broken pages, redirects to refused addresses; one fetch per URL; edits follow.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as updateStatus } from '../../functions/statuses/update';
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as cardsWorker } from '../../functions/workers/cards';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { s3 } from '../support/s3';
import { useCardFetchTimeout } from '../../lib/cards/fetch';
import { cardLinkOf } from '../../lib/cards/link';
import { sanitizeEmbedHtml } from '../../lib/cards/page';
import { cardItemByUrl, cardsByUrls } from '../../lib/db/cards';
import { statusById } from '../../lib/db/statuses';
import { registerInlineWorker, sqsEvent } from '../../lib/queue';
import { aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { useLoopbackPages } from '../support/loopback-pages';

const ignore = async () => ({ batchItemFailures: [] });
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('cards', cardsWorker);
for (const queue of ['notify', 'deliver', 'push'] as const) registerInlineWorker(queue, ignore);

let user: UserFixture;
let jpeg: Buffer;
/** Each test's pages live under their own host name, so cards stored by one test never answer for another. */
const pages = useLoopbackPages('news');

beforeAll(async () => {
  user = await aUser();
  jpeg = await sharp({ create: { width: 1200, height: 630, channels: 3, background: { r: 20, g: 120, b: 200 } } }).jpeg().toBuffer();
});


afterEach(() => useCardFetchTimeout(undefined));

const port = () => new URL(pages.server().origin).port;
/** The page's URL as a status links it. */
const link = (path: string, host = pages.host()) => `http://${host}:${port()}${path}`;
const html = (body: string, headers: Record<string, string> = {}) => ({ headers: { 'content-type': 'text/html; charset=utf-8', ...headers }, body });
const requestsFor = (path: string) => pages.server().received.filter((r) => r.path === path).length;

async function post(text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', token: user.token, json: { status: text, visibility: 'public', ...extra } });
  expect(res.status).toBe(200);
  return (res.body as { id: string }).id;
}

const show = (id: string) => call(showStatus, { path: `/api/v1/statuses/${id}`, pathParameters: { id }, token: user.token });
const cardOf = async (id: string) => (await show(id)).body.card as Record<string, any> | null; // eslint-disable-line @typescript-eslint/no-explicit-any

const OG_PAGE = `<!doctype html><html lang="fr"><head>
  <title>Fallback title</title>
  <meta property="og:title" content="Rivers &amp; lakes">
  <meta property="og:description" content="A long read about water.">
  <meta property="og:image" content="/img/cover.jpg">
  <meta property="og:image:alt" content="A blue lake">
  <meta property="og:site_name" content="The Water Times">
  <meta property="og:locale" content="en_GB">
  <meta property="article:published_time" content="2024-05-01T10:00:00Z">
  <meta name="author" content="Ada Lovelace">
</head><body><p>text</p></body></html>`;

describe('a status linking to a page with OpenGraph tags', () => {
  it('gets the page’s card, rendered in the status and the home timeline, its image copied with a blurhash', async () => {
    pages.server().route('GET', '/story', html(OG_PAGE));
    pages.server().route('GET', '/img/cover.jpg', { headers: { 'content-type': 'image/jpeg' }, body: jpeg });
    const id = await post(`read this ${link('/story#comments')} now`);

    const res = await show(id);
    expect(res.status).toBe(200);
    const card = res.body.card;
    expect(card).toEqual({
      url: link('/story'),
      title: 'Rivers & lakes',
      description: 'A long read about water.',
      language: 'en',
      type: 'link',
      author_name: 'Ada Lovelace',
      author_url: '',
      provider_name: 'The Water Times',
      provider_url: '',
      html: '',
      width: 400,
      height: 210,
      image: expect.stringMatching(/\/preview_cards\/images\/[0-9a-f]{2}\/[0-9a-f]{64}\/[\w-]+\.jpg$/),
      image_description: 'A blue lake',
      embed_url: '',
      blurhash: expect.stringMatching(/^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{20,}$/),
      published_at: '2024-05-01T10:00:00.000Z',
      authors: [{ name: 'Ada Lovelace', url: '', account: null }],
    });
    // The page was asked for as a web page, not signed as ActivityPub fetches are.
    const pageRequest = pages.server().received.find((r) => r.path === '/story')!;
    expect(pageRequest.headers.accept).toBe('text/html');
    expect(pageRequest.headers.signature).toBeUndefined();

    // The image is in the bucket, scaled to 400 px wide, a JPEG.
    const listed = await s3().send(new ListObjectsV2Command({ Bucket: process.env.MEDIA_BUCKET!, Prefix: 'preview_cards/' }));
    const key = new URL(card.image).pathname.split('/').slice(-5).join('/');
    expect((listed.Contents ?? []).map((o) => o.Key)).toContain(key);
    const stored = Buffer.from(await (await fetch(card.image)).arrayBuffer());
    expect(await sharp(stored).metadata()).toMatchObject({ format: 'jpeg', width: 400, height: 210 });

    const home = await call(homeTimeline, { path: '/api/v1/timelines/home', token: user.token });
    expect(home.body.find((s: { id: string }) => s.id === id).card).toEqual(card);
    expect((await statusById(id))!.cardUrl).toBe(link('/story'));
  });

  it('costs the status no extra database call to render', async () => {
    pages.server().route('GET', '/cheap', html('<title>Cheap</title>'));
    const withCard = await post(`with ${link('/cheap')}`);
    const without = await post('without a link');
    const [a, b] = [await show(withCard), await show(without)];
    expect(a.body.card).toMatchObject({ title: 'Cheap' });
    expect(b.body.card).toBeNull();
    expect(a.headers['x-db-calls']).toBe(b.headers['x-db-calls']);
  });

  it('fetches a URL once for every status that links to it', async () => {
    pages.server().route('GET', '/shared', html(OG_PAGE));
    pages.server().route('GET', '/img/cover.jpg', { headers: { 'content-type': 'image/jpeg' }, body: jpeg });
    const first = await post(`one ${link('/shared')}`);
    const second = await post(`two ${link('/shared')}`);
    expect(requestsFor('/shared')).toBe(1);
    expect(requestsFor('/img/cover.jpg')).toBe(1);
    expect(await cardOf(second)).toEqual(await cardOf(first));
    expect((await cardsByUrls([link('/shared'), link('/never')])).size).toBe(1);
  });
});

describe('what a page says about itself', () => {
  it('reads Twitter’s tags when there are no OpenGraph tags', async () => {
    pages.server().route('GET', '/tw', html(`<head><title>ignored</title>
      <meta name="twitter:title" content="Bird title"><meta name="twitter:description" content="Bird text">
      <meta name="twitter:image" content="${link('/img/t.jpg')}"></head>`));
    pages.server().route('GET', '/img/t.jpg', { headers: { 'content-type': 'image/jpeg' }, body: jpeg });
    const card = await cardOf(await post(`see ${link('/tw')}`));
    expect(card).toMatchObject({ title: 'Bird title', description: 'Bird text', type: 'link', image: expect.stringContaining('/preview_cards/') });
  });

  it('falls back to <title> and <meta name="description">', async () => {
    pages.server().route('GET', '/plain', html('<html><head><title>  Just a\n title </title><meta name="description" content="Plain."></head></html>'));
    const card = await cardOf(await post(`see ${link('/plain')}`));
    expect(card).toMatchObject({ title: 'Just a title', description: 'Plain.', image: null, blurhash: null, language: null, authors: [] });
  });

  it('takes a video embed from oEmbed discovery, keeping only its iframe', async () => {
    pages.server().route('GET', '/video', html(`<head><title>Page title</title><meta property="og:description" content="About the clip">
      <link rel="alternate" type="application/json+oembed" href="/oembed?url=video"></head>`));
    pages.server().route('GET', '/oembed', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        version: '1.0',
        type: 'video',
        title: 'A clip',
        author_name: 'Film Maker',
        author_url: '/@maker',
        provider_name: 'Tube',
        provider_url: '/',
        width: 640,
        height: 360,
        html: '<script>alert(1)</script><iframe src="https://player.example.org/embed/1" width="640" height="360" onload="x()" allowfullscreen></iframe><b>text</b>',
      }),
    });
    const card = await cardOf(await post(`watch ${link('/video')}`));
    expect(card).toMatchObject({
      type: 'video',
      title: 'A clip',
      description: 'About the clip',
      author_name: 'Film Maker',
      author_url: link('/@maker'),
      provider_name: 'Tube',
      provider_url: link('/'),
      width: 640,
      height: 360,
      html: '<iframe src="https://player.example.org/embed/1" width="640" height="360" allowfullscreen=""></iframe>',
    });
    expect(requestsFor('/oembed?url=video')).toBe(1);
  });

  it('reads the first megabyte of a huge page', async () => {
    const huge = `<head><meta property="og:title" content="Huge"></head><body>${'x'.repeat(3 * 1024 * 1024)}</body>`;
    pages.server().route('GET', '/huge', html(huge));
    expect(await cardOf(await post(`big ${link('/huge')}`))).toMatchObject({ title: 'Huge' });
  });

  it('makes no card of broken markup without a title, and the worker does not fail', async () => {
    pages.server().route('GET', '/broken', html('<<<meta <title <a href="x>>\u0000\uFFFF<script>'));
    const id = await post(`odd ${link('/broken')}`);
    expect(await cardOf(id)).toBeNull();
    expect((await cardItemByUrl(link('/broken')))!.failure).toBe('the page has no title');
    expect(await cardsWorker(sqsEvent('cards', [{ statusId: id }]))).toEqual({ batchItemFailures: [] });
  });
});

describe('pages that make no card', () => {
  it.each([
    ['not HTML', '/file.pdf', { headers: { 'content-type': 'application/pdf' }, body: '%PDF-1.4 <title>no</title>' }, /content type/],
    ['an error status', '/gone', { status: 404, headers: { 'content-type': 'text/html' }, body: '<title>Not found</title>' }, /answered 404/],
    ['a redirect to the cloud metadata address', '/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }, /link-local/],
  ])('%s: no card, the failure is remembered and not fetched again for a day', async (_name, path, reply, failure) => {
    pages.server().route('GET', path, reply);
    const first = await post(`a ${link(path)}`);
    expect(await cardOf(first)).toBeNull();
    expect((await cardItemByUrl(link(path)))!.failure).toMatch(failure);
    const second = await post(`b ${link(path)}`);
    expect(await cardOf(second)).toBeNull();
    expect(requestsFor(path)).toBe(1);
  });

  it('a page that does not answer in time (and its good twin)', async () => {
    useCardFetchTimeout(300);
    pages.server().route('GET', '/slow', { hang: true });
    pages.server().route('GET', '/quick', html('<title>Quick</title>'));
    expect(await cardOf(await post(`slow ${link('/slow')}`))).toBeNull();
    expect((await cardItemByUrl(link('/slow')))!.failure).toMatch(/no answer within/);
    expect(await cardOf(await post(`quick ${link('/quick')}`))).toMatchObject({ title: 'Quick' });
  });

  it('outside the local stage, a name that resolves to loopback is never connected to (and its good twin on the local stage)', async () => {
    pages.server().route('GET', '/inside', html('<title>Inside</title>'));
    process.env.STAGE = 'test';
    // https, as the guard demands outside the local stage: the name's address is refused inside the connection's lookup.
    const secure = link('/inside').replace('http:', 'https:');
    const refused = await post(`x ${secure}`);
    expect(await cardOf(refused)).toBeNull();
    expect(requestsFor('/inside')).toBe(0);
    expect((await cardItemByUrl(secure))!.failure).toMatch(/private, loopback/);

    process.env.STAGE = 'local';
    expect(await cardOf(await post(`y ${link('/inside', `twin-${pages.host()}`)}`))).toMatchObject({ title: 'Inside' });
    expect(requestsFor('/inside')).toBe(1);
  });
});

describe('edits', () => {
  const edit = (id: string, status: string) =>
    call(updateStatus, { method: 'PUT', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token: user.token, json: { status } });

  it('an edit to another link changes the card; an edit without a link removes it', async () => {
    pages.server().route('GET', '/before', html('<title>Before</title>'));
    pages.server().route('GET', '/after', html('<title>After</title>'));
    const id = await post(`first ${link('/before')}`);
    expect(await cardOf(id)).toMatchObject({ title: 'Before' });

    expect((await edit(id, `now ${link('/after')}`)).status).toBe(200);
    expect(await cardOf(id)).toMatchObject({ title: 'After' });

    expect((await edit(id, 'no link any more')).status).toBe(200);
    expect(await cardOf(id)).toBeNull();
    expect((await statusById(id))!.cardUrl).toBeUndefined();
  });
});

describe('which link gets a card', () => {
  const base = { mediaIds: [] as string[], pollId: null, reblogOfId: null, mentions: [] as { id: string; username: string; acct: string; url: string }[] };
  it.each([
    ['the first plain link', '<p><a href="https://a.example.org/x#top">a</a> <a href="https://b.example.org/">b</a></p>', {}, 'https://a.example.org/x'],
    ['not a hashtag', '<a href="https://a.example.org/tags/x" class="mention hashtag" rel="tag">#x</a>', {}, undefined],
    ['not a mention by its markup', '<span class="h-card"><a href="https://a.example.org/@bob" class="u-url mention">@bob</a></span>', {}, undefined],
    ['not a mentioned account’s URL', '<a href="https://a.example.org/@bob">bob</a>', { mentions: [{ id: '1', username: 'bob', acct: 'bob@a.example.org', url: 'https://a.example.org/@bob' }] }, undefined],
    ['not a page of this server', '<a href="https://social.example/@me/1">mine</a>', {}, undefined],
    ['not another scheme', '<a href="ftp://a.example.org/f">f</a> <a href="javascript:alert(1)">j</a>', {}, undefined],
    ['none with attachments', '<a href="https://a.example.org/">a</a>', { mediaIds: ['1'] }, undefined],
    ['none with a poll', '<a href="https://a.example.org/">a</a>', { pollId: '1' }, undefined],
    ['none for a reblog', '<a href="https://a.example.org/">a</a>', { reblogOfId: '1' }, undefined],
  ])('%s', (_name, contentHtml, overrides, expected) => {
    expect(cardLinkOf({ ...base, ...overrides, contentHtml })).toBe(expected);
  });

  it('a status with an attachment gets no card, and its twin without one does', async () => {
    pages.server().route('GET', '/p', html('<title>P</title>'));
    const withMedia = await aPostedStatus(user.account, { contentHtml: `<p><a href="${link('/p')}">p</a></p>`, mediaIds: ['1'] });
    expect(await cardsWorker(sqsEvent('cards', [{ statusId: withMedia.id }]))).toEqual({ batchItemFailures: [] });
    expect(requestsFor('/p')).toBe(0);
    const plain = await aPostedStatus(user.account, { contentHtml: `<p><a href="${link('/p')}">p</a></p>` });
    await cardsWorker(sqsEvent('cards', [{ statusId: plain.id }]));
    expect((await statusById(plain.id))!.cardUrl).toBe(link('/p'));
  });
});

describe('the cards queue’s messages', () => {
  it.each([
    ['no status id', {}],
    ['a status id that is not an id', { statusId: 'abc' }],
    ['a status id of the wrong type', { statusId: 12 }],
    ['an oversize status id', { statusId: '9'.repeat(500) }],
  ])('drops a malformed message (%s) without failing the batch', async (_name, body) => {
    expect(await cardsWorker(sqsEvent('cards', [body]))).toEqual({ batchItemFailures: [] });
  });

  it('answers a status that is gone, and its twin that exists', async () => {
    pages.server().route('GET', '/q', html('<title>Q</title>'));
    expect(await cardsWorker(sqsEvent('cards', [{ statusId: '123456789' }]))).toEqual({ batchItemFailures: [] });
    const status = await aPostedStatus(user.account, { contentHtml: `<p><a href="${link('/q')}">q</a></p>` });
    expect(await cardsWorker(sqsEvent('cards', [{ statusId: status.id }]))).toEqual({ batchItemFailures: [] });
    expect((await statusById(status.id))!.cardUrl).toBe(link('/q'));
  });
});

describe('sanitising embed HTML', () => {
  it.each([
    ['keeps an https iframe', '<iframe src="https://v.example.org/e" width="1" height="2"></iframe>', '<iframe src="https://v.example.org/e" width="1" height="2"></iframe>'],
    ['drops scripts and other elements', '<script>x</script><div onclick="y">z</div>', ''],
    ['drops iframes of other schemes', '<iframe src="javascript:alert(1)"></iframe><iframe src="data:text/html,x"></iframe>', ''],
    ['escapes what it keeps', '<iframe src="https://v.example.org/e?a=1&amp;b=&quot;2" width="&quot;><script>"></iframe>', '<iframe src="https://v.example.org/e?a=1&amp;b=%222" width="&quot;&gt;&lt;script&gt;"></iframe>'],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeEmbedHtml(input)).toBe(expected);
  });
});
