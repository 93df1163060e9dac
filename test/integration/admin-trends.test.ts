// Trends review (GET /api/v1/admin/trends/links, /statuses, /tags, /links/publishers and their approve and
// reject): what moderators decide changes what the public trends show. The instance's trendable_by_default is
// off (Mastodon's default): a new status, link or tag waits for review; an approved one shows, a rejected one
// never does, and with the setting on (the CLI's `settings set trendable-by-default on`) unreviewed ones show.
import type { SQSEvent } from 'aws-lambda';
import { handler as linksIndex } from '../../functions/admin_trends/links';
import { handler as linksApprove } from '../../functions/admin_trends/links_approve';
import { handler as linksReject } from '../../functions/admin_trends/links_reject';
import { handler as publishersIndex } from '../../functions/admin_trends/publishers';
import { handler as publishersApprove } from '../../functions/admin_trends/publishers_approve';
import { handler as publishersReject } from '../../functions/admin_trends/publishers_reject';
import { handler as statusesIndex } from '../../functions/admin_trends/statuses';
import { handler as statusesApprove } from '../../functions/admin_trends/statuses_approve';
import { handler as statusesReject } from '../../functions/admin_trends/statuses_reject';
import { handler as tagsIndex } from '../../functions/admin_trends/tags';
import { handler as tagsApprove } from '../../functions/admin_trends/tags_approve';
import { handler as tagsReject } from '../../functions/admin_trends/tags_reject';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as publicTags } from '../../functions/trends/index';
import { handler as publicLinks } from '../../functions/trends/links';
import { handler as publicStatuses } from '../../functions/trends/statuses';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { main } from '../../lib/admin/cli';
import { setRole, updateAccount } from '../../lib/db/accounts';
import { auditLogPage } from '../../lib/db/audit_log';
import { storeCardOutcome, type PreviewCard } from '../../lib/db/cards';
import { publisherIdOf } from '../../lib/db/trends';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { tagId } from '../../lib/render/tag';
import { countInteraction, countLinkShare } from '../../lib/trends';
import { collectDeliveries } from '../support/activities';
import { aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
collectDeliveries();

const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];
type Handler = typeof linksIndex;

/** A user of the given role ('1' Moderator, '2' Admin), with the admin scopes. */
async function staff(roleId: string | null, scopes = ADMIN_SCOPES): Promise<UserFixture> {
  const user = await aUser({ scopes });
  if (roleId) await setRole(user.account.id, roleId, false);
  return user;
}

const get = (handler: Handler, path: string, token: string, query: Record<string, string> = {}) => call(handler, { path, token, query });
const decide = (handler: Handler, path: string, id: string, token: string) => call(handler, { method: 'POST', path, pathParameters: { id }, token });
const cli = async (...argv: string[]) => {
  const out: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => out.push(t) });
  return { code, out: out.join('\n') };
};

const publicStatusIds = async () => ((await call(publicStatuses, { path: '/api/v1/trends/statuses', query: { limit: '40' } })).body as { id: string }[]).map((s) => s.id);
const publicLinkUrls = async () => ((await call(publicLinks, { path: '/api/v1/trends/links', query: { limit: '20' } })).body as { url: string }[]).map((l) => l.url);
const publicTagNames = async () => ((await call(publicTags, { path: '/api/v1/trends/tags', query: { limit: '20' } })).body as { name: string }[]).map((t) => t.name);

/**
 * Three accounts that interact, share and post for every candidate: an account counts once per status, link and tag,
 * so the same three make each of them trend (each status still needs its own author: one status per author trends).
 */
let crowd: UserFixture[] = [];
beforeAll(async () => {
  crowd = await Promise.all([aUser(), aUser(), aUser()]);
});

/** A public status by a discoverable author, favourited by three others (a trend candidate). */
async function aTrendingStatus(): Promise<string> {
  const author = await aUser();
  await updateAccount(author.account.id, { discoverable: true });
  const status = await aPostedStatus({ ...author.account, discoverable: true });
  for (const fan of crowd) await countInteraction(status, 'favourite', fan.account.id);
  return status.id;
}

