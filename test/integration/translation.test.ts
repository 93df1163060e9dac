// Status translation (issue 29): POST /api/v1/statuses/:id/translate, GET /api/v1/instance/translation_languages
// and the v2 instance's `configuration.translation.enabled`, through their handlers against the emulators, with
// a stand-in LibreTranslate and a stand-in DeepL on loopback (node:http here) that speak each API as documented
// and translate word by word, leaving alone what is marked `translate="no"`, as both services do.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Parser } from 'htmlparser2';
import { handler as showV2 } from '../../functions/instance/show_v2';
import { handler as translationLanguages } from '../../functions/instance/translation_languages';
import { handler as translate } from '../../functions/statuses/translate';
import { updateAccount } from '../../lib/db/accounts';
import { putEmoji } from '../../lib/db/emojis';
import { pollRecord } from '../../lib/db/polls';
import { putItem } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { forgetAllMemos } from '../../lib/memo';
import { useDeepLEndpoint } from '../../lib/translation/deepl';
import { useTranslationTimeout } from '../../lib/translation/request';
import { aFollow, aMediaAttachment, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

// ---- the stand-in services ----

const WORDS: Record<string, Record<string, string>> = {
  de: { hello: 'hallo', world: 'Welt', cats: 'Katzen', dogs: 'Hunde', yes: 'ja', no: 'nein', careful: 'Vorsicht', blobcat: 'Blobkatze', alice: 'Alicia', fun: 'Spass' },
  fr: { hello: 'bonjour', world: 'monde', yes: 'oui', no: 'non', cats: 'chats' },
  en: { hallo: 'hello', welt: 'world' },
};

/** Word-by-word "translation" of HTML: text outside `translate="no"` elements, markup kept as it came. */
function machineTranslate(html: string, target: string): string {
  const dictionary = WORDS[target.split('-')[0]!.toLowerCase()] ?? {};
  const out: string[] = [];
  const kept: boolean[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        kept.push(attribs.translate === 'no' || kept.at(-1) === true);
        out.push(`<${name}${Object.entries(attribs).map(([k, v]) => ` ${k}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join('')}>`);
      },
      ontext(text) {
        const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
        out.push(kept.at(-1) ? escaped : escaped.replace(/[A-Za-z]+/g, (w) => dictionary[w.toLowerCase()] ?? w));
      },
      onclosetag(name) {
        kept.pop();
        if (name !== 'br') out.push(`</${name}>`);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.join('');
}

type Seen = { method: string; path: string; headers: http.IncomingHttpHeaders; body: string };
/** What a stand-in does with its next translate requests. */
type Mode = 'ok' | 'garbage' | 'too-few' | 'rate-limited' | 'quota' | 'error' | 'hang';

type StandIn = { origin: string; seen: Seen[]; translations: () => Seen[]; mode: Mode; close: () => Promise<void> };

async function standIn(serve: (req: Seen, self: StandIn) => { status: number; body: string } | undefined): Promise<StandIn> {
  const sockets = new Set<import('node:net').Socket>();
  const self: StandIn = { origin: '', seen: [], translations: () => self.seen.filter((s) => s.method === 'POST'), mode: 'ok', close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      self.seen.push(seen);
      const answer = serve(seen, self);
      if (!answer) return; // hangs
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  self.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return self;
}

/** A failure mode's answer, the same for both services but for the quota status. */
function failure(mode: Mode, quotaStatus: number): { status: number; body: string } | undefined | 'ok' {
  switch (mode) {
    case 'ok': return 'ok';
    case 'hang': return undefined;
    case 'garbage': return { status: 200, body: '<html>Bad gateway</html>' };
    case 'rate-limited': return { status: 429, body: '{"error":"Slowdown"}' };
    case 'quota': return { status: quotaStatus, body: '{"error":"quota"}' };
    case 'error': return { status: 500, body: '{"error":"boom"}' };
    case 'too-few': return 'ok';
  }
}

/** LibreTranslate (https://docs.libretranslate.com/): GET /languages, POST /translate with JSON. */
const libreTranslate = () =>
  standIn((req, self) => {
    if (req.method === 'GET' && req.path === '/languages') {
      return {
        status: 200,
        body: JSON.stringify([
          { code: 'en', name: 'English', targets: ['de', 'en', 'fr'] },
          { code: 'de', name: 'German', targets: ['de', 'en'] },
          { code: 'fr', name: 'French', targets: ['en', 'fr'] },
        ]),
      };
    }
    if (req.method === 'POST' && req.path === '/translate') {
      const how = failure(self.mode, 403);
      if (how !== 'ok') return how;
      const body = JSON.parse(req.body) as { q: string[]; source: string; target: string; format: string };
      const texts = self.mode === 'too-few' ? body.q.slice(1) : body.q;
      return {
        status: 200,
        body: JSON.stringify({
          translatedText: texts.map((q) => machineTranslate(q, body.target)),
          ...(body.source === 'auto' ? { detectedLanguage: texts.map(() => ({ confidence: 90, language: 'en' })) } : {}),
        }),
      };
    }
    return { status: 404, body: '{"error":"Not Found"}' };
  });

const DEEPL_KEY = 'deepl-test-key:fx';

/** DeepL (https://developers.deepl.com/docs): GET /v2/languages?type=, POST /v2/translate with a form; the key in Authorization. */
const deepL = () =>
  standIn((req, self) => {
    if (req.headers.authorization !== `DeepL-Auth-Key ${DEEPL_KEY}`) return { status: 403, body: '{"message":"Wrong key"}' };
    if (req.method === 'GET' && req.path === '/v2/languages?type=source') {
      return { status: 200, body: JSON.stringify([{ language: 'DE', name: 'German' }, { language: 'EN', name: 'English' }]) };
    }
    if (req.method === 'GET' && req.path === '/v2/languages?type=target') {
      return {
        status: 200,
        body: JSON.stringify([
          { language: 'DE', name: 'German', supports_formality: true },
          { language: 'EN-GB', name: 'English (British)', supports_formality: false },
          { language: 'EN-US', name: 'English (American)', supports_formality: false },
          { language: 'PT-BR', name: 'Portuguese (Brazilian)', supports_formality: true },
        ]),
      };
    }
    if (req.method === 'POST' && req.path === '/v2/translate') {
      const how = failure(self.mode, 456);
      if (how !== 'ok') return how;
      const form = new URLSearchParams(req.body);
      const target = form.get('target_lang') ?? '';
      return {
        status: 200,
        body: JSON.stringify({ translations: form.getAll('text').map((text) => ({ detected_source_language: form.get('source_lang') ?? 'EN', text: machineTranslate(text, target) })) }),
      };
    }
    return { status: 404, body: '{"message":"Not found"}' };
  });

// ---- the endpoints ----

const translateCall = (id: string, token: string | undefined, body?: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(translate, { method: 'POST', path: `/api/v1/statuses/${id}/translate`, pathParameters: { id }, token, headers, ...(body ? { json: body } : {}) });
const languagesCall = () => call(translationLanguages, { path: '/api/v1/instance/translation_languages' });
const instanceV2 = () => call(showV2, { path: '/api/v2/instance' });

// ---- settings ----

const SETTINGS = ['LIBRE_TRANSLATE_ENDPOINT', 'LIBRE_TRANSLATE_API_KEY', 'DEEPL_API_KEY', 'DEEPL_PLAN', 'FEDERATION_ALLOW_PRIVATE'];
let services: StandIn[] = [];

/** The stand-ins are on loopback: the local stage with its allowance for private addresses, as for federation. */
function onLocalStage() {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
}

async function useLibreTranslate(apiKey?: string): Promise<StandIn> {
  const service = await libreTranslate();
  services.push(service);
  onLocalStage();
  process.env.LIBRE_TRANSLATE_ENDPOINT = `${service.origin}/`;
  if (apiKey) process.env.LIBRE_TRANSLATE_API_KEY = apiKey;
  return service;
}

async function useDeepL(): Promise<StandIn> {
  const service = await deepL();
  services.push(service);
  onLocalStage();
  process.env.DEEPL_API_KEY = DEEPL_KEY;
  useDeepLEndpoint(service.origin);
  return service;
}

beforeEach(() => forgetAllMemos());
afterEach(async () => {
  for (const name of SETTINGS) delete process.env[name];
  process.env.STAGE = 'test';
  useDeepLEndpoint(undefined);
  useTranslationTimeout(undefined);
  await Promise.all(services.map((s) => s.close()));
  services = [];
});

// ---- fixtures ----

/** A public English status with a mention, a hashtag and a custom emoji in its content, a content warning, a poll and two attachments. */
async function aRichStatus(author: UserFixture, mentioned: UserFixture) {
  const shortcode = `blobcat`;
  await putEmoji({ shortcode, key: `custom_emojis/t/${shortcode}.png`, staticKey: `custom_emojis/t/${shortcode}-s.png`, category: null, visibleInPicker: true, createdAt: new Date().toISOString() });
  const described = await aMediaAttachment(author.account, { description: 'cats & dogs' });
  const bare = await aMediaAttachment(author.account);
  const id = newId();
  const pollId = newId();
  const who = mentioned.account.username;
  const status = await aStoredStatus(author.account, {
    id,
    conversationId: id,
    language: 'en',
    text: `Hello world @${who} #fun :blobcat:`,
    contentHtml:
      `<p>Hello world <span class="h-card"><a href="https://social.example/@${who}" class="u-url mention">@<span>${who}</span></a></span> ` +
      `<a href="https://social.example/tags/fun" class="mention hashtag" rel="tag">#<span>fun</span></a> :blobcat:</p>`,
    spoilerText: 'Careful: cats :blobcat:',
    pollId,
    mediaIds: [described.id, bare.id],
  });
  await putItem(
    pollRecord({
      id: pollId,
      statusId: id,
      accountId: author.account.id,
      options: [{ title: 'yes', votesCount: 0 }, { title: 'no', votesCount: 0 }],
      multiple: false,
      hideTotals: false,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      votesCount: 0,
      votersCount: 0,
      createdAt: new Date().toISOString(),
    }),
  );
  return { status, described, bare, pollId };
}

