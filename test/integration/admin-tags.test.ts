// Admin tags (GET /api/v1/admin/tags, GET and PUT /api/v1/admin/tags/:id): the tags used here by id as
// Admin::Tag, and what an update does: display_name respells the tag, trendable is a trends decision,
// usable=false keeps the tag out of new posts (plain text, no tag timeline entry), listable=false keeps it off
// hashtag search suggestions. Every update is in the audit log.
import { handler as tagsIndex } from '../../functions/admin_tags/index';
import { handler as tagShow } from '../../functions/admin_tags/show';
import { handler as tagUpdate } from '../../functions/admin_tags/update';
import { handler as search } from '../../functions/search/v2';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as tagTimeline } from '../../functions/timelines/tag';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { setRole } from '../../lib/db/accounts';
import { auditLogPage } from '../../lib/db/audit_log';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { tagId } from '../../lib/render/tag';
import { aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);

type AdminTag = { id: string; name: string; url: string; history: { day: string; uses: string; accounts: string }[]; trendable: boolean; usable: boolean; requires_review: boolean; listable: boolean };

const post = async (user: UserFixture, status: string) => {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status }, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string; content: string; tags: { name: string }[] };
};
const show = (id: string, token: string) => call(tagShow, { path: `/api/v1/admin/tags/${id}`, pathParameters: { id }, token });
const update = (id: string, json: Record<string, unknown>, token: string) =>
  call(tagUpdate, { method: 'PUT', path: `/api/v1/admin/tags/${id}`, pathParameters: { id }, json, token });
const freshTag = () => `tag${newId().slice(-9)}`;

describe('admin tags', () => {
  let moderator: UserFixture;
  let author: UserFixture;
  beforeAll(async () => {
    moderator = await aUser({ scopes: ['read', 'write', 'admin:read', 'admin:write'] });
    await setRole(moderator.account.id, '1', false);
    author = await aUser();
  });

  it('lists the tags used here by id as Admin::Tag, paged with Link', async () => {
    const [first, second] = [freshTag(), freshTag()];
    await post(author, `#${first} and #${second}`);
    const all = await call(tagsIndex, { path: '/api/v1/admin/tags', token: moderator.token, query: { limit: '200' } });
    expect(all.status).toBe(200);
    const listed = all.body as AdminTag[];
    const entry = listed.find((t) => t.name === first);
    expect(entry).toEqual({
      id: tagId(first),
      name: first,
      url: expect.stringContaining(`/tags/${first}`),
      history: expect.any(Array),
      trendable: false,
      usable: true,
      requires_review: true,
      listable: true,
    });
    expect(entry!.history).toHaveLength(7);
    expect(entry!.history[0]).toMatchObject({ uses: '1', accounts: '1' });
    // Newest id first, as Mastodon's id-paged lists.
    const ids = listed.map((t) => BigInt(t.id));
    expect([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(ids);

    const page = await call(tagsIndex, { path: '/api/v1/admin/tags', token: moderator.token, query: { limit: '1' } });
    expect(page.body).toHaveLength(1);
    const next = /<([^>]+)>; rel="next"/.exec(String(page.headers.link))?.[1];
    expect(next).toContain(`max_id=${(page.body as AdminTag[])[0]!.id}`);
    const nextPage = await call(tagsIndex, { path: '/api/v1/admin/tags', token: moderator.token, query: Object.fromEntries(new URL(next!).searchParams) });
    expect((nextPage.body as AdminTag[])[0]!.id).toBe(listed[1]!.id);
  });

  it('shows one tag; 404 for an unknown or malformed id', async () => {
    const tag = freshTag();
    await post(author, `#${tag}`);
    const res = await show(tagId(tag), moderator.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tagId(tag), name: tag, usable: true, listable: true, requires_review: true });
    for (const id of ['123456789', 'nope']) {
      const missing = await show(id, moderator.token);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: 'Record not found' });
      expect((await update(id, { trendable: true }, moderator.token)).status).toBe(404);
    }
  });

  it('updates display_name and trendable, reviewed now, and records the update', async () => {
    const tag = freshTag();
    await post(author, `#${tag}`);
    const res = await update(tagId(tag), { display_name: tag.toUpperCase(), trendable: true }, moderator.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tagId(tag), name: tag.toUpperCase(), trendable: true, requires_review: false, usable: true, listable: true });
    expect((await show(tagId(tag), moderator.token)).body).toMatchObject({ name: tag.toUpperCase(), trendable: true });
    expect((await auditLogPage({ limit: 1 }))[0]).toMatchObject({ accountId: moderator.account.id, action: 'update', targetType: 'Tag', targetId: tagId(tag) });

    // A display name must be the same tag.
    const other = await update(tagId(tag), { display_name: 'something_else' }, moderator.token);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ error: 'Validation failed: Display name does not match the tag' });
    const bad = await update(tagId(tag), { usable: 'perhaps' }, moderator.token);
    expect(bad.status).toBe(422);
    expect(String((bad.body as { error: string }).error)).toContain('usable');
  });

  it('usable=false: new posts keep the tag as plain text, out of the status tags and the tag timeline', async () => {
    const tag = freshTag();
    const before = await post(author, `before #${tag}`);
    expect(before.tags.map((t) => t.name)).toEqual([tag]);
    expect((await update(tagId(tag), { usable: false }, moderator.token)).body).toMatchObject({ usable: false });

    const after = await post(author, `after #${tag}`);
    expect(after.tags).toEqual([]);
    expect(after.content).toBe(`<p>after #${tag}</p>`);
    const timeline = await call(tagTimeline, { path: `/api/v1/timelines/tag/${tag}`, pathParameters: { hashtag: tag }, token: author.token });
    expect((timeline.body as { id: string }[]).map((s) => s.id)).toEqual([before.id]);

    // Usable again, the tag links and indexes as before.
    await update(tagId(tag), { usable: true }, moderator.token);
    expect((await post(author, `again #${tag}`)).tags.map((t) => t.name)).toEqual([tag]);
  });

  it('listable=false keeps the tag off hashtag search suggestions', async () => {
    const tag = freshTag();
    await post(author, `#${tag}`);
    const suggested = async () =>
      ((await call(search, { path: '/api/v2/search', token: author.token, query: { q: tag, type: 'hashtags' } })).body as { hashtags: { name: string }[] }).hashtags.map((h) => h.name);
    expect(await suggested()).toContain(tag);
    expect((await update(tagId(tag), { listable: false }, moderator.token)).body).toMatchObject({ listable: false });
    expect(await suggested()).not.toContain(tag);
  });

  it('answers 403 without manage_taxonomies or the admin scopes', async () => {
    const tag = freshTag();
    await post(author, `#${tag}`);
    const nobody = await aUser({ scopes: ['admin:read', 'admin:write'] });
    expect((await call(tagsIndex, { path: '/api/v1/admin/tags', token: nobody.token })).status).toBe(403);
    expect((await show(tagId(tag), nobody.token)).body).toEqual({ error: 'This action is not allowed' });
    expect((await update(tagId(tag), { usable: false }, nobody.token)).status).toBe(403);
    const readOnly = await aUser({ scopes: ['admin:read'] });
    await setRole(readOnly.account.id, '2', false);
    expect((await show(tagId(tag), readOnly.token)).status).toBe(200);
    const refused = await update(tagId(tag), { usable: false }, readOnly.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'This action is outside the authorized scopes' });
    expect((await show(tagId(tag), moderator.token)).body).toMatchObject({ usable: true });
  });
});
