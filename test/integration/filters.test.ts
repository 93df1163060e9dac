import { handler as index } from '../../functions/filters/index';
import { handler as create } from '../../functions/filters/create';
import { handler as show } from '../../functions/filters/show';
import { handler as update } from '../../functions/filters/update';
import { handler as remove } from '../../functions/filters/delete';
import { dynamo } from '../../lib/aws';
import { filtersOf } from '../../lib/db/filters';
import { activeFilters, filterMatcher, statusMatches } from '../../lib/policy';
import { handler as homeHandler } from '../../functions/timelines/home';
import * as keys from '../../lib/db/keys';
import { batchWrite, updateItem } from '../../lib/db/table';
import { homeEntryRecord } from '../../lib/db/timelines';
import { z } from 'zod';
import { aFollow, anAppToken, aPostedReblog, aPostedStatus, aUser, type UserFixture } from '../support/factories';

/** Moves a filter's expiry into the past (the clock cannot wait a second in a test). */
const dropExpiry = (accountId: string, id: string) =>
  updateItem({ Key: keys.filter(accountId, id), UpdateExpression: 'SET expiresAt = :t', ExpressionAttributeValues: { ':t': new Date(Date.now() - 1000).toISOString() } }, z.unknown());
import { call } from '../support/http';

const add = (token: string | undefined, json: Record<string, unknown>) => call(create, { method: 'POST', path: '/api/v1/filters', json, token });
const list = (token: string | undefined) => call(index, { method: 'GET', path: '/api/v1/filters', token });
const get = (token: string | undefined, id: string) => call(show, { method: 'GET', path: `/api/v1/filters/${id}`, pathParameters: { id }, token });
const put = (token: string | undefined, id: string, json: Record<string, unknown>) =>
  call(update, { method: 'PUT', path: `/api/v1/filters/${id}`, pathParameters: { id }, json, token });
const del = (token: string | undefined, id: string) => call(remove, { method: 'DELETE', path: `/api/v1/filters/${id}`, pathParameters: { id }, token });

async function filterCount(): Promise<number> {
  const out = await dynamo().scan({ TableName: process.env.TABLE_NAME!, FilterExpression: 'begins_with(PK, :f)', ExpressionAttributeValues: { ':f': 'FILTERS#' }, Select: 'COUNT' });
  return out.Count ?? 0;
}

