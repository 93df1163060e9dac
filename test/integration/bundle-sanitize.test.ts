// The sanitiser as the functions ship it: bundled with serverless.yml's esbuild settings, where
// postcss is replaced by a stand-in that throws (infra/bundle/postcss-unused.cjs) and sanitize-html's
// own htmlparser2 8 by the Parser of the project's htmlparser2 12 (infra/bundle/htmlparser2-parser.mjs).
// It must answer exactly as sanitize-html with postcss and its own parser does (the unbundled module
// here), on hostile samples and on generated HTML, and carry neither.
import fc from 'fast-check';
import { bundled as bundle } from '../support/bundle';
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
  '<p>a</br>b</p></p><title>t &amp; <b>x</b></title><textarea><p>raw</p></textarea>after',
  '<svg><p>in svg</p><foreignObject><p>fo</p></foreignObject></svg><math><mi>x</mi></math>tail',
  '<a href="jav&#x09;ascript:alert(1)">tab</a><a href="&#106;avascript:alert(1)">entity</a><a href="https://x/?a=1&b=2&amp;c">q</a>',
  '&notanentity; &amp &lt &#0; &#xD800; &#x110000; &AElig &copysomething; &#128512; &#x1F600',
  '<!-- comment --><![CDATA[cdata <b>x</b>]]><?pi x?><!DOCTYPE html><p\ta=1 b="2" c=\'3\' d>attrs</p>',
  '<P CLASS="H-CARD mention">Upper</P><span class="mention hashtag evil u-url">cls</span><br/><br / ><img src=x onerror=alert(1)>',
  '<script>document.write("<p>x</p>")</script><noscript><p>n</p></noscript><template><p>t</p></template><option>o</option>',
  '<ul><li>one<li>two</ul><p>unclosed <b>bold <i>both</p>text<table><tr><td>cell</td></tr></table>',
  '<img src="a.png" srcset="a.png 1x, javascript:alert(1) 2x"><p srcset="x 1x">p</p><picture><source srcset="b.webp 2x"></picture><a srcset="y 1w" href="https://x/">a</a>',
];

const ATTRIBUTES = ['href', 'class', 'style', 'onclick', 'rel', 'src', 'srcset', 'HREF', 'data-x', 'id'];
const VALUES = ['https://example.com/a?b=1&c=2', 'javascript:alert(1)', '//evil.example', 'mention u-url', 'h-card evil', 'x" onmouseover="y', "a'b", '&amp;&lt;&#34;', ''];
const TEXT = ['hello', ' ', '\n', '&amp;', '&lt;', '&gt;', '&quot;', '&#39;', '&nbsp;', '&copy', '&#x1F600;', '&bogus;', '>', '&', '"', "'", 'é', '😀', '\u0000', ']]>'];
const attributes = fc
  .array(fc.tuple(fc.constantFrom(...ATTRIBUTES), fc.constantFrom(...VALUES), fc.constantFrom('"', "'")), { maxLength: 3 })
  .map((list) => list.map(([name, value, quote]) => ` ${name}=${quote}${value.replaceAll(quote, quote === '"' ? '&quot;' : '&#39;')}${quote}`).join(''));
const text = fc.oneof(fc.constantFrom(...TEXT), fc.string({ maxLength: 6 }).map((t) => t.replace(/[<&]/g, '')));
const element = (tag: string, children: fc.Arbitrary<string>) =>
  fc.tuple(attributes, fc.array(children, { maxLength: 4 })).map(([attrs, inner]) => `<${tag}${attrs}>${inner.join('')}</${tag}>`);

/**
 * Well-formed HTML: every element closed in order, phrasing inside paragraphs, no link inside a link, no
 * self-closed element that is not void. Here the two parsers build the same tree, so the answers must be equal.
 */
const wellFormed = fc.letrec((tie) => ({
  phrasing: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.constant('<br>'),
    fc.constantFrom('<!-- c -->', '<img src="x" onerror="alert(1)">'),
    fc.constantFrom('span', 'b', 'i', 'em', 'code', 'del', 'strong').chain((tag) => element(tag, tie('phrasing') as fc.Arbitrary<string>)),
    element('a', tie('textOnly') as fc.Arbitrary<string>),
    fc.constantFrom('script', 'style').chain((tag) => text.map((t) => `<${tag}>${t}</${tag}>`)),
  ),
  textOnly: fc.oneof(text, element('span', text)),
  flow: fc.oneof(
    { depthSize: 'small' },
    tie('phrasing') as fc.Arbitrary<string>,
    fc.constantFrom('p', 'h1', 'pre').chain((tag) => element(tag, tie('phrasing') as fc.Arbitrary<string>)),
    fc.constantFrom('div', 'blockquote').chain((tag) => element(tag, tie('flow') as fc.Arbitrary<string>)),
    fc.array(element('li', tie('phrasing') as fc.Arbitrary<string>), { maxLength: 3 }).map((items) => `<ul>${items.join('')}</ul>`),
  ),
})).flow;
const wellFormedDocument = fc.array(wellFormed, { maxLength: 6 }).map((parts) => parts.join(''));

/**
 * Anything a remote server might send: stray and unclosed tags, raw-text and foreign elements, self-closed
 * non-void elements, unterminated comments and declarations. htmlparser2 12 follows the HTML standard more
 * closely than 8 here (an <iframe>'s or <script/>'s content is raw text, <h1> and <a> close an open one,
 * <svg/> leaves foreign content), so the trees may differ; the answer must still be safe, and safe again when sanitised again.
 */
