// The sanitiser as the functions ship it: bundled with serverless.yml's esbuild settings, where
// postcss is replaced by a stand-in that throws (infra/bundle/postcss-unused.cjs). It must answer
// exactly as the sanitiser with postcss does, style attributes included, and carry no postcss.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildFunction } from '../../bench/bundles';
import { htmlToText, sanitizeRemoteHtml } from '../../lib/federation/sanitize';

type Sanitiser = { sanitizeRemoteHtml: typeof sanitizeRemoteHtml; htmlToText: typeof htmlToText };

const SAMPLES = [
  '<p style="color: red; background: url(javascript:alert(1))">red <span style="font-size: 90px" class="h-card">big</span></p>',
  '<p><a href="https://example.com/@a" class="u-url mention" style="display:none" onclick="x()">@<span>a</span></a></p>',
  '<div style="position:fixed;top:0;left:0;width:100%;height:100%">overlay</div><script>alert(1)</script>',
  '<h1 style="x">Title</h1><p>one<br>two</p><style>p { color: red }</style><svg><style>*{}</style></svg>',
  '<a href="javascript:alert(1)" style="color: blue">bad link</a> <a href="//evil.example">relative</a>',
  '<p>&lt;script&gt; &amp;amp; &quot;quoted&quot; &#39;single&#39; &nbsp;space</p>',
  '<blockquote style="border:1px solid"><ul><li style="list-style:none">item</li></ul></blockquote>',
  '<p style="">empty style</p><p STYLE="COLOR:RED">upper</p><p style>bare</p>',
];

describe('the sanitiser in a function bundle', () => {
  let dir: string;
  let bundled: Sanitiser;
  let inputs: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bundle-sanitize-'));
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, `export { sanitizeRemoteHtml, htmlToText } from ${JSON.stringify(join(process.cwd(), 'lib/federation/sanitize.ts'))};\n`);
    const result = await buildFunction(entry, join(dir, 'entry.mjs'));
    inputs = Object.keys(result.metafile!.inputs);
    bundled = (await import(pathToFileURL(join(dir, 'entry.mjs')).href)) as Sanitiser;
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('carries the stand-in, not postcss', () => {
    expect(inputs.some((p) => p.includes('node_modules/postcss/'))).toBe(false);
    expect(inputs.some((p) => p.includes('node_modules/source-map-js/'))).toBe(false);
    expect(inputs.some((p) => p.endsWith('infra/bundle/postcss-unused.cjs'))).toBe(true);
    expect(inputs.some((p) => p.includes('node_modules/sanitize-html/'))).toBe(true);
  });

  it.each(SAMPLES)('answers as the sanitiser with postcss does: %s', (html) => {
    expect(bundled.sanitizeRemoteHtml(html)).toBe(sanitizeRemoteHtml(html));
    expect(bundled.htmlToText(html)).toBe(htmlToText(html));
    expect(bundled.sanitizeRemoteHtml(html)).not.toMatch(/style=|<script|javascript:/i);
  });
});
