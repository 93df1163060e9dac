// The operator's documents (Mastodon 4.4's terms of service, and the privacy policy): the versions of the terms by
// effective date, which one is current, what replaces it, 404s for none and for unknown dates; the CLI that
// publishes them (Markdown or HTML, rendered and sanitised once); the default privacy policy and the operator's;
// the web pages the instance entity links to.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { handler as aboutPage } from '../../functions/instance/about_page';
import { handler as privacyPolicy } from '../../functions/instance/privacy_policy';
import { handler as privacyPolicyPage } from '../../functions/instance/privacy_policy_page';
import { handler as termsCurrent } from '../../functions/instance/terms_of_service';
import { handler as termsByDate } from '../../functions/instance/terms_of_service_date';
import { handler as termsPage } from '../../functions/instance/terms_page';
import { handler as termsPageDate } from '../../functions/instance/terms_page_date';
import { main } from '../../lib/admin/cli';
import { allTermsVersions, deletePrivacyPolicy, deleteTermsVersion, putTermsVersion } from '../../lib/db/instance_documents';
import { instanceSettings } from '../../lib/db/instance';
import { DEFAULT_PRIVACY_POLICY_DATE } from '../../lib/instance/legal';
import { call } from '../support/http';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema; $ref?: string };
const openapi: { components: { schemas: Record<string, Schema> } } = JSON.parse(
  readFileSync(new URL('../fixtures/mastodon-openapi/schemas.json', import.meta.url), 'utf8'),
);

/** Mastodon's own entity schema, checked: required fields present, JSON types as declared, null only where allowed. */
function violations(value: unknown, schema: Schema, path = '$'): string[] {
  if (schema.$ref) return violations(value, openapi.components.schemas[schema.$ref.split('/').pop() ?? ''] ?? {}, path);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (value === null) return types.includes('null') ? [] : [`${path}: null`];
  const jsonType = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length > 0 && !types.includes(jsonType) && !(jsonType === 'integer' && types.includes('number'))) return [`${path}: ${jsonType}`];
  const out: string[] = [];
  if (jsonType === 'object' && value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) out.push(`${path}.${key}: missing`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) if (key in record) out.push(...violations(record[key], sub, `${path}.${key}`));
  }
  return out;
}
const schemaOf = (name: string) => openapi.components.schemas[name]!;

const current = () => call(termsCurrent, { path: '/api/v1/instance/terms_of_service' });
const byDate = (date: string) =>
  call(termsByDate, { path: `/api/v1/instance/terms_of_service/${encodeURIComponent(date)}`, pathParameters: { date } });
const policy = () => call(privacyPolicy, { path: '/api/v1/instance/privacy_policy' });

const cli = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => void (/^Stage \S+, table /.test(t) || err.push(t)) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const TODAY = () => dayOffset(0);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'terms-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** A version as if published long ago: the CLI refuses dates in the past, as Mastodon does. */
const seed = (effectiveDate: string, html = `<p>Terms of ${effectiveDate}</p>`) =>
  putTermsVersion({ effectiveDate, source: html, format: 'html', contentHtml: html });

beforeEach(async () => {
  for (const v of await allTermsVersions()) await deleteTermsVersion(v.effectiveDate);
  await deletePrivacyPolicy();
});

describe('GET /api/v1/instance/terms_of_service', () => {
  it('answers 404 while no terms are published, the current one and any date alike', async () => {
    const res = await current();
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
    expect((await byDate('2025-04-15')).status).toBe(404);
    expect((await call(termsPage, { path: '/terms-of-service' })).status).toBe(404);
  });

  it('answers the latest terms in effect, with the date of the next version to come', async () => {
    const upcoming = dayOffset(30);
    await seed('2020-01-01');
    await seed('2021-06-01');
    await seed(upcoming);
    const res = await current();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=180');
    expect(res.body).toEqual({ effective_date: '2021-06-01', effective: true, content: '<p>Terms of 2021-06-01</p>', succeeded_by: upcoming });
    expect(violations(res.body, schemaOf('TermsOfService'))).toEqual([]);
  });

  it('answers, before any is in effect, the first version to come, not yet effective', async () => {
    const soon = dayOffset(5);
    const later = dayOffset(40);
    await seed(later);
    await seed(soon);
    expect((await current()).body).toMatchObject({ effective_date: soon, effective: false, succeeded_by: later });
  });

  it('takes terms dated today as in effect', async () => {
    await seed('2019-03-01');
    await seed(TODAY());
    expect((await current()).body).toMatchObject({ effective_date: TODAY(), effective: true, succeeded_by: null });
  });
});