const englishStatus = (author: UserFixture, overrides: Parameters<typeof aStoredStatus>[1] = {}) =>
  aStoredStatus(author.account, { language: 'en', text: 'Hello world', contentHtml: '<p>Hello world</p>', ...overrides });

// ---- the tests ----

describe('translation not configured', () => {
  it('refuses to translate (403, as Mastodon when no service is configured), lists no languages, and the instance says so', async () => {
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const status = await englishStatus(author);
    const res = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is not allowed' });

    const languages = await languagesCall();
    expect(languages.status).toBe(200);
    expect(languages.body).toEqual({});

    expect((await instanceV2()).body.configuration.translation).toEqual({ enabled: false });
  });

  it('still answers 404 first for a status the caller may not see, and asks for a token', async () => {
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const hidden = await englishStatus(author, { visibility: 'private' });
    expect((await translateCall(hidden.id, viewer.token)).status).toBe(404);
    expect((await translateCall('123', viewer.token)).status).toBe(404);
    const open = await englishStatus(author);
    expect((await translateCall(open.id, undefined)).status).toBe(401);
  });
});

describe('LibreTranslate', () => {
  it('translates the content, content warning, poll options and media descriptions in one request, names and emoji kept', async () => {
    const service = await useLibreTranslate('libre-key');
    const [author, viewer, mentioned] = await Promise.all([aUser(), aUser(), aUser({ username: `alice${Date.now() % 100000}` })]);
    const { status, described, bare, pollId } = await aRichStatus(author, mentioned);
    const who = mentioned.account.username;

    const res = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      detected_source_language: 'en',
      language: 'de',
      provider: 'LibreTranslate',
      spoiler_text: 'Vorsicht: Katzen :blobcat:',
      content: expect.any(String),
      poll: { id: pollId, options: [{ title: 'ja' }, { title: 'nein' }] },
      media_attachments: [
        { id: described.id, description: 'Katzen & Hunde' },
        { id: bare.id, description: '' },
      ],
    });
    const content: string = res.body.content;
    expect(content).toMatch(/^<p>hallo Welt /);
    // The mention, the hashtag and the emoji's shortcode as they were; the marks gone again.
    expect(content).toContain(`@<span>${who}</span></a></span>`);
    expect(content).toContain('#<span>fun</span></a>');
    expect(content).toContain(' :blobcat:</p>');
    expect(content).not.toContain('translate');
    expect(content).not.toMatch(/Blobkatze|Spass|Alicia/);

    // One request, as LibreTranslate takes it: every text in `q`, HTML, from the status's language, the key in the body.
    expect(service.translations()).toHaveLength(1);
    const sent = JSON.parse(service.translations()[0]!.body);
    expect(sent).toMatchObject({ source: 'en', target: 'de', format: 'html', api_key: 'libre-key' });
    expect(sent.q).toHaveLength(5);
    expect(sent.q[1]).toBe('Careful: cats <span translate="no">:blobcat:</span>');
    expect(sent.q.slice(2)).toEqual(['yes', 'no', 'cats &amp; dogs']);
    expect(sent.q[0]).toContain('class="u-url mention" translate="no"');
    expect(sent.q[0]).toContain('class="mention hashtag" rel="tag" translate="no"');

    expect((await instanceV2()).body.configuration.translation).toEqual({ enabled: true });
  });

  it('keeps a translation: asked again (by anyone) no request is made; another language is another request', async () => {
    const service = await useLibreTranslate();
    const [author, viewer, other] = await Promise.all([aUser(), aUser(), aUser()]);
    const status = await englishStatus(author);

    const first = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect(first.status).toBe(200);
    expect(first.body.content).toBe('<p>hallo Welt</p>');
    expect(service.translations()).toHaveLength(1);

    // The service is broken now: a kept translation does not need it.
    service.mode = 'error';
    const again = await translateCall(status.id, other.token, { lang: 'de' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(service.translations()).toHaveLength(1);

    service.mode = 'ok';
    const french = await translateCall(status.id, viewer.token, { lang: 'fr' });
    expect(french.body.content).toBe('<p>bonjour monde</p>');
    expect(service.translations()).toHaveLength(2);
  });

  it('translates into the caller locale without `lang`, else the Accept-Language, a regional tag into its language', async () => {
    const service = await useLibreTranslate();
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const status = await englishStatus(author);

    const byHeader = await translateCall(status.id, viewer.token, undefined, { 'accept-language': 'fr-CH, de;q=0.8' });
    expect(byHeader.body).toMatchObject({ language: 'fr', content: '<p>bonjour monde</p>' });

    await updateAccount(viewer.account.id, { locale: 'de' });
    const byLocale = await translateCall(status.id, viewer.token, undefined, { 'accept-language': 'fr' });
    expect(byLocale.body).toMatchObject({ language: 'de', content: '<p>hallo Welt</p>' });

    // A `lang` that is no language is passed over, as Mastodon passes over a locale it does not have.
    const nonsense = await translateCall(status.id, viewer.token, { lang: 'not a language!' });
    expect(nonsense.body).toMatchObject({ language: 'de' });
    expect(service.translations()).toHaveLength(2);
  });

  it('lets the service detect the language of a status that has none', async () => {
    const service = await useLibreTranslate();
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const status = await englishStatus(author, { language: null });
    const res = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ detected_source_language: 'en', language: 'de', content: '<p>hallo Welt</p>' });
    expect(JSON.parse(service.translations()[0]!.body)).toMatchObject({ source: 'auto' });
  });

  it('refuses what Mastodon refuses: 404 where the caller may not see the status, 403 for a private or direct one it may', async () => {
    const service = await useLibreTranslate();
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const privateOne = await englishStatus(author, { visibility: 'private' });
    const mention = { id: viewer.account.id, username: viewer.account.username, acct: viewer.account.username, url: `https://social.example/@${viewer.account.username}` };
    const directToOther = await englishStatus(author, { visibility: 'direct' });
    const directToViewer = await englishStatus(author, { visibility: 'direct', mentions: [mention] });

    expect((await translateCall(privateOne.id, viewer.token, { lang: 'de' })).status).toBe(404);
    expect((await translateCall(directToOther.id, viewer.token, { lang: 'de' })).status).toBe(404);

    await aFollow(viewer.account, author.account);
    for (const seen of [privateOne, directToViewer]) {
      const res = await translateCall(seen.id, viewer.token, { lang: 'de' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'This action is not allowed' });
    }
    // The author may see them too, and may not have them translated either.
    expect((await translateCall(privateOne.id, author.token, { lang: 'de' })).status).toBe(403);
    const unlisted = await englishStatus(author, { visibility: 'unlisted' });
    expect((await translateCall(unlisted.id, viewer.token, { lang: 'de' })).status).toBe(200);
    expect(service.translations()).toHaveLength(1);
  });

  it('refuses (403) a target that is the status language, or one the service does not translate it into', async () => {
    const service = await useLibreTranslate();
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const german = await englishStatus(author, { language: 'de', text: 'Hallo Welt', contentHtml: '<p>Hallo Welt</p>' });
    expect((await translateCall(german.id, viewer.token, { lang: 'de' })).status).toBe(403);
    // German translates into English only.
    expect((await translateCall(german.id, viewer.token, { lang: 'fr' })).status).toBe(403);
    const english = await translateCall(german.id, viewer.token, { lang: 'en' });
    expect(english.status).toBe(200);
    expect(english.body.content).toBe('<p>hello world</p>');
    expect(service.translations()).toHaveLength(1);
  });

  it('answers the errors Mastodon answers when the service fails: 503, never a crash', async () => {
    const service = await useLibreTranslate();
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const cases: [Mode, string][] = [
      ['garbage', 'Service Unavailable'],
      ['too-few', 'Service Unavailable'],
      ['error', 'Service Unavailable'],
      ['rate-limited', 'There have been too many requests to the translation service recently.'],
      ['quota', 'The server-wide usage quota for the translation service has been exceeded.'],
    ];
    for (const [mode, error] of cases) {
      service.mode = mode;
      // A new status each time: nothing kept from the case before.
      const status = await englishStatus(author, { text: `Hello ${mode}`, contentHtml: `<p>Hello ${mode}</p>` });
      const res = await translateCall(status.id, viewer.token, { lang: 'de' });
      expect([mode, res.status, res.body]).toEqual([mode, 503, { error }]);
    }
    // A failure is not kept: the service answering again, the status translates.
    service.mode = 'ok';
    const status = await englishStatus(author);
    expect((await translateCall(status.id, viewer.token, { lang: 'de' })).status).toBe(200);
  });

  it('answers 503 when the service does not answer in time, or is not there at all', async () => {
    const service = await useLibreTranslate();
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const status = await englishStatus(author);
    useTranslationTimeout(300);
    service.mode = 'hang';
    const slow = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect([slow.status, slow.body]).toEqual([503, { error: 'Remote data could not be fetched' }]);

    await service.close();
    forgetAllMemos();
    const gone = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect([gone.status, gone.body]).toEqual([503, { error: 'Remote data could not be fetched' }]);
    const languages = await languagesCall();
    expect([languages.status, languages.body]).toEqual([503, { error: 'Remote data could not be fetched' }]);
  });

  it('sends nothing to a loopback endpoint outside the local stage: the outbound guard refuses it', async () => {
    const service = await useLibreTranslate();
    process.env.STAGE = 'test';
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const status = await englishStatus(author);
    const res = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect([res.status, res.body]).toEqual([503, { error: 'Remote data could not be fetched' }]);
    expect(service.seen).toEqual([]);
  });

  it('lists the language pairs of /languages, `und` for a text the service detects, read once per container', async () => {
    const service = await useLibreTranslate();
    const res = await languagesCall();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ en: ['de', 'fr'], de: ['en'], fr: ['en'], und: ['de', 'en', 'fr'] });
    expect((await languagesCall()).body).toEqual(res.body);
    expect(service.seen.filter((s) => s.path === '/languages')).toHaveLength(1);
  });
});

