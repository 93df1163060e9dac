// The stand-ins of the function bundles (serverless.yml custom.esbuild: alias and plugins,
// infra/bundle/) against what they replace:
// - side-channel (qs's cycle check) by a WeakMap and a Map: same answers operation by operation,
//   and qs's parsing, bundled with it as the functions ship it, answers as qs as installed;
// - twitter-text's core-js 2 polyfills by one empty module: the status parser bundled so answers
//   as the one loaded with its polyfills, on recorded tricky texts and on generated ones.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import fc from 'fast-check';
import { bundled as bundle } from '../support/bundle';
import { parseQuery } from '../../lib/http/body';
import { parseStatusText, statusLength, statusToHtml, tagDisplayNames, tagsOf } from '../../lib/text/status';

const require = createRequire(join(process.cwd(), 'package.json'));
type Channel = { assert(key: unknown): void; delete(key: unknown): boolean; get(key: unknown): unknown; has(key: unknown): boolean; set(key: unknown, value: unknown): void };
const realChannel = require('side-channel') as () => Channel;
const standIn = require('./infra/bundle/side-channel-native.cjs') as () => Channel;

type Bundled = {
  parseQuery: typeof parseQuery;
  parseStatusText: typeof parseStatusText;
  statusLength: typeof statusLength;
  statusToHtml: typeof statusToHtml;
  tagDisplayNames: typeof tagDisplayNames;
  tagsOf: typeof tagsOf;
};

/** The texts recorded from the separate passes of the status parser (mentions, unicode tags, URLs, emoji). */
const recordedTexts = (JSON.parse(readFileSync('test/fixtures/status-text.json', 'utf8')) as { text: string }[]).map((r) => r.text);

const WORDS = [
  '#tag', '#Ünïcödé', '#日本語', '#tag_with_underscore', '#123', '#a·b', '＃fullwidth', '#CamelCase', '@alice', '@bob@remote.example',
  '@user@host.example:8443', 'https://example.com/path?q=1#frag', 'http://例え.jp/パス', 'example.com', 'www.example.org/a',
  '😀', '👍🏽', '🏳️‍🌈', ':shortcode:', '$CASH', 'e.g.', '(', ')', '.', ',', '!', '…', '\n', '\r\n', ' ', '\u00a0', '\u200b', '\ufeff',
  'word', 'Ωmega', 'مرحبا', 'שָׁלוֹם', 'ग', 'ÅÆ',
];
const statusText = fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 5 })), { maxLength: 25 }).map((parts) => parts.join(''));

const KEYS = ['a', 'b', 'a[]', 'a[0]', 'a[1]', 'b[c]', 'b[c][d]', 'exclude_types[]', 'poll[options][]', 'poll[expires_in]', 'media_ids[]', 'x[y][z][w][v][u][t]', '__proto__', 'constructor[prototype]', 'a[', ']', 'a.b', 'q'];
const VALUES = ['1', '', 'two words', '%20', '%E2%9C%93', '%ZZ', '+', '=', '&', 'a%26b', '[]', 'true', '😀'];
const queryString = fc
  .array(fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), fc.boolean()), { maxLength: 12 })
  .map((pairs) => pairs.map(([k, v, withValue]) => (withValue ? `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${v}` : k)).join('&'));

describe('the stand-ins of the function bundles', () => {
  let bundled: Bundled;
  let inputs: string[];
  let remove = () => {};

  beforeAll(async () => {
    ({ module: bundled, inputs, remove } = await bundle<Bundled>({
      'lib/http/body.ts': ['parseQuery'],
      'lib/text/status.ts': ['parseStatusText', 'statusLength', 'statusToHtml', 'tagDisplayNames', 'tagsOf'],
    }));
  }, 60_000);

  afterAll(() => remove());

  it('carries the stand-ins, not core-js, side-channel, get-intrinsic or object-inspect', () => {
    for (const gone of ['core-js', 'side-channel', 'get-intrinsic', 'object-inspect']) {
      expect(inputs.filter((p) => p.includes(`node_modules/${gone}/`))).toEqual([]);
    }
    expect(inputs).toContain('core-js-native:core-js-native');
    expect(inputs.some((p) => p.endsWith('infra/bundle/side-channel-native.cjs'))).toBe(true);
    expect(inputs.some((p) => p.includes('node_modules/qs/'))).toBe(true);
    expect(inputs.some((p) => p.includes('node_modules/twitter-text/'))).toBe(true);
  });

  it('a side channel answers as side-channel does, operation by operation', () => {
    const shared = [{}, [], () => 0, Object.create(null)];
    const key = fc.oneof(fc.constantFrom(...shared), fc.constantFrom('a', '', 0, 1, -0, NaN, null, undefined, true, Symbol.for('s')));
    const op = fc.tuple(fc.constantFrom('assert', 'delete', 'get', 'has', 'set'), key, fc.integer());
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const [real, ours] = [realChannel(), standIn()];
        for (const [name, k, value] of ops) {
          const call = (channel: Channel) => {
            try {
              return { value: name === 'set' ? channel.set(k, value) : channel[name](k) };
            } catch (error) {
              return { error: (error as Error).constructor.name };
            }
          };
          expect(call(ours)).toEqual(call(real));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('says which key a side channel lacks', () => {
    expect(() => standIn().assert('abc')).toThrow(new TypeError("Side channel does not contain 'abc'"));
    expect(() => realChannel().assert('abc')).toThrow(new TypeError("Side channel does not contain 'abc'"));
    expect(() => standIn().assert({})).toThrow(new TypeError('Side channel does not contain the given object key'));
  });

  it('parses query strings and forms as qs as installed does', () => {
    fc.assert(
      fc.property(queryString, (raw) => {
        expect(bundled.parseQuery(raw)).toEqual(parseQuery(raw));
      }),
      { numRuns: 2000 },
    );
    expect(bundled.parseQuery('poll[options][]=a&poll[options][]=b&poll[expires_in]=60')).toEqual({ poll: { options: ['a', 'b'], expires_in: '60' } });
  });

  const sameParse = (text: string) => {
    const [ours, theirs] = [bundled.parseStatusText(text), parseStatusText(text)];
    expect(ours).toEqual(theirs);
    expect(bundled.statusLength(ours, 'cw')).toBe(statusLength(theirs, 'cw'));
    expect(bundled.statusToHtml(ours, new Map())).toBe(statusToHtml(theirs, new Map()));
    expect(bundled.tagsOf(ours)).toEqual(tagsOf(theirs));
    expect([...bundled.tagDisplayNames(text)]).toEqual([...tagDisplayNames(text)]);
  };

  it.each(recordedTexts.map((t) => [JSON.stringify(t), t]))('parses the recorded text %s as twitter-text with its polyfills does', (_name, text) => {
    sameParse(text);
  });

  it('parses generated status texts as twitter-text with its polyfills does', () => {
    fc.assert(fc.property(statusText, sameParse), { numRuns: 2000 });
  });
});
