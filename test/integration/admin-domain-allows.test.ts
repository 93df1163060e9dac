// The admin API's domain allows (/api/v1/admin/domain_allows, Mastodon 4.3) and limited federation mode (the
// `limited-federation` setting, Mastodon's LIMITED_FEDERATION_MODE): every route with its bad inputs and
// permissions, the audit log, and what the mode does: an unlisted server's inbox POST refused, deliveries to it
// and fetches from it skipped, an allowed one served as ever; with the mode off, allows change nothing.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as createAllow } from '../../functions/admin_domain_allows/create';
import { handler as deleteAllow } from '../../functions/admin_domain_allows/delete';
import { handler as listAllows } from '../../functions/admin_domain_allows/index';
import { handler as showAllow } from '../../functions/admin_domain_allows/show';
import { handler as inboxHandler } from '../../functions/activitypub/inbox';
import { setSetting } from '../../lib/admin/commands';
import type { Account } from '../../lib/db/accounts';
import { auditLogPage } from '../../lib/db/audit_log';
import { instanceSettings } from '../../lib/db/instance';
import { deliverTo } from '../../lib/federation/deliver';
import { FetchRefused, fetchObject } from '../../lib/federation/fetch';
import { signRequest } from '../../lib/federation/signatures';
import { AS_PUBLIC } from '../../lib/federation/urls';
import { forgetAllMemos } from '../../lib/memo';
import { registerInlineWorker } from '../../lib/queue';
import type { InboxMessage } from '../../lib/queue/messages';
import { collectDeliveries } from '../support/activities';
import { aRemoteAccount, type RemoteAccountFixture, type UserFixture } from '../support/factories';
import { call, type Call } from '../support/http';
import { aStaffUser } from '../support/staff';

const delivered = collectDeliveries();
const queuedInbox: InboxMessage[] = [];
registerInlineWorker('inbox', async (event: SQSEvent) => {
  for (const r of event.Records) queuedInbox.push(JSON.parse(r.body) as InboxMessage);
  return { batchItemFailures: [] };
});

let admin: UserFixture;
let moderator: UserFixture;
let user: UserFixture;
beforeAll(async () => {
  [admin, moderator, user] = await Promise.all([aStaffUser('admin'), aStaffUser('moderator'), aStaffUser(null)]);
});
beforeEach(() => {
  queuedInbox.length = 0;
  delivered.length = 0;
});
afterEach(async () => {
  await setSetting('limited-federation', 'off');
  forgetAllMemos();
});

const aDomain = (what: string) => `${what}-${randomUUID().slice(0, 8)}.example`;
const PATH = '/api/v1/admin/domain_allows';
const create = (who: UserFixture, form: Record<string, string>) => call(createAllow, { method: 'POST', path: PATH, form, token: who.token });
const show = (who: UserFixture, id: string) => call(showAllow, { path: `${PATH}/${id}`, pathParameters: { id }, token: who.token });
const remove = (who: UserFixture, id: string) => call(deleteAllow, { method: 'DELETE', path: `${PATH}/${id}`, pathParameters: { id }, token: who.token });
const list = (who: UserFixture, query: Record<string, string> = {}) => call(listAllows, { path: PATH, query, token: who.token });