const cardOf = (url: string): PreviewCard => ({
  url, title: `About ${url}`, description: 'a page', type: 'link', authorName: '', authorUrl: '', providerName: 'News', providerUrl: '',
  html: '', width: 0, height: 0, imageKey: null, imageDescription: '', embedUrl: '', blurhash: null, language: 'en', publishedAt: null,
});

/** A link with its card, shared by two accounts (a trend candidate). */
async function aTrendingLink(host: string): Promise<string> {
  const url = `https://${host}/${newId()}`;
  await storeCardOutcome({ url, card: cardOf(url), fetchedAt: new Date().toISOString() });
  for (const sharer of crowd.slice(0, 2)) await countLinkShare(url, await aPostedStatus(sharer.account, { text: url }));
  return url;
}

/** A tag used today by three accounts through the posting endpoint (a trend candidate). */
async function aTrendingTag(): Promise<string> {
  const tag = `review${newId().slice(-8)}`;
  for (const poster of crowd) {
    const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: `about #${tag}` }, token: poster.token });
    expect(res.status).toBe(200);
  }
  return tag;
}

const lastAudit = async () => (await auditLogPage({ limit: 1 }))[0];

describe('trends review: unreviewed items wait (trendable_by_default is off)', () => {
  let moderator: UserFixture;
  beforeAll(async () => {
    moderator = await staff('1');
  });

  it('a trending status is listed for moderators with requires_review, shown publicly once approved, never once rejected', async () => {
    const [approved, rejected] = [await aTrendingStatus(), await aTrendingStatus()];
    expect(await publicStatusIds()).not.toContain(approved);

    const listed = await get(statusesIndex, '/api/v1/admin/trends/statuses', moderator.token, { limit: '40' });
    expect(listed.status).toBe(200);
    const entry = (listed.body as { id: string; requires_review: boolean; account: { id: string } }[]).find((s) => s.id === approved);
    expect(entry).toMatchObject({ id: approved, requires_review: true });

    const res = await decide(statusesApprove, `/api/v1/admin/trends/statuses/${approved}/approve`, approved, moderator.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: approved, requires_review: false });
    expect(await publicStatusIds()).toContain(approved);
    expect(await lastAudit()).toMatchObject({ accountId: moderator.account.id, action: 'approve', targetType: 'Status', targetId: approved });

    expect((await decide(statusesReject, `/api/v1/admin/trends/statuses/${rejected}/reject`, rejected, moderator.token)).status).toBe(200);
    expect(await lastAudit()).toMatchObject({ action: 'reject', targetType: 'Status', targetId: rejected });
    const after = (await get(statusesIndex, '/api/v1/admin/trends/statuses', moderator.token, { limit: '40' })).body as { id: string; requires_review: boolean }[];
    expect(after.find((s) => s.id === rejected)).toMatchObject({ requires_review: false });
    expect(await publicStatusIds()).not.toContain(rejected);

    // Approving after a rejection lets it show: the last decision stands.
    await decide(statusesApprove, `/api/v1/admin/trends/statuses/${rejected}/approve`, rejected, moderator.token);
    expect(await publicStatusIds()).toContain(rejected);
  });

  it('a trending link is listed with its id; its publisher approved, its links show; the link itself rejected, it does not', async () => {
    const host = `news${newId().slice(-6)}.example`;
    const [first, second] = [await aTrendingLink(host), await aTrendingLink(`www.${host}`)];
    expect(await publicLinkUrls()).not.toContain(first);

    const listed = (await get(linksIndex, '/api/v1/admin/trends/links', moderator.token, { limit: '20' })).body as { id: string; url: string; requires_review: boolean; history: unknown[] }[];
    const entry = listed.find((l) => l.url === first);
    expect(entry).toMatchObject({ url: first, title: `About ${first}`, requires_review: true });
    expect(entry?.history).toHaveLength(7);

    // The publisher (the host, without www.) was recorded when its first link became a candidate.
    const publishers = await get(publishersIndex, '/api/v1/admin/trends/links/publishers', moderator.token);
    expect(publishers.status).toBe(200);
    const publisher = (publishers.body as { id: string; domain: string }[]).find((p) => p.domain === host);
    expect(publisher).toEqual({ id: publisherIdOf(host), domain: host, trendable: false, reviewed_at: null, requested_review_at: expect.any(String), requires_review: true });

    const approved = await decide(publishersApprove, `/api/v1/admin/trends/links/publishers/${publisher!.id}/approve`, publisher!.id, moderator.token);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ domain: host, trendable: true, requires_review: false, reviewed_at: expect.any(String) });
    expect(await lastAudit()).toMatchObject({ action: 'approve', targetType: 'PreviewCardProvider', humanIdentifier: host });
    expect(await publicLinkUrls()).toEqual(expect.arrayContaining([first, second]));
    const afterPublisher = (await get(linksIndex, '/api/v1/admin/trends/links', moderator.token, { limit: '20' })).body as { url: string; requires_review: boolean }[];
    expect(afterPublisher.find((l) => l.url === first)).toMatchObject({ requires_review: false });

    const secondId = listed.find((l) => l.url === second)!.id;
    const rejected = await decide(linksReject, `/api/v1/admin/trends/links/${secondId}/reject`, secondId, moderator.token);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ id: secondId, url: second, requires_review: false });
    expect(await lastAudit()).toMatchObject({ action: 'reject', targetType: 'PreviewCard', targetId: secondId, humanIdentifier: second });
    const shown = await publicLinkUrls();
    expect(shown).toContain(first);
    expect(shown).not.toContain(second);

    // The publisher rejected, its links without a decision of their own go; one approved on its own stays.
    await decide(linksApprove, `/api/v1/admin/trends/links/${secondId}/approve`, secondId, moderator.token);
    await decide(publishersReject, `/api/v1/admin/trends/links/publishers/${publisher!.id}/reject`, publisher!.id, moderator.token);
    const last = await publicLinkUrls();
    expect(last).not.toContain(first);
    expect(last).toContain(second);
  });

  it('a trending tag is listed as Admin::Tag; approved it shows, rejected it goes', async () => {
    const tag = await aTrendingTag();
    expect(await publicTagNames()).not.toContain(tag);

    const listed = (await get(tagsIndex, '/api/v1/admin/trends/tags', moderator.token, { limit: '20' })).body as Record<string, unknown>[];
    const entry = listed.find((t) => t.name === tag);
    expect(entry).toMatchObject({ id: tagId(tag), name: tag, trendable: false, usable: true, listable: true, requires_review: true });
    expect(entry?.history).toHaveLength(7);

    const res = await decide(tagsApprove, `/api/v1/admin/trends/tags/${tagId(tag)}/approve`, tagId(tag), moderator.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tagId(tag), name: tag, trendable: true, requires_review: false });
    expect(await lastAudit()).toMatchObject({ action: 'approve', targetType: 'Tag', targetId: tagId(tag), humanIdentifier: tag });
    expect(await publicTagNames()).toContain(tag);

    expect((await decide(tagsReject, `/api/v1/admin/trends/tags/${tagId(tag)}/reject`, tagId(tag), moderator.token)).body).toMatchObject({ trendable: false, requires_review: false });
    expect(await publicTagNames()).not.toContain(tag);
  });
});

