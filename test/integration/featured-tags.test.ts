import { handler as create } from '../../functions/featured_tags/create';
import { handler as remove } from '../../functions/featured_tags/delete';
import { handler as index } from '../../functions/featured_tags/index';
import { handler as suggestions } from '../../functions/featured_tags/suggestions';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { featuredTagsOf } from '../../lib/db/featured_tags';
import { dayOf, recordTagUses } from '../../lib/db/tags';
import type { Status } from '../../lib/db/statuses';
import { tagUseReach } from '../../lib/policy';
import { tagNamesOf } from '../../lib/text/tags';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { call, type Call } from '../support/http';
import { anAppToken, aStoredStatus, aUser, type UserFixture } from '../support/factories';

/** Counts a status's tags as the fan-out does: as far as its visibility reaches. */
const countTagUses = (status: Status) => recordTagUses(status, tagUseReach(status), tagNamesOf(status));

registerInlineWorker('fanout', fanoutWorker);

const DAY = 24 * 60 * 60 * 1000;
const list = (token: string | undefined) => call(index, { path: '/api/v1/featured_tags', token });
const feature = (token: string | undefined, body: Pick<Call, 'json' | 'form' | 'body'>) =>
  call(create, { method: 'POST', path: '/api/v1/featured_tags', token, ...body });
const unfeature = (token: string | undefined, id: string) =>
  call(remove, { method: 'DELETE', path: `/api/v1/featured_tags/${id}`, pathParameters: { id }, token });
const suggest = (token: string | undefined) => call(suggestions, { path: '/api/v1/featured_tags/suggestions', token });
const post = async (user: UserFixture, status: string, visibility = 'public') => {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status, visibility }, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string; created_at: string };
};

describe('featured tags', () => {
  let user: UserFixture;
  let other: UserFixture;

  beforeAll(async () => {
    [user, other] = await Promise.all([aUser(), aUser()]);
  });

  it('features a tag with the counts of the user’s public and unlisted statuses using it', async () => {
    await post(user, 'one #Photography');
    const last = await post(user, 'two #photography', 'unlisted');
    await post(user, 'three #photography', 'private');
    await post(other, 'not mine #photography');

    const res = await feature(user.token, { form: { name: '#Photography' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Photography',
      url: expect.stringMatching(new RegExp(`/@${user.account.username}/tagged/photography$`)),
      // As spec/api.md types a FeaturedTag: the count an integer, the last status's datetime.
      statuses_count: 2,
      last_status_at: last.created_at,
    });

    const listed = await list(user.token);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([res.body]);
    expect((await list(other.token)).body).toEqual([]);
  });

  it('features a tag never used, with no statuses', async () => {
    const res = await feature(other.token, { json: { name: 'unused' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'unused', statuses_count: 0, last_status_at: null });
    expect((await unfeature(other.token, (res.body as { id: string }).id)).body).toEqual({});
  });

  it('unfeatures only the user’s own featured tags', async () => {
    const created = await feature(user.token, { json: { name: 'goner' } });
    const id = (created.body as { id: string }).id;
    const foreign = await unfeature(other.token, id);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: 'Record not found' });

    const res = await unfeature(user.token, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await featuredTagsOf(user.account.id)).map((t) => t.name)).not.toContain('goner');
    expect((await unfeature(user.token, id)).status).toBe(404);
    // The name can be featured again once removed.
    const again = await feature(user.token, { json: { name: 'goner' } });
    expect(again.status).toBe(200);
    await unfeature(user.token, (again.body as { id: string }).id);
  });

  it('allows at most 10 featured tags', async () => {
    const someone = await aUser();
    for (let i = 0; i < 10; i++) expect((await feature(someone.token, { json: { name: `tag${i}` } })).status).toBe(200);
    const res = await feature(someone.token, { json: { name: 'eleventh' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Validation failed: You have already featured the maximum number of hashtags' });
    expect(await featuredTagsOf(someone.account.id)).toHaveLength(10);
  });

  describe('rejects bad input and writes nothing', () => {
    let readOnly: string;
    beforeAll(async () => {
      readOnly = (await aUser({ scopes: ['read'] })).token;
    });

    it.each([
      ['a missing name', { json: {} }, 422, /Validation failed/],
      ['a name of the wrong type', { json: { name: ['a'] } }, 422, /Validation failed/],
      ['an empty name', { json: { name: '' } }, 422, /^Validation failed: Tag is invalid$/],
      ['a name with spaces', { json: { name: 'two words' } }, 422, /^Validation failed: Tag is invalid$/],
      ['a name of digits only', { json: { name: '1234' } }, 422, /^Validation failed: Tag is invalid$/],
      ['an oversized name', { json: { name: 'a'.repeat(101) } }, 422, /Validation failed/],
      ['an already featured tag, in another case', { json: { name: 'PHOTOGRAPHY' } }, 422, /^Validation failed: Tag has already been taken$/],
      ['malformed JSON', { body: { data: '{"name":', contentType: 'application/json' } }, 400, /./],
    ])('%s', async (_, body, status, message) => {
      const before = await featuredTagsOf(user.account.id);
      const res = await feature(user.token, body);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
      expect(await featuredTagsOf(user.account.id)).toEqual(before);
    });

    it.each([
      ['no token', () => undefined, 401],
      ['a read-only token', () => readOnly, 403],
    ])('POST with %s', async (_, token, status) => {
      const before = await featuredTagsOf(user.account.id);
      const res = await feature(token(), { json: { name: 'nope' } });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect(await featuredTagsOf(user.account.id)).toEqual(before);
    });

    it('answers 422 for an app token and 404 for unknown or malformed ids', async () => {
      const app = await anAppToken(['read', 'write']);
      expect((await list(app.token)).status).toBe(422);
      for (const id of ['999999', 'abc']) {
        const res = await unfeature(user.token, id);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'Record not found' });
      }
      const before = await featuredTagsOf(user.account.id);
      const [first] = before;
      expect((await unfeature(readOnly, first?.id ?? '1')).status).toBe(403);
      expect(await featuredTagsOf(user.account.id)).toEqual(before);
    });
  });

  it('suggests the user’s 10 most-used tags of the past week not yet featured, with history', async () => {
    const writer = await aUser();
    const old = new Date(Date.now() - 8 * DAY);
    await countTagUses(await aStoredStatus(writer.account, { id: newId(old), createdAt: old.toISOString(), text: '#ancient', tags: ['ancient'] }));
    const yesterday = new Date(Date.now() - DAY);
    for (let i = 0; i < 3; i++) {
      await countTagUses(await aStoredStatus(writer.account, { id: newId(yesterday), createdAt: yesterday.toISOString(), text: '#Weekly', tags: ['weekly'], tagNames: ['Weekly'] }));
    }
    for (let i = 0; i < 12; i++) await post(writer, `#t${String(i).padStart(2, '0')} ${i < 2 ? '#t00' : ''}`);
    await post(writer, 'private #Weekly', 'private');
    await feature(writer.token, { json: { name: 't01' } });

    const res = await suggest(writer.token);
    expect(res.status).toBe(200);
    const tags = res.body as { name: string; history: { day: string; uses: string; accounts: string }[] }[];
    expect(tags.map((t) => t.name)).toEqual(['Weekly', 't00', 't02', 't03', 't04', 't05', 't06', 't07', 't08', 't09']);
    const weekly = tags[0];
    expect(weekly?.history).toHaveLength(7);
    // History counts public uses of everyone, as trends do.
    expect(weekly?.history[1]).toEqual({ day: String(Date.parse(`${dayOf(yesterday)}T00:00:00Z`) / 1000), uses: '3', accounts: '1' });
    expect(weekly?.history[0]).toMatchObject({ uses: '0' });
    expect((await suggest((await aUser()).token)).body).toEqual([]);
  });
});

