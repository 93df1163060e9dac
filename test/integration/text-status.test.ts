import { extractEntities, parseStatusText, statusLength, statusToHtml, tagsOf, type ResolvedMention } from '../../lib/text/status';
import { normalizeTag } from '../../lib/text/tags';

const alice: ResolvedMention = { id: '1', username: 'alice', acct: 'alice', url: 'https://social.example/@alice' };
const resolved = new Map([['alice@', alice]]);
const aliceHtml = '<span class="h-card"><a href="https://social.example/@alice" class="u-url mention">@<span>alice</span></a></span>';

describe('status text to HTML', () => {
  it.each([
    ['plain text', 'hello', '<p>hello</p>'],
    ['escaped markup', '<script>alert("x")</script> & \'', '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;</p>'],
    ['line breaks and paragraphs', 'a\nb\r\n\r\n\nc', '<p>a<br />b</p><p>c</p>'],
    ['surrounding blank lines', '\n\n  hi  \n\n', '<p>hi</p>'],
    ['a blank text', '   ', ''],
    ['a local mention', 'hi @alice!', `<p>hi ${aliceHtml}!</p>`],
    ['a local mention with the local domain', 'hi @Alice@social.example', `<p>hi ${aliceHtml}</p>`],
    ['an unknown mention', 'hi @zed', '<p>hi @zed</p>'],
    ['a remote mention', 'hi @alice@elsewhere.example', '<p>hi @alice@elsewhere.example</p>'],
    ['an e-mail address', 'mail alice@social.example', '<p>mail alice@social.example</p>'],
    ['a hashtag', '#Hello', '<p><a href="https://social.example/tags/Hello" class="mention hashtag" rel="tag">#<span>Hello</span></a></p>'],
    ['a URL without scheme', 'see example.com', '<p>see example.com</p>'],
    ['a javascript: URL', 'javascript:alert(1)', '<p>javascript:alert(1)</p>'],
  ])('renders %s', (_name, text, html) => {
    expect(statusToHtml(parseStatusText(text), resolved)).toBe(html);
  });

  it('shortens long links as Mastodon', () => {
    const html = statusToHtml(parseStatusText('https://www.example.com/a/very/long/path/that/goes/on/and/on'), resolved);
    expect(html).toBe(
      '<p><a href="https://www.example.com/a/very/long/path/that/goes/on/and/on" target="_blank" rel="nofollow noopener noreferrer">' +
        '<span class="invisible">https://www.</span><span class="ellipsis">example.com/a/very/long/path/t</span><span class="invisible">hat/goes/on/and/on</span></a></p>',
    );
  });

  it('finds usernames longer than twitter-text allows and mentions inside URLs stay part of the URL', () => {
    const long = 'abcdefghijklmnopqrstuvwxyz_123';
    expect(extractEntities(`@${long}`)).toEqual([{ kind: 'mention', start: 0, end: 31, username: long, domain: null }]);
    expect(extractEntities('https://example.com/@alice@x.example').map((e) => e.kind)).toEqual(['url']);
  });

  it('records tags NFKC-normalised, lower-cased and once', () => {
    expect(tagsOf(parseStatusText('#Tag #tag #ＴＡＧ #other'))).toEqual(['tag', 'other']);
    expect(normalizeTag('Ｃａｆé')).toBe('café');
  });
});

describe('status length as Mastodon counts it', () => {
  it.each([
    ['plain characters', 'abc', '', 3],
    ['grapheme clusters', '👍🏽 e\u0301', '', 3],
    ['a URL as 23', `https://example.com/${'x'.repeat(100)}`, '', 23],
    ['a remote mention by its username', '@bob@example.com', '', 4],
    ['a local mention whole', '@bob', '', 4],
    ['the content warning too', 'abc', 'cw', 5],
  ])('counts %s', (_name, text, spoiler, length) => {
    expect(statusLength(parseStatusText(text), spoiler)).toBe(length);
  });
});
