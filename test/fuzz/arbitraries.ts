// fast-check arbitraries for hostile requests to one route: broken bodies of every
// kind the HTTP stack parses (JSON, forms with bracket notation, multipart), wrong
// types, absurd paging, unknown and foreign ids, broken percent-encoding, invalid
// UTF-8, bad tokens, duplicate and oversized headers, wrong methods, and a few
// malformed HTTP framings. Requests are built as byte strings (one character per
// byte, latin1) so that anything, invalid UTF-8 included, can be written as is.
//
// Tokens and real ids are written as placeholders (`{{token:B}}`, `{{id:status}}`),
// filled in when the request is sent (send.ts): generated values stay the same for
// a seed whatever the ids of the run, and a counterexample reads as what it means.
import fc from 'fast-check';
import type { Route } from './routes';

export type TokenName = 'A' | 'B' | 'readA' | 'revokedA' | 'app';
export type IdName =
  | 'status' | 'poll' | 'list' | 'filter' | 'media' | 'notification' | 'scheduled'
  | 'featuredTag' | 'conversation' | 'accountA' | 'accountB' | 'hashtag';

export const ID_NAMES: IdName[] = [
  'status', 'poll', 'list', 'filter', 'media', 'notification', 'scheduled',
  'featuredTag', 'conversation', 'accountA', 'accountB', 'hashtag',
];

/** Malformed framings of the request itself (answered by the Node servers, before any handler). */
export type Framing =
  | 'normal' | 'http10' | 'no-host' | 'bad-version' | 'garbage-line' | 'lowercase-method' | 'chunked'
  | 'bad-chunked' | 'cl-and-te' | 'lf-only' | 'header-no-colon' | 'space-before-colon' | 'obs-fold'
  | 'absolute-uri' | 'short-content-length' | 'nul-in-header' | 'connect';

export type FuzzRequest = {
  /** The route table's key ('GET /api/v1/statuses/{id}'). */
  route: string;
  stream: boolean;
  method: string;
  /** Request target (path and query), bytes. */
  target: string;
  headers: Array<[string, string]>;
  /** Bytes; no Content-Length is sent for an empty body on GET/HEAD/DELETE/OPTIONS. */
  body: string;
  framing: Framing;
};

/** UTF-8 bytes of a text, as a byte string. */
export const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

/** A fixture placeholder, filled in at send time. */
export const PLACEHOLDER = /\{\{(id|token):(\w+)\}\}/g;

/** Percent-encodes every byte but the unreserved ones (RFC 3986), and leaves placeholders whole. */
export const pct = (byteString: string) =>
  byteString.split(/(\{\{(?:id|token):\w+\}\})/).map((part, i) => i % 2 === 1 ? part :
    part.replace(/[^A-Za-z0-9\-._~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)).join('');

// ---------------------------------------------------------------------------
// Values

const SIZES = [1_000, 8_000, 70_000, 1_100_000];

/** Parameter names the endpoints read (and some they do not). */
const FIELD_NAMES = [
  'status', 'media_ids', 'in_reply_to_id', 'sensitive', 'spoiler_text', 'visibility', 'language', 'scheduled_at',
  'poll', 'title', 'replies_policy', 'exclusive', 'account_ids', 'phrase', 'context', 'irreversible', 'whole_word',
  'expires_in', 'description', 'focus', 'file', 'thumbnail', 'display_name', 'note', 'avatar', 'header', 'locked',
  'bot', 'discoverable', 'fields_attributes', 'source', 'username', 'email', 'password', 'agreement', 'locale',
  'reason', 'client_name', 'redirect_uris', 'scopes', 'website', 'grant_type', 'client_id', 'client_secret', 'code',
  'redirect_uri', 'scope', 'token', 'subscription', 'data', 'choices', 'name', 'domain', 'home', 'notifications',
  'id', 'limit', 'max_id', 'since_id', 'min_id', 'offset', 'q', 'type', 'resolve', 'following', 'account_id',
  'local', 'remote', 'only_media', 'tagged', 'pinned', 'exclude_replies', 'exclude_reblogs', 'types',
  'exclude_types', 'tag', 'list', 'acct', 'resource', 'response_type', 'state', 'confirmation_token', 'policy',
  'authenticity_token', 'force_login', 'lang', 'notify', 'reblogs', 'comment', 'last_read_id', 'access_token',
];

const WEIRD_VALUES = [
  '', ' ', '0', '-0', '-1', '1', '1.5', '1e309', '-1e309', '1e-400', 'NaN', 'Infinity', '-Infinity',
  '18446744073709551616', '99999999999999999999999999999', '9007199254740993', '0x7fffffff', 'ffff', '0b1', '1_000',
  'true', 'false', 'TRUE', 'yes', 'null', 'undefined', '[]', '{}', '[object Object]', '\u0000', 'a\u0000b', '\ud800',
  '\udfff', '\ud83d', 'x\udc00y', '😀', '\u202e\u202d', 'é'.normalize('NFD'), '<script>alert(1)</script>',
  "' OR '1'='1", '../../../etc/passwd', '%00', '%', '%E0%A4%A', 'public', 'unlisted', 'private', 'direct', 'home',
  'notifications', 'followed', 'list', 'none', 'read', 'write', 'read:statuses', 'admin:write', '@nobody',
  '@nobody@example.com', '#tag', 'https://example.com/', 'http://127.0.0.1:1/', 'javascript:alert(1)',
  'urn:ietf:wg:oauth:2.0:oob', '2020-13-45T99:99:99Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z',
  'password', 'client_credentials', 'authorization_code', 'refresh_token', 'code',
];

const FIXTURE_REFS = [
  ...['status', 'poll', 'list', 'filter', 'media', 'notification', 'scheduled', 'featuredTag', 'conversation', 'accountA', 'accountB', 'hashtag'].map((n) => `{{id:${n}}}`),
  '{{token:A}}', '{{token:B}}', '{{token:revokedA}}', '{{token:app}}',
];

const shortText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...WEIRD_VALUES) },
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(...FIXTURE_REFS) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), fc.double()).map(String) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(200, 600), fc.constantFrom('a', 'é', '1', '😀')).map(([n, c]) => c.repeat(n)) },
);