describe('trends review: permissions and bad ids', () => {
  let admin: UserFixture;
  beforeAll(async () => {
    admin = await staff('2');
  });

  it('answers 403 without manage_taxonomies or without the admin scope; the lists fall back to the public trends (as Mastodon)', async () => {
    const status = await aTrendingStatus();
    const nobody = await staff(null);
    const res = await decide(statusesApprove, `/api/v1/admin/trends/statuses/${status}/approve`, status, nobody.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is not allowed' });
    for (const [handler, path] of [[publishersIndex, '/api/v1/admin/trends/links/publishers']] as const) {
      expect((await get(handler, path, nobody.token)).status).toBe(403);
    }
    // Without manage_taxonomies the list is the public one: the unreviewed status is not there, and no review field.
    const fallback = await get(statusesIndex, '/api/v1/admin/trends/statuses', nobody.token);
    expect(fallback.status).toBe(200);
    expect((fallback.body as { id: string }[]).map((s) => s.id)).not.toContain(status);
    expect((fallback.body as Record<string, unknown>[]).every((s) => !('requires_review' in s))).toBe(true);

    const moderatorWithoutScope = await staff('1', ['read', 'write']);
    const scoped = await get(statusesIndex, '/api/v1/admin/trends/statuses', moderatorWithoutScope.token);
    expect(scoped.status).toBe(403);
    expect(scoped.body).toEqual({ error: 'This action is outside the authorized scopes' });
    const readOnly = await staff('1', ['admin:read']);
    expect((await decide(statusesApprove, `/api/v1/admin/trends/statuses/${status}/approve`, status, readOnly.token)).status).toBe(403);
    expect((await call(statusesIndex, { path: '/api/v1/admin/trends/statuses' })).status).toBe(401);
  });

  it.each<[string, string, Handler]>([
    ['status', '/api/v1/admin/trends/statuses/:id/approve', statusesApprove],
    ['status', '/api/v1/admin/trends/statuses/:id/reject', statusesReject],
    ['link', '/api/v1/admin/trends/links/:id/approve', linksApprove],
    ['link', '/api/v1/admin/trends/links/:id/reject', linksReject],
    ['tag', '/api/v1/admin/trends/tags/:id/approve', tagsApprove],
    ['tag', '/api/v1/admin/trends/tags/:id/reject', tagsReject],
    ['publisher', '/api/v1/admin/trends/links/publishers/:id/approve', publishersApprove],
    ['publisher', '/api/v1/admin/trends/links/publishers/:id/reject', publishersReject],
  ])('answers 404 for an unknown %s id (%s) and records nothing', async (_kind, path, handler) => {
    const before = await lastAudit();
    for (const id of ['123456789', 'not-an-id']) {
      const res = await decide(handler, path.replace(':id', id), id, admin.token);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect((await lastAudit())?.id).toBe(before?.id);
  });
});

describe('trendable_by_default on (`settings set trendable-by-default on`)', () => {
  afterAll(async () => {
    await cli('settings', 'set', 'trendable-by-default', 'off');
  });

  it('shows unreviewed statuses, links and tags, never rejected ones', async () => {
    const moderator = await staff('1');
    const [unreviewed, rejected] = [await aTrendingStatus(), await aTrendingStatus()];
    const link = await aTrendingLink(`daily${newId().slice(-6)}.example`);
    const tag = await aTrendingTag();
    await decide(statusesReject, `/api/v1/admin/trends/statuses/${rejected}/reject`, rejected, moderator.token);
    expect(await publicStatusIds()).not.toContain(unreviewed);

    const set = await cli('settings', 'set', 'trendable-by-default', 'on');
    expect(set.code).toBe(0);
    expect(set.out).toContain('trendable-by-default: on');
    const statuses = await publicStatusIds();
    expect(statuses).toContain(unreviewed);
    expect(statuses).not.toContain(rejected);
    expect(await publicLinkUrls()).toContain(link);
    expect(await publicTagNames()).toContain(tag);
    // Admin::Tag's trendable follows the setting while the tag is unreviewed.
    const listed = (await get(tagsIndex, '/api/v1/admin/trends/tags', moderator.token, { limit: '20' })).body as Record<string, unknown>[];
    expect(listed.find((t) => t.name === tag)).toMatchObject({ trendable: true, requires_review: true });

    expect((await cli('settings', 'set', 'trendable-by-default', 'maybe')).code).not.toBe(0);
  });
});