describe('DeepL', () => {
  it('translates through /v2/translate: a form of texts, HTML tag handling, the key in Authorization', async () => {
    const service = await useDeepL();
    const [author, viewer, mentioned] = await Promise.all([aUser(), aUser(), aUser()]);
    const { status, described, bare, pollId } = await aRichStatus(author, mentioned);

    const res = await translateCall(status.id, viewer.token, { lang: 'de' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      detected_source_language: 'en',
      language: 'de',
      provider: 'DeepL.com',
      spoiler_text: 'Vorsicht: Katzen :blobcat:',
      poll: { id: pollId, options: [{ title: 'ja' }, { title: 'nein' }] },
      media_attachments: [
        { id: described.id, description: 'Katzen & Hunde' },
        { id: bare.id, description: '' },
      ],
    });
    expect(res.body.content).toMatch(/^<p>hallo Welt .* :blobcat:<\/p>$/);

    const [sent] = service.translations();
    const form = new URLSearchParams(sent!.body);
    expect(form.getAll('text')).toHaveLength(5);
    expect(form.get('source_lang')).toBe('EN');
    expect(form.get('target_lang')).toBe('de');
    expect(form.get('tag_handling')).toBe('html');
  });

  it('translates into a regional target DeepL lists (pt-BR), and says a spent quota (456) as Mastodon', async () => {
    const service = await useDeepL();
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const status = await englishStatus(author);
    const brazilian = await translateCall(status.id, viewer.token, { lang: 'pt-br' });
    expect(brazilian.status).toBe(200);
    expect(brazilian.body.language).toBe('pt-BR');
    expect(new URLSearchParams(service.translations()[0]!.body).get('target_lang')).toBe('pt-BR');

    service.mode = 'quota';
    const other = await englishStatus(author, { text: 'Hello cats', contentHtml: '<p>Hello cats</p>' });
    const res = await translateCall(other.id, viewer.token, { lang: 'de' });
    expect([res.status, res.body]).toEqual([503, { error: 'The server-wide usage quota for the translation service has been exceeded.' }]);
  });

  it('lists the pairs of /v2/languages: sources to every target but themselves, EN and PT added as Mastodon adds them', async () => {
    await useDeepL();
    const res = await languagesCall();
    expect(res.status).toBe(200);
    const targets = ['en', 'pt', 'de', 'en-GB', 'en-US', 'pt-BR'];
    expect(res.body).toEqual({ de: targets.filter((t) => t !== 'de'), en: targets.filter((t) => t !== 'en'), und: targets });
  });
});