describe('the admin domain allows routes', () => {
  it('creates (in any mode), shows, lists and removes an allow as Admin::DomainAllow; each change in the audit log', async () => {
    const domain = aDomain('friend');
    const created = await create(admin, { domain: ` ${domain.toUpperCase()} ` });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^\d+$/), domain, created_at: expect.any(String) });
    const id = created.body.id as string;
    expect((await show(admin, id)).body).toEqual(created.body);
    expect((await list(admin)).body).toContainEqual(created.body);
    // Mastodon answers the allow already there, and logs nothing more.
    expect(await create(admin, { domain })).toMatchObject({ status: 200, body: created.body });

    expect(await remove(admin, id)).toMatchObject({ status: 200, body: {} });
    expect(await show(admin, id)).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    expect(await remove(admin, id)).toMatchObject({ status: 404 });
    const log = (await auditLogPage({ limit: 200 })).filter((e) => e.targetType === 'DomainAllow' && e.targetId === id);
    expect(log.map((e) => e.action).sort()).toEqual(['create', 'destroy']);
    expect(log.every((e) => e.humanIdentifier === domain && e.accountId === admin.account.id)).toBe(true);
  });

  it('answers 422 naming the domain when it is blank or invalid', async () => {
    expect(await create(admin, {})).toMatchObject({ status: 422, body: { error: "Validation failed: Domain can't be blank" } });
    expect(await create(admin, { domain: 'a b/c' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Domain is not a valid domain name' } });
    expect(await create(admin, { domain: '-bad-.example' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Domain is not a valid domain name' } });
  });

  it('is 403 for a moderator (no manage_federation) and a user without a role', async () => {
    const made = await create(admin, { domain: aDomain('guarded') });
    for (const who of [moderator, user]) {
      for (const res of [await list(who), await show(who, made.body.id), await create(who, { domain: aDomain('no') }), await remove(who, made.body.id)]) {
        expect(res).toMatchObject({ status: 403, body: { error: 'This action is not allowed' } });
      }
    }
    expect((await show(admin, made.body.id)).status).toBe(200);
  });

  it('pages newest first with a Link header', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(admin, { domain: aDomain(`page${i}`) })).body.id);
    const first = await list(admin, { limit: '2' });
    expect(first.body.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers.link).toContain(`max_id=${ids[1]}`);
    expect((await list(admin, { limit: '2', max_id: ids[1]! })).body[0].id).toBe(ids[0]);
  });
});

// ---- limited federation mode ----

const signedInboxPost = (remote: RemoteAccountFixture, activity: Record<string, unknown>): Call => {
  const body = JSON.stringify(activity);
  const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body }, remote.signer);
  return { method: 'POST', path: '/inbox', headers, body: { data: body, contentType: 'application/activity+json' } };
};
const aCreate = (author: Account) => {
  const id = `${author.uri}/statuses/${randomUUID()}`;
  return { '@context': 'https://www.w3.org/ns/activitystreams', id: `${id}/activity`, type: 'Create', actor: author.uri, object: { id, type: 'Note', attributedTo: author.uri, to: [AS_PUBLIC], content: '<p>hi</p>' } };
};

describe('limited federation mode', () => {
  it('is an instance setting the CLI turns on and off', async () => {
    expect(await setSetting('limited-federation', 'on')).toContain('limited-federation:  on');
    expect((await instanceSettings()).limitedFederation).toBe(true);
    await setSetting('limited-federation', 'off');
    expect((await instanceSettings()).limitedFederation).toBe(false);
  });

  it("refuses an unlisted server's inbox POST with 403, and queues an allowed server's", async () => {
    const allowed = aDomain('allowed');
    const [outsider, friend] = await Promise.all([aRemoteAccount({ domain: aDomain('outsider') }), aRemoteAccount({ domain: allowed })]);
    await create(admin, { domain: allowed });
    // Off: allows change nothing, everyone federates.
    expect((await call(inboxHandler, signedInboxPost(outsider, aCreate(outsider.account)))).status).toBe(202);
    queuedInbox.length = 0;

    await setSetting('limited-federation', 'on');
    forgetAllMemos();
    const refused = await call(inboxHandler, signedInboxPost(outsider, aCreate(outsider.account)));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(queuedInbox).toHaveLength(0);
    expect((await call(inboxHandler, signedInboxPost(friend, aCreate(friend.account)))).status).toBe(202);
    expect(queuedInbox).toHaveLength(1);
  });

  it('delivers only to allowed servers and fetches nothing from the others; removing the allow stops the allowed one', async () => {
    const allowed = aDomain('allowed');
    const outsider = aDomain('outsider');
    const allow = await create(admin, { domain: allowed });
    await setSetting('limited-federation', 'on');
    forgetAllMemos();
    await deliverTo({ id: 'https://social.example/activity/1', type: 'Create' }, [`https://${allowed}/inbox`, `https://${outsider}/inbox`], 'instance');
    expect(delivered.map((d) => d.inbox)).toEqual([`https://${allowed}/inbox`]);
    await expect(fetchObject(`https://${outsider}/users/someone`)).rejects.toBeInstanceOf(FetchRefused);

    await remove(admin, allow.body.id);
    delivered.length = 0;
    await deliverTo({ id: 'https://social.example/activity/2', type: 'Create' }, [`https://${allowed}/inbox`], 'instance');
    expect(delivered).toHaveLength(0);
  });
});