/** A text value (UTF-16; turned into bytes by whoever writes it), huge ones included. */
export const textValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 15, arbitrary: shortText },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...SIZES), fc.constantFrom('a', 'é', '1', 'https://e.xample/ ', '😀', '#t ', '@a ')).map(([n, c]) => c.repeat(Math.ceil(n / c.length))) },
);

/** Bytes meant as a value but not valid UTF-8 (or UTF-8 of a surrogate, which is not either). */
const invalidUtf8 = fc.constantFrom('\xff', '\xfe\xff', '\xc3\x28', '\xed\xa0\x80', '\xed\xbf\xbf', '\xc0\xaf', '\xe0\x80\xaf', '\xf8\x88\x80\x80\x80', 'a\x80b', '\xf0\x9f\x98');

/** A value as bytes: UTF-8 of a text, or invalid UTF-8. */
const byteValue: fc.Arbitrary<string> = fc.oneof({ weight: 8, arbitrary: textValue.map(utf8) }, { weight: 1, arbitrary: invalidUtf8 });

/** The same, short enough for a query string or a header (their size limits have cases of their own). */
const shortBytes: fc.Arbitrary<string> = fc.oneof({ weight: 8, arbitrary: shortText.map(utf8) }, { weight: 1, arbitrary: invalidUtf8 });

const fieldName = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...FIELD_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) });

const BRACKET_SEGMENTS = ['[]', '[0]', '[1]', '[99]', '[100]', '[101]', '[4294967296]', '[-1]', '[__proto__]', '[constructor]', '[prototype]', '[x]', '[', ']', '[[]]', '[ ]', '[name]', '[value]', '[options]', '[keys]'];

/** Rails-style keys, abused: deep, mixed arrays and objects, prototype names. */
const bracketKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fieldName, fc.array(fc.constantFrom(...BRACKET_SEGMENTS), { minLength: 1, maxLength: 9 })).map(([k, segs]) => k + segs.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', '__proto__[x]', 'constructor[prototype][x]', 'hasOwnProperty', 'toString', 'valueOf', '', '[', ']', '[]', '=', 'a[b][c][d][e][f][g]', 'poll[options][]', 'fields_attributes[0][name]', 'data[alerts][mention]', 'subscription[keys][p256dh]', 'source[privacy]', 'home[last_read_id]') },
);

const formKey = fc.oneof({ weight: 3, arbitrary: fieldName }, { weight: 2, arbitrary: bracketKey });