const TAGS = ['p', 'a', 'span', 'br', 'b', 'i', 'pre', 'ul', 'li', 'blockquote', 'h1', 'div', 'script', 'style', 'title', 'textarea', 'svg', 'math', 'img', 'table', 'option', 'noscript', 'template', 'xmp', 'iframe', 'plaintext'];
const anything = fc
  .array(
    fc.oneof(
      text,
      fc.constantFrom('<', '</', '<!', '<?', '<!--', '-->', '<![CDATA[x]]>', '<!DOCTYPE html>', '</br>', '<p/>', '<a href="javascript:x">'),
      fc.tuple(fc.constantFrom(...TAGS), attributes, fc.boolean()).map(([tag, attrs, closed]) => `<${tag}${attrs}${closed ? '/' : ''}>`),
      fc.constantFrom(...TAGS).map((tag) => `</${tag}>`),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const KEPT_TAGS = new Set(['p', 'br', 'span', 'a', 'del', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 'ul', 'ol', 'li', 'blockquote']);
const KEPT_CLASS = /^(?:[hpue]|dt)-|^(?:mention|hashtag|ellipsis|invisible)$/;
/** What any answer of sanitizeRemoteHtml must be: only kept tags, only their attributes, only safe links, no raw markup in text. */
function expectSafe(out: string) {
  const markup = /<(\/?)([a-z0-9]+)((?: [a-z]+="[^"<>]*")*) ?\/?>/g;
  expect(out.replace(markup, '')).not.toMatch(/[<>]/);
  for (const [, , tag, attrs] of out.matchAll(markup)) {
    expect(KEPT_TAGS.has(tag!)).toBe(true);
    for (const [, name, value] of attrs!.matchAll(/ ([a-z]+)="([^"]*)"/g)) {
      expect(tag === 'a' ? ['href', 'rel', 'class'] : tag === 'span' ? ['class'] : []).toContain(name);
      // A link has a kept scheme, or none (a relative link), never a protocol-relative one.
      if (name === 'href' && /^[^/?#]*:/.test(value!)) expect(value).toMatch(/^(?:https?|dat|dweb|ipfs|ipns|ssb|gopher|xmpp|magnet|gemini):/i);
      if (name === 'href') expect(value).not.toMatch(/^\s*[/\\]{2}/);
      if (name === 'class') for (const c of value!.split(' ')) expect(c).toMatch(KEPT_CLASS);
    }
  }
}

describe('the sanitiser in a function bundle', () => {
  let bundled: Sanitiser;
  let inputs: string[];
  let remove = () => {};

  beforeAll(async () => {
    ({ module: bundled, inputs, remove } = await bundle<Sanitiser>({ 'lib/federation/sanitize.ts': ['sanitizeRemoteHtml', 'htmlToText'] }));
  }, 60_000);

  afterAll(() => remove());

  it('carries the stand-ins, not postcss or parse-srcset', () => {
    expect(inputs.some((p) => p.includes('node_modules/postcss/'))).toBe(false);
    expect(inputs.some((p) => p.includes('node_modules/parse-srcset/'))).toBe(false);
    expect(inputs.some((p) => p.endsWith('infra/bundle/parse-srcset-unused.cjs'))).toBe(true);
    expect(inputs.some((p) => p.includes('node_modules/source-map-js/'))).toBe(false);
    expect(inputs.some((p) => p.endsWith('infra/bundle/postcss-unused.cjs'))).toBe(true);
    expect(inputs.some((p) => p.includes('node_modules/sanitize-html/'))).toBe(true);
  });

  it("carries htmlparser2 12's Parser, not sanitize-html's own htmlparser2 and its DOM packages", () => {
    expect(inputs.some((p) => p.includes('node_modules/sanitize-html/node_modules/htmlparser2/'))).toBe(false);
    expect(inputs.some((p) => /node_modules\/(domhandler|domutils|dom-serializer)\//.test(p))).toBe(false);
    expect(inputs.some((p) => p.endsWith('infra/bundle/htmlparser2-parser.mjs'))).toBe(true);
    expect(inputs.some((p) => p.endsWith('node_modules/htmlparser2/dist/Parser.js'))).toBe(true);
    expect(inputs.some((p) => p.endsWith('node_modules/htmlparser2/dist/index.js'))).toBe(false);
  });

  it.each(SAMPLES)('answers as the sanitiser with postcss does: %s', (html) => {
    expect(bundled.sanitizeRemoteHtml(html)).toBe(sanitizeRemoteHtml(html));
    expect(bundled.htmlToText(html)).toBe(htmlToText(html));
    expect(bundled.sanitizeRemoteHtml(html)).not.toMatch(/style=|<script|javascript:/i);
  });

  it('answers as sanitize-html with its own parser does on generated well-formed HTML', () => {
    fc.assert(
      fc.property(wellFormedDocument, (input) => {
        expect(bundled.sanitizeRemoteHtml(input)).toBe(sanitizeRemoteHtml(input));
        expect(bundled.htmlToText(input)).toBe(htmlToText(input));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    '<img src="x">',
    '<p style="color:red">x</p>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="//evil.example/">x</a>',
    '<span class="evil">x</span>',
    '<span onclick="x()">x</span>',
    'a <script>',
  ])('the safety check itself refuses %s', (unsafe) => {
    expect(() => expectSafe(unsafe)).toThrow();
  });

  it('answers any generated HTML safely', () => {
    fc.assert(
      fc.property(anything, (input) => {
        const out = bundled.sanitizeRemoteHtml(input);
        expectSafe(out);
        expectSafe(sanitizeRemoteHtml(input));
        // Sanitised again (a heading made a paragraph may sit in one), still safe.
        expectSafe(bundled.sanitizeRemoteHtml(out));
      }),
      { numRuns: 3000 },
    );
  });
});
