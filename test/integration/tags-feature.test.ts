// Mastodon 4.4's POST /api/v1/tags/:name/feature and …/unfeature: the tag featured on the caller's profile
// (the same FeaturedTag as POST /api/v1/featured_tags, its limit of 10 included), answered as the Tag entity
// with `featuring`, which every Tag rendered for a signed-in viewer now carries beside `following`.
import { handler as listFeatured } from '../../functions/featured_tags/index';
import { handler as createFeatured } from '../../functions/featured_tags/create';
import { handler as followedTags } from '../../functions/followed_tags/index';
import { handler as featureTag } from '../../functions/tags/feature';
import { handler as followTag } from '../../functions/tags/follow';
import { handler as showTag } from '../../functions/tags/show';
import { handler as unfeatureTag } from '../../functions/tags/unfeature';
import { featuredTagsOf } from '../../lib/db/featured_tags';
import { tagId } from '../../lib/render/tag';
import { call } from '../support/http';
import { anAppToken, aUser, type UserFixture } from '../support/factories';

type Tag = { id: string; name: string; url: string; history: unknown[]; following?: boolean; featuring?: boolean };

const path = (name: string) => ({ name: encodeURIComponent(name) });
const feature = (name: string, token?: string) => call(featureTag, { method: 'POST', path: `/api/v1/tags/${name}/feature`, pathParameters: path(name), token });
const unfeature = (name: string, token?: string) => call(unfeatureTag, { method: 'POST', path: `/api/v1/tags/${name}/unfeature`, pathParameters: path(name), token });
const show = (name: string, token?: string) => call(showTag, { path: `/api/v1/tags/${name}`, pathParameters: path(name), token });
const featuredList = (token: string) => call(listFeatured, { path: '/api/v1/featured_tags', token });
const featuredNames = async (user: UserFixture) => (await featuredTagsOf(user.account.id)).map((t) => t.tag).sort();

describe('POST /api/v1/tags/:name/feature and /unfeature', () => {
  let user: UserFixture;
  beforeAll(async () => {
    user = await aUser();
  });

  it('features a tag (idempotently), lists it among the featured tags, shows `featuring`, and unfeatures it (idempotently)', async () => {
    const first = await feature('Gardening', user.token);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: tagId('gardening'),
      name: 'Gardening',
      url: 'https://social.example/tags/Gardening',
      history: expect.any(Array),
      following: false,
      featuring: true,
    });
    expect((first.body as Tag).history).toHaveLength(7);

    // Featuring again changes nothing: still one featured tag.
    const again = await feature('gardening', user.token);
    expect([again.status, (again.body as Tag).featuring]).toEqual([200, true]);
    expect(await featuredNames(user)).toEqual(['gardening']);
    const listed = await featuredList(user.token);
    expect(listed.body).toEqual([expect.objectContaining({ name: 'Gardening', statuses_count: 0 })]);

    expect((await show('gardening', user.token)).body).toMatchObject({ featuring: true, following: false });
    expect((await show('gardening', (await aUser()).token)).body).toMatchObject({ featuring: false });
    expect(await show('gardening')).toMatchObject({ status: 200, body: expect.not.objectContaining({ featuring: expect.anything() }) });

    const off = await unfeature('Gardening', user.token);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: tagId('gardening'), name: 'Gardening', featuring: false, following: false });
    expect(await featuredNames(user)).toEqual([]);
    const offAgain = await unfeature('gardening', user.token);
    expect([offAgain.status, (offAgain.body as Tag).featuring]).toEqual([200, false]);
    expect((await show('gardening', user.token)).body).toMatchObject({ featuring: false });
  });

  it('unfeatures a tag featured through POST /api/v1/featured_tags: the same FeaturedTag', async () => {
    const created = await call(createFeatured, { method: 'POST', path: '/api/v1/featured_tags', form: { name: 'Pottery' }, token: user.token });
    expect(created.status).toBe(200);
    expect((await show('pottery', user.token)).body).toMatchObject({ featuring: true });
    // …and a tag featured here answers the create endpoint's "already taken".
    const dup = await call(createFeatured, { method: 'POST', path: '/api/v1/featured_tags', form: { name: 'pottery' }, token: user.token });
    expect([dup.status, dup.body]).toEqual([422, { error: 'Validation failed: Tag has already been taken' }]);
    expect((await unfeature('pottery', user.token)).body).toMatchObject({ featuring: false });
    expect(await featuredNames(user)).toEqual([]);
  });

  it('refuses an 11th featured tag with 422, as the featured-tags limit of 10 says, and features nothing', async () => {
    const full = await aUser();
    for (let i = 0; i < 10; i++) expect((await feature(`limit${i}x`, full.token)).status).toBe(200);
    const res = await feature('limitover', full.token);
    expect([res.status, res.body]).toEqual([422, { error: 'Validation failed: You have already featured the maximum number of hashtags' }]);
    expect(await featuredNames(full)).toHaveLength(10);
    // Featuring one already featured still answers 200 at the limit.
    expect((await feature('limit3x', full.token)).status).toBe(200);
  });

  it('a name that is not a hashtag is 404, as for the other tag endpoints', async () => {
    for (const name of ['%23hash', 'has%20space', '123', 'a-b']) {
      const res = await call(featureTag, { method: 'POST', path: `/api/v1/tags/${name}/feature`, pathParameters: { name }, token: user.token });
      expect([name, res.status]).toEqual([name, 404]);
    }
    expect((await unfeature('123', user.token)).status).toBe(404);
    expect(await featuredNames(user)).toEqual([]);
  });

  it.each([
    ['feature', (t?: string) => feature('scoped', t)],
    ['unfeature', (t?: string) => unfeature('scoped', t)],
  ] as const)('%s refuses no token (401), a bad token (401), an app token (422) and a token without write:accounts (403)', async (_, run) => {
    const app = await anAppToken(['read', 'write']);
    const wrong = await aUser({ scopes: ['read', 'write:follows', 'write:statuses'] });
    const answers = [await run(undefined), await run('not-a-token'), await run(app.token), await run(wrong.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    expect(await featuredNames(wrong)).toEqual([]);
    // The good twin: write:accounts alone is enough.
    const narrow = await aUser({ scopes: ['write:accounts'] });
    expect((await run(narrow.token)).status).toBe(200);
  });

  it('another user’s featured tags are theirs: unfeaturing a tag someone else features changes nothing of theirs', async () => {
    await feature('shared', user.token);
    const other = await aUser();
    expect((await unfeature('shared', other.token)).body).toMatchObject({ featuring: false });
    expect(await featuredNames(user)).toEqual(['shared']);
    await unfeature('shared', user.token);
  });

  it('followed tags carry `featuring` too', async () => {
    const reader = await aUser();
    await call(followTag, { method: 'POST', path: '/api/v1/tags/bees/follow', pathParameters: path('bees'), token: reader.token });
    await call(followTag, { method: 'POST', path: '/api/v1/tags/wasps/follow', pathParameters: path('wasps'), token: reader.token });
    await feature('bees', reader.token);
    const listed = await call(followedTags, { path: '/api/v1/followed_tags', token: reader.token });
    expect((listed.body as Tag[]).map((t) => [t.name, t.following, t.featuring])).toEqual([
      ['wasps', true, false],
      ['bees', true, true],
    ]);
  });
});