/** One `key=value` of a query or form body, encoded properly, left raw, or with broken percent-encoding. */
const pairOf = (value: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.tuple(formKey, value, fc.constantFrom('encoded', 'encoded', 'encoded', 'raw', 'broken', 'no-value')).map(([k, v, how]) => {
  const key = how === 'raw' ? utf8(k) : pct(utf8(k)).replace(/%5B/g, '[').replace(/%5D/g, ']');
  if (how === 'no-value') return key;
  if (how === 'raw') return `${key}=${v}`;
  if (how === 'broken') return `${key}=${pct(v)}${['%', '%E0%A4%A', '%ZZ', '%%', '%u0041', '%C3'][v.length % 6]}`;
  return `${key}=${pct(v)}`;
});
const formPair = pairOf(byteValue);
const queryPair = pairOf(shortBytes);

/** Whole form bodies or query strings that abuse the parser in ways single pairs do not. */
const SPECIAL_FORMS = [
  'a[b][c][d][e][f][g]=1', 'a[]=1&a[x]=2', '__proto__[x]=1', 'constructor[prototype][x]=1', '__proto__=1',
  'status[]=a&status[]=b', 'status=a&status=b', 'media_ids=1&media_ids[]=2', 'media_ids[x]=1', 'poll[options][]=a&poll[options][x]=b',
  'poll[options]=a', 'poll=1', 'account_ids=1', 'account_ids[0][0]=1', 'context=home', 'context[]=nowhere', 'types[]=mention&types=follow',
  'a[101]=1', 'a[4294967296]=1', 'fields_attributes[0]=x', 'fields_attributes[99][name]=a&fields_attributes[99][value]=b',
  'data[alerts][mention]=maybe&subscription[endpoint]=ftp://x', '&&&', '=', '==', '=1', '&=&', '%', '%E0%A4%A', '%ED%A0%80=%ED%A0%80',
  'a=%C0%AF', 'limit=%E0%A4%A', '%FF=%FE', 'a=\xff\xfe', 'a=\xed\xa0\x80', 'q=%00', 'a+b=c+d', 'a=1;b=2', 'a=1#x',
];

const manyPairs = (counts: number[]) => fc.constantFrom(...counts).map((n) => Array.from({ length: n }, (_, i) => `k${i}=1`).join('&'));

export const formString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.array(formPair, { maxLength: 8 }).map((pairs) => pairs.join('&')) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_FORMS) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...SPECIAL_FORMS), fc.array(formPair, { maxLength: 3 })).map(([s, p]) => [s, ...p].join('&')) },
  { weight: 1, arbitrary: manyPairs([1_001, 5_000]) },
);

// ---------------------------------------------------------------------------
// Query strings

const PAGING_VALUES = [
  '-1', '0', '1', '40', '41', '80', '1000', '1e309', '-1e309', 'ffff', 'abc', '', ' 1', '1 ', '1.5', '0x10', '١٢',
  '99999999999999999999999999999', '18446744073709551615', '-9223372036854775808', '2147483648', 'NaN', 'null',
  '%00', '%', '%E0%A4%A', '{{id:status}}', '{{id:notification}}', '{{id:accountB}}', '1'.repeat(300), 'f'.repeat(40),
];
const PAGING_KEYS = ['limit', 'max_id', 'since_id', 'min_id', 'offset', 'limit[]', 'max_id[]', 'limit[a]', 'max_id[__proto__]'];
const QUERY_KEYS = [
  'local', 'remote', 'only_media', 'types[]', 'exclude_types[]', 'account_id', 'q', 'type', 'resolve', 'following',
  'tag', 'list', 'with_dismissed', 'id[]', 'id', 'acct', 'resource', 'stream', 'timeline[]', 'exclude_unreviewed',
  'pinned', 'exclude_replies', 'exclude_reblogs', 'tagged', 'response_type', 'client_id', 'redirect_uri', 'scope',
  'confirmation_token', 'rel', 'only_media[]', 'tag[]', 'list[x]',
];

const pagingPair = fc.tuple(fc.constantFrom(...PAGING_KEYS), fc.constantFrom(...PAGING_VALUES)).map(([k, v]) =>
  v.startsWith('{{') || /^%/.test(v) ? `${k}=${v}` : `${k}=${pct(utf8(v))}`);
const knownPair = fc.tuple(fc.constantFrom(...QUERY_KEYS), shortBytes).map(([k, v]) => `${k}=${pct(v)}`);
const tokenParam = fc.constantFrom<TokenName | 'garbage'>('A', 'B', 'readA', 'revokedA', 'app', 'garbage').map((t) =>
  t === 'garbage' ? 'access_token=nope' : `access_token={{token:${t}}}`);

const plausibleQuery: fc.Arbitrary<string> = fc.constantFrom(
  'limit=1', 'limit=40&max_id={{id:status}}', 'min_id={{id:status}}', 'since_id={{id:notification}}', 'local=true&only_media=true',
  'types[]=mention&types[]=follow', 'exclude_types[]=favourite', 'account_id={{id:accountB}}', 'q=fuzz&type=accounts&resolve=true',
  'q=%23fuzztag&type=hashtags', 'q={{id:status}}&type=statuses', 'id[]={{id:accountB}}&id[]={{id:accountA}}', 'acct=fuzz',
  'tag=fuzztag', 'list={{id:list}}', 'pinned=true', 'exclude_replies=true&exclude_reblogs=true', 'tagged=fuzztag',
  'timeline[]=home&timeline[]=notifications', 'resource=acct:fuzz@localhost', 'with_dismissed=true', 'following=true',
  'response_type=code&client_id=x&redirect_uri=urn:ietf:wg:oauth:2.0:oob&scope=read', 'confirmation_token=abc',
);