describe('bad input on every featured tag endpoint (audit)', () => {
  let owner: UserFixture;
  let id: string;
  beforeAll(async () => {
    owner = await aUser();
    const res = await feature(owner.token, { json: { name: 'Audited' } });
    expect(res.status).toBe(200);
    id = (res.body as { id: string }).id;
  });
  const expectUnchanged = async () => expect((await featuredTagsOf(owner.account.id)).map((t) => [t.id, t.name])).toEqual([[id, 'Audited']]);

  const endpoints: [string, 'read' | 'write', (token: string | undefined) => ReturnType<typeof call>][] = [
    ['GET /api/v1/featured_tags', 'read', (t) => list(t)],
    ['POST /api/v1/featured_tags', 'write', (t) => feature(t, { json: { name: 'another' } })],
    ['DELETE /api/v1/featured_tags/:id', 'write', (t) => unfeature(t, id)],
    ['GET /api/v1/featured_tags/suggestions', 'read', (t) => suggest(t)],
  ];

  it.each(endpoints)('%s refuses a missing (401), invalid (401), app (422) and wrong-scope (403) token, writing nothing', async (_name, kind, run) => {
    const app = await anAppToken(['read', 'write']);
    const wrong = await aUser({ scopes: kind === 'read' ? ['write:accounts', 'read:statuses'] : ['read:accounts', 'write:statuses'] });
    const answers = [await run(undefined), await run('not-a-token'), await run(app.token), await run(wrong.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    expect(await featuredTagsOf(wrong.account.id)).toEqual([]);
    await expectUnchanged();
  });

  it.each([
    ['an oversized id', '123456789012345678901'],
    ['a negative id', '-1'],
    ['a blank id', ' '],
    ['a tag name instead of an id', 'Audited'],
  ])('DELETE of %s answers 404, removing nothing', async (_name, bad) => {
    const res = await unfeature(owner.token, bad);
    expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    await expectUnchanged();
  });

  it.each([
    ['a lone #', '#'],
    ['a double ##', '##tag'],
    ['punctuation', 'tag!'],
    ['a NUL character', 'ta\u0000g'],
    ['an object', { a: 'tag' }],
    ['null', null],
    ['a number', 5],
  ])('POST with a name that is %s answers 422, writing nothing', async (_name, name) => {
    const res = await feature(owner.token, { json: { name } });
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    await expectUnchanged();
  });
});