describe('GET /api/v1/instance/terms_of_service/:date', () => {
  it('answers each version by its effective date, each succeeded by the next', async () => {
    const upcoming = dayOffset(10);
    await seed('2020-01-01');
    await seed('2021-06-01');
    await seed(upcoming);
    expect((await byDate('2020-01-01')).body).toEqual({ effective_date: '2020-01-01', effective: true, content: '<p>Terms of 2020-01-01</p>', succeeded_by: '2021-06-01' });
    expect((await byDate('2021-06-01')).body).toMatchObject({ effective: true, succeeded_by: upcoming });
    const future = await byDate(upcoming);
    expect(future.status).toBe(200);
    expect(future.body).toMatchObject({ effective_date: upcoming, effective: false, succeeded_by: null });
    expect(violations(future.body, schemaOf('TermsOfService'))).toEqual([]);
  });

  it.each(['2020-01-02', '2020-1-1', '20200101', '2020-02-30', 'latest', '2020-01-01T00:00:00Z'])('answers 404 for %s', async (date) => {
    await seed('2020-01-01');
    const res = await byDate(date);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });
});

describe('the operator publishing terms (npm run admin -- terms)', () => {
  it('publishes Markdown in effect today, rendered as Mastodon renders it: HTML written in it escaped, no images', async () => {
    const source = file(
      'terms.md',
      '# Terms of %{domain}\n\nBe **kind**. <script>alert(1)</script>\n\n![tracker](https://tracker.example/p.png)\n\n[Our rules](https://%{domain}/about) and [a trap](javascript:alert(1)).\n',
    );
    const res = await cli('terms', 'publish', source);
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(res.out).toContain('in effect from today');
    const body = (await current()).body as { content: string; effective_date: string; effective: boolean };
    expect(body.effective_date).toBe(TODAY());
    expect(body.effective).toBe(true);
    expect(body.content).toContain('<h1>Terms of social.example</h1>');
    expect(body.content).toContain('<strong>kind</strong>');
    // The script is text on the page, never an element.
    expect(body.content).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body.content).not.toMatch(/<script|<img|href="javascript:/i);
    // A link Markdown refuses to make stays text; an image is at most a link, never loaded by the page.
    expect(body.content).toContain('[a trap](javascript:alert(1))');
    expect(body.content).toContain('<a href="https://social.example/about" rel="nofollow noopener noreferrer">Our rules</a>');
    expect(body.content).not.toContain('%{domain}');
  });

  it('publishes HTML (by --html or by the file name) with everything hostile taken out', async () => {
    const hostile = file(
      'terms.html',
      '<h2 onclick="steal()">Rules</h2><p style="position:fixed">Stay <em>nice</em>.</p><script>document.cookie</script>' +
        '<img src="x" onerror="steal()"><iframe src="https://evil.example"></iframe><a href="javascript:steal()">click</a>' +
        '<a href="https://ok.example/">fine</a><form action="https://evil.example"><input name="password"></form>',
    );
    expect((await cli('terms', 'publish', hostile, '--effective-date', dayOffset(3))).code).toBe(0);
    const content = ((await byDate(dayOffset(3))).body as { content: string }).content;
    expect(content).toContain('<h2>Rules</h2>');
    expect(content).toContain('<p>Stay <em>nice</em>.</p>');
    expect(content).toContain('<a href="https://ok.example/" rel="nofollow noopener noreferrer">fine</a>');
    expect(content).not.toMatch(/<script|document\.cookie|<img|onerror|onclick|style=|<iframe|<form|<input|javascript:/i);

    const named = file('notes.txt', '<p>Plain <b>HTML</b></p>');
    expect((await cli('terms', 'publish', named, '--html', '--effective-date', dayOffset(4))).code).toBe(0);
    expect(((await byDate(dayOffset(4))).body as { content: string }).content).toBe('<p>Plain <b>HTML</b></p>');
  });

  it('lists the versions and keeps the instance’s list of dates, which says which one is current', async () => {
    await seed('2020-01-01');
    expect((await cli('terms', 'publish', file('a.md', 'Next terms'), '--effective-date', dayOffset(20))).code).toBe(0);
    const listed = await cli('terms', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out.split('\n')).toEqual([
      expect.stringMatching(/^2020-01-01 {2}current {2}html {2}published /),
      expect.stringMatching(new RegExp(`^${dayOffset(20)} {2}upcoming {2}markdown {2}published `)),
    ]);
    expect((await instanceSettings()).termsDates).toEqual(['2020-01-01', dayOffset(20)]);
    expect((await current()).body).toMatchObject({ effective_date: '2020-01-01', succeeded_by: dayOffset(20) });
  });

  it('refuses a date before the terms in effect, a taken date, a malformed one, an empty document and a missing file', async () => {
    await seed('2020-01-01');
    const doc = file('t.md', 'Terms');
    const past = await cli('terms', 'publish', doc, '--effective-date', '2019-12-31');
    expect(past.code).toBe(1);
    expect(past.err).toContain("can't be before 2020-01-01");
    expect((await cli('terms', 'publish', doc, '--effective-date', '2020-01-01')).err).toContain('already takes effect on 2020-01-01');
    expect((await cli('terms', 'publish', doc, '--effective-date', '1/5/2030')).err).toContain('YYYY-MM-DD');
    expect((await cli('terms', 'publish', file('empty.html', '<script>only this</script>'))).err).toContain('no text to publish');
    expect((await cli('terms', 'publish', join(dir, 'missing.md'))).err).toContain('Cannot read');
    expect((await cli('terms', 'list', '--html')).err).toContain('--html does not belong');
    expect((await allTermsVersions()).map((v) => v.effectiveDate)).toEqual(['2020-01-01']);
  });

  it('refuses a first version dated before today (Mastodon: not in the past)', async () => {
    const res = await cli('terms', 'publish', file('t.md', 'Terms'), '--effective-date', dayOffset(-1));
    expect(res.code).toBe(1);
    expect(res.err).toContain(`can't be before ${TODAY()}`);
    expect((await current()).status).toBe(404);
  });

  it('withdraws a version not yet in effect, never one in effect', async () => {
    await seed('2020-01-01');
    await seed(dayOffset(9));
    expect((await cli('terms', 'remove', '2020-01-01')).err).toContain('in effect already');
    const removed = await cli('terms', 'remove', dayOffset(9));
    expect(removed.code).toBe(0);
    expect((await byDate(dayOffset(9))).status).toBe(404);
    expect((await current()).body).toMatchObject({ effective_date: '2020-01-01', succeeded_by: null });
    expect((await cli('terms', 'remove', dayOffset(9))).err).toContain('No terms of service take effect');
  });
});