export const queryString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: pagingPair }, { weight: 3, arbitrary: knownPair }, { weight: 2, arbitrary: queryPair }, { weight: 1, arbitrary: tokenParam }), { minLength: 1, maxLength: 6 }).map((p) => p.join('&')) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_FORMS) },
  { weight: 3, arbitrary: plausibleQuery },
  // Past every header-size limit in front of the handlers (Node: 16 KB; API Gateway: 10 KB of request line).
  { weight: 1, arbitrary: fc.constantFrom(9_000, 17_000, 65_536).map((n) => `q=${'x'.repeat(n)}`) },
  // More parameters than qs reads (1,000), within the header limits.
  { weight: 1, arbitrary: manyPairs([1_001]) },
);

// ---------------------------------------------------------------------------
// Paths

/** Which fixture ids fit a `{param}`, from the path segment before it. */
function idsFor(route: Route, param: string): IdName[] {
  const segments = route.path.split('/');
  const at = segments.indexOf(`{${param}}`);
  const before = segments[at - 1] ?? '';
  const byName: Record<string, IdName[]> = {
    statuses: ['status'], accounts: ['accountA', 'accountB'], lists: ['list'], list: ['list'], filters: ['filter'],
    media: ['media'], notifications: ['notification'], scheduled_statuses: ['scheduled'], polls: ['poll'],
    featured_tags: ['featuredTag'], conversations: ['conversation'], follow_requests: ['accountB', 'accountA'],
    suggestions: ['accountB'], tag: ['hashtag'],
  };
  return byName[before] ?? (param === 'account_id' ? ['accountB'] : ['status']);
}

const WEIRD_IDS = [
  '0', '-1', '1', '99999999999999999999', '109999999999999999', '000000000000000000001', 'abc', 'null', 'undefined',
  '%20', '%00', '..', '.', '%2e%2e', '%2F', 'a%2Fb', '%F0%9F%98%80', '\xf0\x9f\x98\x80', '%E0%A4%A', '%', '%ZZ',
  '%ED%A0%80', '\xff', '\xed\xa0\x80', '1e309', '0x1', '%09', '[]', '{id}', ':id', '1;x', '1,2', '1.0', '+1', '%2B1',
  'ñ', '%C3%B1', '__proto__', 'constructor', 'toString', '1%00', '*', '~', '$', '!', "'", '(', '@a', '%40a',
];

const idValue = (matching: IdName[]): fc.Arbitrary<string> => fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...matching).map((n) => `{{id:${n}}}`) },
  { weight: 2, arbitrary: fc.constantFrom(...ID_NAMES).map((n) => `{{id:${n}}}`) },
  { weight: 4, arbitrary: fc.constantFrom(...WEIRD_IDS) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(30, 200, 2_000, 8_000), fc.constantFrom('9', 'a', '%41')).map(([n, c]) => c.repeat(n)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((s) => pct(utf8(s))) },
);

const CATCH_ALL_PATHS = [
  '/', '/api', '/api/', '/api/v1', '/api/v1/', '/api/v1/nope', '/api/v2/nope/1', '/api/v3/instance', '/.env',
  '/..%2f..%2fetc/passwd', '/api/v1/statuses/1/unknown', '/%', '/%E0%A4%A', '/%ED%A0%80', '/\xff', '/favicon.ico',
  '/robots.txt', '/api/v1/timelines/tag/', '/api/v1/accounts//statuses', '//api/v1/instance', '/API/V1/INSTANCE',
  '/api/v1/instance/', '/api/v1/instance.json', '/api/v1/streaming', '/api/v1/streaming/nope', '/users/nobody',
  '/@nobody', '/inbox', '/oauth', '/oauth/authorize/extra', '/auth/sign_in', '/system/media_attachments/files/1',
  '/api/v1/statuses/%2e%2e/%2e%2e/instance', '/a;b', '/~', '/api/v1/accounts/verify_credentials/extra',
];

function pathArb(route: Route): fc.Arbitrary<string> {
  if (route.path === '*') {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...CATCH_ALL_PATHS) },
      { weight: 2, arbitrary: fc.array(fc.oneof(fc.constantFrom('api', 'v1', 'v2', 'x', '..', '%2e', '', 'statuses', '{{id:status}}'), fc.string({ maxLength: 8 }).map((s) => pct(utf8(s)))), { minLength: 1, maxLength: 6 }).map((segs) => `/${segs.join('/')}`) },
      { weight: 1, arbitrary: fc.constantFrom(2_000, 9_000, 20_000).map((n) => `/${'a'.repeat(n)}`) },
    );
  }
  const parts = route.path.split(/(\{[^}]+\})/);
  const pieces = parts.map((part) => {
    const m = /^\{([^}]+)\}$/.exec(part);
    return m ? idValue(idsFor(route, m[1]!)) : fc.constant(part);
  });
  const mutation = fc.oneof(
    { weight: 12, arbitrary: fc.constant((p: string) => p) },
    { weight: 1, arbitrary: fc.constantFrom((p: string) => `${p}/`, (p: string) => p.replace('/api/', '//api/'), (p: string) => p.toUpperCase(), (p: string) => `${p}%00`, (p: string) => `${p}/..`) },
  );
  return fc.tuple(fc.tuple(...pieces), mutation).map(([ps, f]) => f(ps.join('')));
}