describe('filters (v1)', () => {
  let user: UserFixture;
  let other: UserFixture;
  beforeAll(async () => {
    [user, other] = await Promise.all([aUser(), aUser()]);
  });

  it('creates, shows, lists, updates and deletes a filter, as Mastodon renders it', async () => {
    const before = Date.now();
    const res = await add(user.token, { phrase: ' spoilers ', context: ['home', 'public'], irreversible: true, expires_in: 3600 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      phrase: 'spoilers',
      context: ['home', 'public'],
      whole_word: true,
      expires_at: expect.any(String),
      irreversible: true,
    });
    const expires = Date.parse(String(res.body.expires_at));
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000);
    expect(expires).toBeLessThan(Date.now() + 3600_000 + 1000);
    const id = String(res.body.id);

    expect((await get(user.token, id)).body).toEqual(res.body);
    expect((await list(user.token)).body).toEqual([res.body]);
    expect((await list(other.token)).body).toEqual([]);

    const changed = await put(user.token, id, { phrase: 'Plot', context: ['thread'], whole_word: false, expires_in: null });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ id, phrase: 'Plot', context: ['thread'], whole_word: false, expires_at: null, irreversible: true });

    const gone = await del(user.token, id);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({});
    expect((await get(user.token, id)).status).toBe(404);
    expect(await filtersOf(user.account.id)).toEqual([]);
  });

  it('accepts form-style context[] and defaults (whole_word true, irreversible false, no expiry)', async () => {
    const res = await call(create, { method: 'POST', path: '/api/v1/filters', form: { phrase: 'cats', 'context[]': ['notifications'] }, token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ phrase: 'cats', context: ['notifications'], whole_word: true, irreversible: false, expires_at: null });
    await del(user.token, String(res.body.id));
  });

  it('another account\'s filter is not found (404) for show, update and delete', async () => {
    const mine = await add(user.token, { phrase: 'mine', context: ['home'] });
    const id = String(mine.body.id);
    expect((await get(other.token, id)).status).toBe(404);
    expect((await put(other.token, id, { phrase: 'x' })).status).toBe(404);
    expect((await del(other.token, id)).status).toBe(404);
    expect((await get(user.token, id)).body).toEqual(mine.body);
    await del(user.token, id);
  });

  it('matches as Mastodon: case-insensitive, whole words only where the phrase starts or ends with a word character, expired filters stop applying', () => {
    const base = { id: '1', accountId: '1', context: ['home' as const], irreversible: true, expiresAt: null, createdAt: '' };
    const whole = filterMatcher([{ ...base, phrase: 'cat', wholeWord: true }]);
    expect(statusMatches({ text: 'A CAT here', spoilerText: '' }, whole)).toBe(true);
    expect(statusMatches({ text: 'concatenate', spoilerText: '' }, whole)).toBe(false);
    expect(statusMatches({ text: 'x', spoilerText: 'cat!' }, whole)).toBe(true);
    const partial = filterMatcher([{ ...base, phrase: 'cat', wholeWord: false }]);
    expect(statusMatches({ text: 'concatenate', spoilerText: '' }, partial)).toBe(true);
    const symbol = filterMatcher([{ ...base, phrase: '#tag', wholeWord: true }]);
    expect(statusMatches({ text: 'see #tag.', spoilerText: '' }, symbol)).toBe(true);
    expect(statusMatches({ text: 'see #tagged', spoilerText: '' }, symbol)).toBe(false);
    const expired = { ...base, phrase: 'x', wholeWord: true, expiresAt: new Date(Date.now() - 1000).toISOString() };
    expect(activeFilters([expired], 'home')).toEqual([]);
    expect(activeFilters([{ ...expired, expiresAt: null }], 'home')).toHaveLength(1);
    expect(activeFilters([{ ...expired, expiresAt: null }], 'public')).toEqual([]);
    expect(activeFilters([{ ...expired, expiresAt: null, irreversible: false }], 'home', Date.now(), true)).toEqual([]);
  });

  it('irreversible home filters drop matching statuses (and reblogs of them) from the home timeline on read; expired, reversible and own ones do not', async () => {
    const reader = await aUser();
    const author = await aUser();
    await aFollow(reader.account, author.account);
    const plain = await aPostedStatus(author.account, { text: 'nice weather' });
    const spoiler = await aPostedStatus(author.account, { text: 'the Ending of the show' });
    const hidden = await aPostedStatus(author.account, { text: 'ok', spoilerText: 'ending inside' });
    const own = await aPostedStatus(reader.account, { text: 'my own ending' });
    const reblog = await aPostedReblog(author.account, await aPostedStatus(other.account, { text: 'a reblogged ending' }));
    // What fan-out writes into the reader's home.
    await batchWrite([plain, spoiler, hidden, reblog].map((st) => homeEntryRecord(reader.account.id, st, false)));
    const home = async () => ((await call(homeHandler, { method: 'GET', path: '/api/v1/timelines/home', token: reader.token })).body as { id: string }[]).map((s) => s.id);
    const all = await home();
    expect(all).toEqual(expect.arrayContaining([plain.id, spoiler.id, hidden.id, own.id, reblog.id]));

    const reversible = await add(reader.token, { phrase: 'ending', context: ['home'], irreversible: false });
    expect(await home()).toEqual(all);
    const wrongContext = await add(reader.token, { phrase: 'ending', context: ['public'], irreversible: true });
    expect(await home()).toEqual(all);
    const filter = await add(reader.token, { phrase: 'ending', context: ['home'], irreversible: true });
    const filtered = await home();
    expect(filtered).toEqual(all.filter((id) => ![spoiler.id, hidden.id, reblog.id].includes(id)));
    expect(filtered).toContain(own.id);

    // Expired: stops applying.
    await put(reader.token, String(filter.body.id), { expires_in: 1 });
    await dropExpiry(reader.account.id, String(filter.body.id));
    expect(await home()).toEqual(all);
    for (const f of [reversible, wrongContext, filter]) await del(reader.token, String(f.body.id));
  });

  describe('rejects bad input with 4xx and writes nothing', () => {
    it.each([
      ['no phrase', { context: ['home'] }, /Phrase can't be blank/],
      ['a blank phrase', { phrase: '   ', context: ['home'] }, /Phrase can't be blank/],
      ['no context', { phrase: 'x' }, /Context can't be blank/],
      ['an empty context', { phrase: 'x', context: [] }, /Context None or invalid context supplied/],
      ['an unknown context', { phrase: 'x', context: ['home', 'everywhere'] }, /Context None or invalid context supplied/],
      ['a context that is not an array', { phrase: 'x', context: { a: 1 } }, /context must be an array/],
      ['a number as phrase', { phrase: 5, context: ['home'] }, /phrase must be a string/],
      ['an oversized phrase', { phrase: 'x'.repeat(1001), context: ['home'] }, /too long/],
      ['expires_in not a number', { phrase: 'x', context: ['home'], expires_in: 'soon' }, /expires_in must be a number/],
      ['a negative expires_in', { phrase: 'x', context: ['home'], expires_in: -5 }, /expires_in must be positive/],
      ['irreversible not a boolean', { phrase: 'x', context: ['home'], irreversible: 'maybe' }, /irreversible must be a boolean/],
    ])('POST with %s answers 422', async (_name, body, message) => {
      const before = await filterCount();
      const res = await add(user.token, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
      expect(await filterCount()).toBe(before);
    });

    it.each([
      ['a blank phrase', { phrase: ' ' }],
      ['an unknown context', { context: ['nowhere'] }],
      ['an empty context', { context: [] }],
      ['a bad whole_word', { whole_word: 'perhaps' }],
    ])('PUT with %s answers 422 and changes nothing', async (_name, body) => {
      const created = await add(user.token, { phrase: 'keep', context: ['home'] });
      const id = String(created.body.id);
      const res = await put(user.token, id, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await get(user.token, id)).body).toEqual(created.body);
      await del(user.token, id);
    });

    it.each([['an unknown id', '123456789'], ['a malformed id', 'abc']])('%s answers 404 everywhere', async (_name, id) => {
      expect((await get(user.token, id)).status).toBe(404);
      expect((await put(user.token, id, { phrase: 'x' })).status).toBe(404);
      expect((await del(user.token, id)).status).toBe(404);
      expect(await filterCount()).toBe(0);
    });

    it('malformed JSON answers 400', async () => {
      const res = await call(create, { method: 'POST', path: '/api/v1/filters', body: { data: '{"phrase":', contentType: 'application/json' }, token: user.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it.each([
      ['no token', async () => undefined, 401],
      ['an app token', async () => (await anAppToken(['read', 'write'])).token, 422],
      ['a token without filters scopes', async () => (await aUser({ scopes: ['read:statuses', 'write:statuses'] })).token, 403],
    ])('refuses %s on every endpoint', async (_name, token, status) => {
      const created = await add(user.token, { phrase: 'guarded', context: ['home'] });
      const id = String(created.body.id);
      const t = await token();
      const before = await filterCount();
      for (const res of [await list(t), await add(t, { phrase: 'x', context: ['home'] }), await get(t, id), await put(t, id, { phrase: 'y' }), await del(t, id)]) {
        expect(res.status).toBe(status);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      expect(await filterCount()).toBe(before);
      expect((await get(user.token, id)).body).toEqual(created.body);
      await del(user.token, id);
    });
  });
});

describe('bad input on every filter endpoint (audit)', () => {
  let owner: UserFixture;
  let id: string;
  let created: Record<string, unknown>;
  beforeAll(async () => {
    owner = await aUser();
    const res = await add(owner.token, { phrase: 'audited', context: ['home', 'thread'], irreversible: true });
    expect(res.status).toBe(200);
    created = res.body;
    id = String(res.body.id);
  });

  /** The audited filter is as created, and it is the owner's only one. */
  const expectUnchanged = async () => expect((await list(owner.token)).body).toEqual([created]);

  const endpoints: [string, 'read' | 'write', (token: string | undefined) => ReturnType<typeof call>][] = [
    ['GET /api/v1/filters', 'read', (t) => list(t)],
    ['GET /api/v1/filters/:id', 'read', (t) => get(t, id)],
    ['POST /api/v1/filters', 'write', (t) => add(t, { phrase: 'x', context: ['home'] })],
    ['PUT /api/v1/filters/:id', 'write', (t) => put(t, id, { phrase: 'changed' })],
    ['DELETE /api/v1/filters/:id', 'write', (t) => del(t, id)],
  ];

  it.each(endpoints)('%s refuses an invalid token (401) and the opposite filters scope (403), writing nothing', async (_name, kind, run) => {
    const opposite = await aUser({ scopes: kind === 'read' ? ['write:filters', 'read:statuses'] : ['read:filters', 'write:statuses'] });
    const before = await filterCount();
    const answers = [await run('not-a-token'), await run(`${owner.token.slice(0, -1)}?`), await run(opposite.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 403]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    expect(await filterCount()).toBe(before);
    await expectUnchanged();
  });

  it.each(endpoints)('%s is allowed with the parent scope (read or write)', async (_name, kind, run) => {
    const parent = await aUser({ scopes: [kind] });
    const res = await run(parent.token);
    // The parent-scoped user owns no filter: the id endpoints answer 404, which is past the scope check.
    expect([200, 404]).toContain(res.status);
    await expectUnchanged();
    const mine = await filtersOf(parent.account.id);
    for (const f of mine) await del(parent.token, f.id);
  });

  it.each([
    ['an oversized id', '123456789012345678901'],
    ['a negative id', '-5'],
    ['a blank id', ' '],
  ])('show, update and delete of %s answer 404', async (_name, bad) => {
    for (const res of [await get(owner.token, bad), await put(owner.token, bad, { phrase: 'x' }), await del(owner.token, bad)]) {
      expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    }
    await expectUnchanged();
  });

  it.each([
    ['a null context', { context: null }],
    ['nested context arrays', { context: [['home']] }],
    ['a context with one bad value among good ones', { context: ['home', 'Home'] }],
    ['eleven contexts', { context: Array.from({ length: 11 }, () => 'home') }],
    ['a phrase that is an object', { phrase: { a: 1 } }],
    ['an oversized phrase', { phrase: 'x'.repeat(1001) }],
    ['a zero expires_in', { expires_in: 0 }],
    ['a fractional expires_in', { expires_in: 1.5 }],
    ['an expires_in beyond ten years', { expires_in: 10 * 365 * 86400 + 1 }],
    ['an expires_in in exponent notation', { expires_in: '1e3' }],
    ['irreversible that is a list', { irreversible: [true] }],
    ['whole_word that is an object', { whole_word: { a: true } }],
  ])('PUT with %s answers 422 and changes nothing', async (_name, body) => {
    const res = await put(owner.token, id, body);
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    await expectUnchanged();
  });

  it.each([
    ['form context[] with an unknown value', { phrase: 'x', 'context[]': ['home', 'everywhere'] }],
    ['form context[] left empty', { phrase: 'x', 'context[]': [''] }],
    ['a form expires_in that is not a number', { phrase: 'x', 'context[]': ['home'], expires_in: 'tomorrow' }],
    ['a form irreversible that is not a boolean', { phrase: 'x', 'context[]': ['home'], irreversible: 'sometimes' }],
  ])('POST as a form with %s answers 422 and writes nothing', async (_name, form) => {
    const before = await filterCount();
    const res = await call(create, { method: 'POST', path: '/api/v1/filters', form, token: owner.token });
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    expect(await filterCount()).toBe(before);
    await expectUnchanged();
  });
});
