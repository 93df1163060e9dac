// Plain text to HTML as Mastodon renders a local profile (lib/text).
import { countableLength, fieldValueToHtml, noteToHtml, URL_COUNTED_LENGTH } from '../../lib/text';
import { isLanguageCode } from '../../lib/text/languages';
import { parseStatusText, statusToHtml } from '../../lib/text/status';

/** Every tag the renderer may emit; anything else in the output came from the user unescaped. */
const ALLOWED_TAG = /^<(\/(p|a|span)|p|br \/|a href="[^"<>]*" target="_blank" rel="(me )?nofollow noopener noreferrer"|span class="(invisible|ellipsis|)")>$/;
const tagsOf = (html: string) => html.match(/<[^>]*>/g) ?? [];

describe('noteToHtml', () => {
  it('wraps paragraphs in <p> and turns single line breaks into <br />', () => {
    expect(noteToHtml('one\ntwo\n\nthree')).toBe('<p>one<br />two</p><p>three</p>');
  });

  it('treats CRLF, several blank lines and whitespace-only lines as one paragraph break, and trims the text', () => {
    expect(noteToHtml('  \r\none\r\n\r\n \t \r\n\n\ntwo\r\n  ')).toBe('<p>one</p><p>two</p>');
  });

  it('answers an empty string for a blank note', () => {
    expect(noteToHtml('')).toBe('');
    expect(noteToHtml(' \n\n \t')).toBe('');
  });

  it('escapes HTML, quotes and ampersands', () => {
    expect(noteToHtml(`<script>alert("x")</script> & 'q' <img src=x onerror=alert(1)>`)).toBe(
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  it("links http(s) URLs in Mastodon's form, with the scheme hidden", () => {
    expect(noteToHtml('see https://example.com/path ok')).toBe(
      '<p>see <a href="https://example.com/path" target="_blank" rel="nofollow noopener noreferrer">' +
        '<span class="invisible">https://</span><span class="">example.com/path</span><span class="invisible"></span></a> ok</p>',
    );
  });

  it('hides www. and cuts the display after 30 characters behind an ellipsis', () => {
    const html = noteToHtml('http://www.example.org/a/very/long/path/that/goes/on?x=1');
    expect(html).toContain('<span class="invisible">http://www.</span>');
    expect(html).toContain('<span class="ellipsis">example.org/a/very/long/path/t</span>');
    expect(html).toContain('<span class="invisible">hat/goes/on?x=1</span>');
    expect(html).toContain('href="http://www.example.org/a/very/long/path/that/goes/on?x=1"');
  });

  it('keeps trailing punctuation out of the link and escapes query strings in href', () => {
    const html = noteToHtml('Go to https://example.com/?a=1&b=2.');
    expect(html).toContain('href="https://example.com/?a=1&amp;b=2"');
    expect(html).toMatch(/<\/a>\.<\/p>$/);
  });

  it.each([
    ['javascript: URLs', 'javascript:alert(document.cookie)'],
    ['data: URLs', 'data:text/html;base64,PHNjcmlwdD4='],
    ['URLs without a scheme', 'www.example.com and example.com'],
    ['other schemes', 'ftp://example.com/file mailto:a@example.com'],
    ['e-mail addresses', 'write to someone@example.com'],
  ])('does not link %s', (_name, text) => {
    expect(noteToHtml(text)).not.toContain('<a ');
  });

  it('cannot be broken out of with quotes inside a URL', () => {
    const html = noteToHtml('https://example.com/"onmouseover="alert(1) https://example.com/\'><script>');
    for (const tag of tagsOf(html)) expect(tag).toMatch(ALLOWED_TAG);
    expect(html).not.toContain('"onmouseover');
    expect(html).not.toContain('<script>');
  });

  it('normalizes the scheme and host of the href, keeping the typed text on display', () => {
    const html = noteToHtml('HTTPS://Example.COM/Path');
    expect(html).toContain('href="https://example.com/Path"');
    expect(html).toContain('<span class="invisible">HTTPS://</span><span class="">Example.COM/Path</span>');
  });

  it('emits only its own markup for hostile input', () => {
    const hostile = [
      '<a href="javascript:alert(1)">x</a>',
      '"><svg/onload=alert(1)>',
      "'';!--\"<XSS>=&{()}",
      'https://a.example/<b>bold</b>',
      '&lt;already escaped&gt; &amp;',
      '\u0000\u202e\ufeff',
    ].join('\n');
    const html = noteToHtml(hostile);
    for (const tag of tagsOf(html)) expect(tag).toMatch(ALLOWED_TAG);
    expect(html).toContain('&amp;lt;already escaped&amp;gt;');
  });

  it('renders very long input in linear time', () => {
    const long = `${'word https://example.com/x '.repeat(4000)}\n\n${'a'.repeat(200_000)}`;
    const started = Date.now();
    const html = noteToHtml(long);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(html.match(/<a /g)).toHaveLength(4000);
    expect(html.endsWith(`${'a'.repeat(200_000)}</p>`)).toBe(true);
  });
});

describe('fieldValueToHtml', () => {
  it('keeps a value inline and links it with rel="me"', () => {
    expect(fieldValueToHtml('https://me.example.org')).toBe(
      '<a href="https://me.example.org/" target="_blank" rel="me nofollow noopener noreferrer">' +
        '<span class="invisible">https://</span><span class="">me.example.org</span><span class="invisible"></span></a>',
    );
  });

  it('escapes everything else and folds line breaks into spaces', () => {
    expect(fieldValueToHtml('<b>he/him</b>\n"&"')).toBe('&lt;b&gt;he/him&lt;/b&gt; &quot;&amp;&quot;');
  });
});

describe('one linkifier for profiles and statuses', () => {
  const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  it.each([
    ['a URL with its scheme', 'see https://example.com/a_(b), then', ['https://example.com/a_(b)']],
    ['a scheme-less domain, as on Mastodon', 'see example.com', []],
    ['a host on no known top-level domain, as on Mastodon', 'http://localhost:3000/@a http://alpha.test/x https://127.0.0.1/', []],
    ['an address with credentials in it', 'https://user:pw@example.com/x', []],
    ['trailing punctuation left out', 'https://mastodon.social/@Gargron! and (https://example.org/x).', ['https://mastodon.social/@Gargron', 'https://example.org/x']],
  ])('links the same in a profile note, a field and a status: %s', (_what, text, expected) => {
    expect(hrefs(noteToHtml(text))).toEqual(expected);
    expect(hrefs(fieldValueToHtml(text))).toEqual(expected);
    expect(hrefs(statusToHtml(parseStatusText(text), new Map()))).toEqual(expected);
  });
});

describe('countableLength', () => {
  it('counts characters as code points, not UTF-16 units', () => {
    expect(countableLength('héllo 🐘')).toBe(7);
  });

  it('counts every URL as 23 characters, whatever its length', () => {
    expect(countableLength(`a https://example.com/${'x'.repeat(300)}`)).toBe(2 + URL_COUNTED_LENGTH);
    expect(countableLength('https://a.io')).toBe(URL_COUNTED_LENGTH);
  });

  it('counts line breaks', () => {
    expect(countableLength('a\nb\n\nc')).toBe(6);
  });
});

describe('isLanguageCode', () => {
  it.each([['en', true], ['DE', true], ['pt', true], ['xx', false], ['eng', false], ['', false], ['e', false]])('%s → %s', (code, ok) => {
    expect(isLanguageCode(code)).toBe(ok);
  });
});