// ---------------------------------------------------------------------------
// Bodies

export type Body = { contentType: string | null; body: string };

/** JSON values with the wrong types in the right places. */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: textValue },
    { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(-0), fc.constant(2 ** 64)) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.oneof(fieldName, fc.constantFrom('__proto__', 'constructor', 'prototype')), tie('value'), { maxKeys: 4 }) },
  ),
})).value;

const jsonObject = fc.dictionary(fieldName, jsonValue, { maxKeys: 6 }).map((o) => JSON.stringify(o));

const BROKEN_JSON = [
  '{', '{"', '{"status":', '{"status":"x"', '[1,2', 'nul', 'tru', '"abc', '{"a":1,}', "{'a':1}", '{a:1}', 'undefined',
  'NaN', '{"a":NaN}', '{"limit":1e309}', '{"id":123456789012345678901234567890}', '\ufeff{"a":1}', '{"a":"\\ud800"}',
  '{"status":"\\udfff\\ud800"}', '{"a":"\\u00"}', '{"a":"\\x41"}', '{"status":"\xed\xa0\x80"}', '{"status":"\xff"}',
  '[]', '[{}]', '1', '"str"', 'null', 'true', '{}{}', '{"a":1}garbage', '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}', '{"status":"x","__proto__":{"status":"y"}}', '{"media_ids":{"length":1e9}}',
  '{"poll":{"options":"abc","expires_in":"x"}}', '{"poll":{"options":[[],{}],"expires_in":-1}}', '{"limit":-1}',
  '{"account_ids":[null]}', '{"context":"home"}', '{"context":[1,2]}', '{"scopes":["read"]}', '{"status":null}',
  '{"status":{"toString":"x"}}', '{"fields_attributes":{"0":{"name":["x"]}}}', '{"data":{"alerts":[]}}', ' ', '\n',
];

const deepJson = fc.tuple(fc.constantFrom(100, 3_000, 100_000), fc.constantFrom('[', '{"a":')).map(([n, open]) =>
  open === '[' ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n));

const malformedJson: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(jsonObject, fc.nat()).map(([s, i]) => s.slice(0, s.length > 1 ? i % (s.length - 1) + 1 : 0)) },
  { weight: 4, arbitrary: fc.constantFrom(...BROKEN_JSON).map(utf8Unless) },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: fc.tuple(jsonObject, fc.nat(), invalidUtf8).map(([s, i, bad]) => { const at = i % (s.length + 1); return utf8(s.slice(0, at)) + bad + utf8(s.slice(at)); }) },
);

/** BROKEN_JSON mixes text with deliberate raw bytes (the \xNN entries): those stay bytes. */
function utf8Unless(s: string): string {
  return /[\x80-\xff]/.test(s) && !/[^\x00-\xff]/.test(s) ? s : utf8(s);
}

type Part = { name: string; file: boolean; filename: string; type: string; content: string };

const partArb: fc.Arbitrary<Part> = fc.record({
  name: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('file', 'avatar', 'header', 'thumbnail', 'status', 'description', 'focus', 'media_ids[]', 'display_name', 'note', 'poll[options][]', 'fields_attributes[0][name]', 'title', 'phrase') },
    { weight: 2, arbitrary: formKey },
  ),
  file: fc.boolean(),
  filename: fc.constantFrom('a.png', 'a.txt', '', '../../etc/passwd', 'a"b.png', 'é.png', 'a'.repeat(300), '\xff.png'),
  type: fc.constantFrom('image/png', 'image/jpeg', 'image/gif', 'video/mp4', 'text/plain', 'application/octet-stream', '', 'image/svg+xml', 'garbage'),
  content: fc.oneof(
    { weight: 4, arbitrary: byteValue },
    { weight: 1, arbitrary: fc.constantFrom('\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR', 'GIF89a\x01\x00\x01\x00', '\xff\xd8\xff\xe0', '--not-the-boundary\r\n') },
  ),
});

const MULTIPART_SHAPES = [
  'ok', 'no-close', 'no-close', 'no-close', 'truncate', 'truncate', 'no-boundary-param', 'wrong-boundary', 'empty',
  'preamble-only', 'lf-only', 'no-part-headers', 'bad-disposition', 'huge-field', 'many-files', 'boundary-quoted',
  'long-boundary', 'no-name', 'close-no-crlf',
] as const;