describe('GET /api/v1/instance/privacy_policy', () => {
  it('serves this server’s default policy, naming the domain, until the operator sets one', async () => {
    const res = await policy();
    expect(res.status).toBe(200);
    expect(violations(res.body, schemaOf('PrivacyPolicy'))).toEqual([]);
    const body = res.body as { updated_at: string; content: string };
    expect(body.updated_at).toBe(DEFAULT_PRIVACY_POLICY_DATE);
    expect(body.content).toContain('social.example');
    expect(body.content).toContain('e-mail address');
    expect(body.content).not.toContain('%{domain}');
  });

  it('serves the operator’s policy, sanitised, with when it was set; reset serves the default again', async () => {
    const before = Date.now();
    const set = await cli('privacy-policy', 'set', file('policy.md', '## Our policy\n\nWe keep little on %{domain}. <img src=x onerror=alert(1)>\n'));
    expect(set.code).toBe(0);
    const body = (await policy()).body as { updated_at: string; content: string };
    expect(Date.parse(body.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(body.content).toContain('<h2>Our policy</h2>');
    expect(body.content).toContain('We keep little on social.example.');
    expect(body.content).not.toMatch(/<img/);
    expect((await cli('privacy-policy', 'show')).out).toContain('## Our policy');

    expect((await cli('privacy-policy', 'reset')).out).toContain('default privacy policy is served again');
    expect(((await policy()).body as { updated_at: string }).updated_at).toBe(DEFAULT_PRIVACY_POLICY_DATE);
    expect((await cli('privacy-policy', 'show')).out).toBe('The default privacy policy is served.');
  });
});

describe('the web pages the instance links to', () => {
  it('serves the terms, each version by date, the privacy policy and the about page as HTML without scripts', async () => {
    await seed('2020-01-01', '<p>Old terms</p>');
    await seed(dayOffset(7), '<p>New terms</p>');
    const page = await call(termsPage, { path: '/terms-of-service' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('<p>Old terms</p>');
    expect(page.text).toContain(`href="/terms-of-service/${dayOffset(7)}"`);
    const next = await call(termsPageDate, { path: `/terms-of-service/${dayOffset(7)}`, pathParameters: { date: dayOffset(7) } });
    expect(next.text).toContain('<p>New terms</p>');
    expect((await call(termsPageDate, { path: '/terms-of-service/nope', pathParameters: { date: 'nope' } })).status).toBe(404);

    const privacy = await call(privacyPolicyPage, { path: '/privacy-policy' });
    expect(privacy.status).toBe(200);
    expect(privacy.text).toContain('social.example');
    const about = await call(aboutPage, { path: '/about' });
    expect(about.status).toBe(200);
    expect(about.text).toContain('href="/privacy-policy"');
    expect(about.text).toContain('href="/terms-of-service"');
  });
});