const multipartBody: fc.Arbitrary<Body> = fc.record({
  parts: fc.array(partArb, { minLength: 1, maxLength: 5 }),
  shape: fc.constantFrom(...MULTIPART_SHAPES),
  cut: fc.nat(),
}).map(({ parts, shape, cut }) => {
  const boundary = shape === 'long-boundary' ? 'b'.repeat(200) : '----fuzzboundary7MA4YWxkTrZu0gW';
  let all = parts;
  if (shape === 'many-files') all = Array.from({ length: 6 }, (_, i) => ({ ...parts[0]!, name: `file${i}`, file: true }));
  if (shape === 'huge-field') all = [...parts, { name: 'status', file: false, filename: '', type: '', content: 'x'.repeat(1_100_000) }];
  const nl = shape === 'lf-only' ? '\n' : '\r\n';
  const rendered = all.map((p) => {
    const disposition = shape === 'bad-disposition' ? 'Content-Disposition: form-data; name' :
      shape === 'no-name' ? 'Content-Disposition: form-data' :
      `Content-Disposition: form-data; name="${utf8(p.name)}"${p.file ? `; filename="${p.filename}"` : ''}`;
    const head = shape === 'no-part-headers' ? '' : `${disposition}${nl}${p.file && p.type ? `Content-Type: ${p.type}${nl}` : ''}`;
    return `--${boundary}${nl}${head}${nl}${p.content}${nl}`;
  }).join('');
  let body = `${rendered}--${boundary}--${nl}`;
  if (shape === 'no-close') body = rendered.slice(0, -nl.length);
  if (shape === 'close-no-crlf') body = `${rendered}--${boundary}--`;
  if (shape === 'truncate') body = body.slice(0, cut % Math.max(1, body.length));
  if (shape === 'empty') body = '';
  if (shape === 'preamble-only') body = 'just a preamble, no parts';
  const type = shape === 'no-boundary-param' ? 'multipart/form-data' :
    shape === 'wrong-boundary' ? 'multipart/form-data; boundary=somethingelse' :
    shape === 'boundary-quoted' ? `multipart/form-data; boundary="${boundary}"` :
    `multipart/form-data; boundary=${boundary}`;
  return { contentType: type, body };
});

/** Values each parameter accepts: a near-valid request gets past validation to the code behind it. */
const PLAUSIBLE: Record<string, unknown[]> = {
  status: ['hello', 'hi @{{id:accountB}} #fuzztag', ''], visibility: ['public', 'unlisted', 'private', 'direct'],
  media_ids: [['{{id:media}}'], ['{{id:media}}', '{{id:media}}'], []], in_reply_to_id: ['{{id:status}}'], sensitive: [true, 'true'],
  spoiler_text: ['cw'], language: ['en', 'xx'], scheduled_at: ['2099-01-01T00:00:00Z', '2000-01-01T00:00:00Z'],
  poll: [{ options: ['a', 'b'], expires_in: 3600 }, { options: ['a'], expires_in: 1 }, { options: ['a', 'a'], expires_in: 3600, multiple: true }],
  title: ['t'], replies_policy: ['list', 'followed', 'none'], exclusive: [true], account_ids: [['{{id:accountB}}'], ['{{id:accountA}}']],
  phrase: ['w'], context: [['home'], ['public', 'thread'], []], irreversible: [true], whole_word: [false], expires_in: [3600, 0, ''],
  description: ['d'], focus: ['0.5,0.5', '2,2'], display_name: ['n'], note: ['bio'], locked: [true], bot: ['false'],
  fields_attributes: [[{ name: 'a', value: 'b' }], { 0: { name: 'a', value: 'b' } }], source: [{ privacy: 'public', language: 'en' }],
  choices: [[0], [0, 1], [5]], name: ['fuzztag', '#fuzztag'], domain: ['example.com', 'localhost'], home: [{ last_read_id: '{{id:status}}' }],
  notifications: [{ last_read_id: '{{id:notification}}' }], q: ['fuzz', '@fuzz', '#fuzztag', 'https://example.com/@a'], type: ['accounts', 'statuses', 'hashtags'],
  resolve: [true], limit: [1, 40], client_name: ['c'], redirect_uris: ['urn:ietf:wg:oauth:2.0:oob'], scopes: ['read', 'read write'],
  grant_type: ['client_credentials', 'password', 'authorization_code'], token: ['{{token:A}}', '{{token:revokedA}}'],
  subscription: [{ endpoint: 'https://push.example/x', keys: { p256dh: 'BAAA', auth: 'AAAA' } }], data: [{ alerts: { mention: true }, policy: 'all' }],
  reblogs: [false], notify: [true], comment: ['c'], agreement: [true], locale: ['en'], reason: ['r'],
};

/** A near-valid object: plausible values for a few parameters, one or two of them swapped for wrong ones. */
const plausibleObject: fc.Arbitrary<Record<string, unknown>> = fc.tuple(
  fc.subarray(Object.keys(PLAUSIBLE), { minLength: 1, maxLength: 4 }),
  fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
  fc.option(fc.tuple(fc.nat(), jsonValue), { freq: 2 }),
).map(([keys, picks, swap]) => {
  const out: Record<string, unknown> = {};
  keys.forEach((k, i) => {
    const choices = PLAUSIBLE[k]!;
    out[k] = choices[picks[i]! % choices.length];
  });
  if (swap) out[keys[swap[0] % keys.length]!] = swap[1];
  return out;
});

/** Rails-style form encoding of nested values (`poll[options][]=a`). */
export function toForm(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => toForm(v, `${prefix}[]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => toForm(v, prefix ? `${prefix}[${k}]` : k));
  }
  return [`${pct(utf8(prefix)).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${pct(utf8(String(value)))}`];
}

const plausibleBody: fc.Arbitrary<Body> = fc.tuple(plausibleObject, fc.constantFrom('json', 'form', 'multipart')).map(([o, how]) => {
  if (how === 'json') return { contentType: 'application/json', body: utf8(JSON.stringify(o)) };
  const pairs = toForm(o);
  if (how === 'form') return { contentType: 'application/x-www-form-urlencoded', body: pairs.join('&') };
  const boundary = 'plausible7MA4YWxkTrZu0gW';
  const parts = pairs.map((p) => {
    const [k = '', v = ''] = p.split('=');
    return `--${boundary}\r\nContent-Disposition: form-data; name="${decodeURIComponent(k)}"\r\n\r\n${utf8(safeDecode(v))}\r\n`;
  });
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: `${parts.join('')}--${boundary}--\r\n` };
});

const safeDecode = (v: string) => {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
};

const OTHER_TYPES = [
  'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=',
  'multipart/form-data; boundary="unterminated', 'multipart/mixed; boundary=x', 'text/plain', 'application/xml',
  'application/json; charset=utf-16', 'application/ld+json', 'application/activity+json', 'APPLICATION/JSON',
  'application/x-www-form-urlencoded; charset=iso-8859-1', '*/*', ';;;', 'ñ', 'application/json, text/plain', '',
];

export const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ contentType: null, body: '' }) },
  { weight: 4, arbitrary: jsonObject.map((b) => ({ contentType: 'application/json', body: utf8(b) })) },
  { weight: 4, arbitrary: malformedJson.map((b) => ({ contentType: 'application/json', body: b })) },
  { weight: 4, arbitrary: formString.map((b) => ({ contentType: 'application/x-www-form-urlencoded', body: b })) },
  { weight: 5, arbitrary: multipartBody },
  { weight: 6, arbitrary: plausibleBody },
  // The right bytes under the wrong type, or none.
  { weight: 2, arbitrary: fc.tuple(fc.oneof(jsonObject.map(utf8), malformedJson, formString, multipartBody.map((m) => m.body)), fc.oneof(fc.constantFrom(...OTHER_TYPES), fc.constant(null))).map(([body, contentType]) => ({ contentType, body })) },
  { weight: 1, arbitrary: fc.constantFrom(1_100_000, 7_000_000).map((n) => ({ contentType: 'application/json', body: `{"status":"${'a'.repeat(n)}"}` })) },
);

// ---------------------------------------------------------------------------
// Tokens and headers

const authHeaders: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Array<[string, string]>>([]) },
  { weight: 8, arbitrary: fc.constantFrom<TokenName>('A', 'A', 'B', 'readA', 'revokedA', 'app').map((t): Array<[string, string]> => [['Authorization', `Bearer {{token:${t}}}`]]) },
  { weight: 3, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Bearer nope', 'bearer {{token:A}}', 'Bearer  {{token:A}} ', 'Bearer {{token:A}}x', 'Bearer a b', 'Basic dXNlcjpwYXNz', 'Token {{token:A}}', `Bearer ${'t'.repeat(600)}`, `Bearer ${'t'.repeat(9_000)}`, 'Bearer \xff\xfe', 'Bearer %00', 'Bearer {{token:A}},Bearer {{token:B}}').map((v): Array<[string, string]> => [['Authorization', v]]) },
  // The same header twice: whichever the stack reads, the other must not widen access.
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom<TokenName>('A', 'B', 'readA', 'revokedA', 'app'), fc.constantFrom<TokenName | 'nope'>('A', 'B', 'revokedA', 'nope')).map(([a, b]): Array<[string, string]> => [['Authorization', `Bearer {{token:${a}}}`], ['Authorization', b === 'nope' ? 'Bearer nope' : `Bearer {{token:${b}}}`]]) },
);

const extraHeader: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('Idempotency-Key', 'Origin', 'Cookie', 'Last-Event-ID', 'Accept', 'Accept-Language', 'X-Forwarded-For', 'User-Agent', 'Referer', 'Sec-WebSocket-Protocol', 'X-Http-Method-Override', 'Range', 'If-None-Match', 'Forwarded', 'X-Request-Id').chain((name) => shortBytes.map((v): Array<[string, string]> => [[name, v]])) },
  { weight: 3, arbitrary: fc.constantFrom<Array<[string, string]>>(
    [['Content-Encoding', 'gzip']], [['Content-Encoding', 'br, deflate']], [['Expect', '100-continue']], [['Expect', 'something-else']],
    [['Accept', 'application/activity+json']], [['Accept', 'text/html']], [['Cookie', '_session_id=%; a=%E0%A4%A; =; ;;']],
    [['Cookie', `x=${'c'.repeat(9_000)}`]], [['Origin', 'null']], [['Host', 'evil.example']], [['Access-Control-Request-Method', 'DELETE']],
    [['X-Forwarded-Proto', 'gopher']], [['Upgrade', 'websocket'], ['Connection', 'Upgrade']], [['Transfer-Encoding', 'gzip']],
    // Compressed answers (lib/http/compress.ts): read back decompressed by the suite, as a client would.
    [['Accept-Encoding', 'gzip, deflate, br']], [['Accept-Encoding', 'gzip;q=1.0, br;q=0']], [['Accept-Encoding', 'br;q=nonsense, *;q=2, ,;']],
  ) },
  // Past Node's 16 KB header limit, and many small headers.
  { weight: 1, arbitrary: fc.constantFrom(17_000, 65_536).map((n): Array<[string, string]> => [['X-Big', 'h'.repeat(n)]]) },
  { weight: 1, arbitrary: fc.constantFrom(120, 2_100).map((n) => Array.from({ length: n }, (_, i): [string, string] => [`X-Many-${i}`, 'v'])) },
);

const FRAMINGS: Framing[] = [
  'http10', 'no-host', 'bad-version', 'garbage-line', 'lowercase-method', 'chunked', 'bad-chunked', 'cl-and-te', 'lf-only',
  'header-no-colon', 'space-before-colon', 'obs-fold', 'absolute-uri', 'short-content-length', 'nul-in-header', 'connect',
];

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO', 'M-SEARCH'];

// ---------------------------------------------------------------------------

/** Hostile requests to one route. */
export function requestArb(route: Route): fc.Arbitrary<FuzzRequest> {
  const method = route.method === 'ANY'
    ? fc.constantFrom(...OTHER_METHODS)
    : fc.oneof({ weight: 8, arbitrary: fc.constant(route.method) }, { weight: 2, arbitrary: fc.constantFrom(...OTHER_METHODS.filter((m) => m !== route.method)) });
  return fc.record({
    method,
    path: pathArb(route),
    query: queryString,
    body: bodyArb,
    auth: authHeaders,
    extra: fc.array(extraHeader, { maxLength: 2 }),
    duplicateContentType: fc.oneof({ weight: 12, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_TYPES) }),
    framing: fc.oneof({ weight: 40, arbitrary: fc.constant<Framing>('normal') }, { weight: 1, arbitrary: fc.constantFrom(...FRAMINGS) }),
  }).map(({ method, path, query, body, auth, extra, duplicateContentType, framing }): FuzzRequest => {
    const headers: Array<[string, string]> = [...auth, ...extra.flat()];
    if (body.contentType !== null) headers.push(['Content-Type', body.contentType]);
    if (duplicateContentType !== null) headers.push(['Content-Type', duplicateContentType]);
    return {
      route: route.key,
      stream: route.stream,
      method,
      target: query ? `${path}?${query}` : path,
      headers: headers.map(([k, v]) => [k, v.replace(/[\r\n]/g, ' ')]),
      body: body.body,
      framing,
    };
  });
}

/**
 * Requests every route gets in every run, whatever the seed: the ones issue 9 reports.
 * A multipart file part that ends before its closing boundary (busboy's unheard 'error'
 * took the whole local stack down), and a 64 KB query string (Node's bare 431).
 */
export function knownCases(route: Route): FuzzRequest[] {
  const path = route.path === '*'
    ? '/api/v1/nothing/here'
    : route.path.replace(/\{([^}]+)\}/g, (_, param: string) => `{{id:${idsFor(route, param)[0]}}}`);
  const method = route.method === 'ANY' ? 'POST' : route.method;
  const boundary = '----truncated7MA4YWxkTrZu0gW';
  const truncated = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n`;
  const base = { route: route.key, stream: route.stream, method, framing: 'normal' as const };
  return [
    { ...base, target: path, headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`]], body: truncated },
    { ...base, target: `${path}?q=${'x'.repeat(65_536)}`, headers: [['Authorization', 'Bearer {{token:A}}']], body: '' },
  ];
}
