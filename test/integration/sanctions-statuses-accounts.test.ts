// Sanctions on the status and account read paths (lib/policy/sanctions.ts), as Mastodon 4.3 answers them:
// a suspended account's statuses 404 on show, context, favourited_by and reblogged_by; it leaves others'
// favourited_by and follower lists; its entity says `suspended: true` with its profile emptied, its statuses
// and followers lists are empty; a silenced account says `limited: true`; a sensitized one's media are sensitive.
import { handler as showAccount } from '../../functions/accounts/show';
import { handler as lookup } from '../../functions/accounts/lookup';
import { handler as accountStatuses } from '../../functions/accounts/statuses';
import { handler as followers } from '../../functions/accounts/followers';
import { handler as following } from '../../functions/accounts/following';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as context } from '../../functions/statuses/context';
import { handler as favourite } from '../../functions/statuses/favourite';
import { handler as favouritedBy } from '../../functions/statuses/favourited_by';
import { handler as rebloggedBy } from '../../functions/statuses/reblogged_by';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { updateAccount } from '../../lib/db/accounts';
import { registerInlineWorker } from '../../lib/queue';
import type { Status } from '../../lib/db/statuses';
import { call } from '../support/http';
import { aFollow, aMediaAttachment, aPostedStatus, aUser, type UserFixture } from '../support/factories';

// Favouriting notifies through the real notify worker, in-process.
registerInlineWorker('notify', (event) => notifyWorker(event));

const get = (handler: typeof showStatus, path: string, pathParameters: Record<string, string>, token?: string) => call(handler, { path, pathParameters, token });
const ids = (body: { id: string }[]) => body.map((s) => s.id);

describe('a suspended account', () => {
  let target: UserFixture;
  let viewer: UserFixture;
  let other: UserFixture;
  let own: Status;
  let reply: Status;
  let othersStatus: Status;

  beforeAll(async () => {
    [target, viewer, other] = await Promise.all([aUser(), aUser(), aUser()]);
    await updateAccount(target.account.id, { displayName: 'Target Person', note: 'bio', noteHtml: '<p>bio</p>', fields: [{ name: 'a', value: 'b' }], fieldsHtml: [{ name: 'a', value: 'b', verifiedAt: null }] });
    own = await aPostedStatus(target.account);
    othersStatus = await aPostedStatus(other.account);
    reply = await aPostedStatus(target.account, { inReplyToId: othersStatus.id, inReplyToAccountId: other.account.id, conversationId: othersStatus.conversationId });
    await aFollow(target.account, other.account);
    await aFollow(other.account, target.account);
    expect((await call(favourite, { path: `/api/v1/statuses/${othersStatus.id}/favourite`, pathParameters: { id: othersStatus.id }, token: target.token, method: 'POST' })).status).toBe(200);
    // Before: everything is there.
    expect((await get(showStatus, `/api/v1/statuses/${own.id}`, { id: own.id })).status).toBe(200);
    expect(ids((await get(favouritedBy, `/api/v1/statuses/${othersStatus.id}/favourited_by`, { id: othersStatus.id })).body)).toContain(target.account.id);
    await updateAccount(target.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
  });

  it('answers 404 for its statuses on show, context, favourited_by and reblogged_by', async () => {
    for (const [handler, suffix] of [[showStatus, ''], [context, '/context'], [favouritedBy, '/favourited_by'], [rebloggedBy, '/reblogged_by']] as const) {
      const res = await get(handler, `/api/v1/statuses/${own.id}${suffix}`, { id: own.id }, viewer.token);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
  });

  it("leaves others' threads and favourited_by", async () => {
    const ctx = await get(context, `/api/v1/statuses/${othersStatus.id}/context`, { id: othersStatus.id }, viewer.token);
    expect(ctx.status).toBe(200);
    expect(ids(ctx.body.descendants)).not.toContain(reply.id);
    const favs = await get(favouritedBy, `/api/v1/statuses/${othersStatus.id}/favourited_by`, { id: othersStatus.id });
    expect(favs.status).toBe(200);
    expect(ids(favs.body)).not.toContain(target.account.id);
  });

  it('shows the entity suspended, with its profile emptied, on show and lookup', async () => {
    const shown = await get(showAccount, `/api/v1/accounts/${target.account.id}`, { id: target.account.id }, viewer.token);
    const looked = await call(lookup, { path: '/api/v1/accounts/lookup', query: { acct: target.account.username } });
    for (const res of [shown, looked]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: target.account.id, suspended: true, display_name: '', note: '', fields: [], emojis: [], locked: false, bot: false, discoverable: false });
      expect(res.body.avatar).toMatch(/\/avatars\/original\/missing\.png$/);
      expect(res.body.header).toMatch(/\/headers\/original\/missing\.png$/);
      expect(res.body.limited).toBeUndefined();
    }
  });

  it('has empty statuses, followers and following lists, and leaves the lists of others', async () => {
    const statuses = await get(accountStatuses, `/api/v1/accounts/${target.account.id}/statuses`, { id: target.account.id }, viewer.token);
    expect(statuses.status).toBe(200);
    expect(statuses.body).toEqual([]);
    expect((await get(followers, `/api/v1/accounts/${target.account.id}/followers`, { id: target.account.id })).body).toEqual([]);
    expect((await get(following, `/api/v1/accounts/${target.account.id}/following`, { id: target.account.id })).body).toEqual([]);
    expect(ids((await get(followers, `/api/v1/accounts/${other.account.id}/followers`, { id: other.account.id })).body)).not.toContain(target.account.id);
    expect(ids((await get(following, `/api/v1/accounts/${other.account.id}/following`, { id: other.account.id })).body)).not.toContain(target.account.id);
  });
});

describe('a silenced account', () => {
  it('says limited on its entity, its profile and statuses still reachable', async () => {
    const [silenced, viewer] = await Promise.all([aUser(), aUser()]);
    const status = await aPostedStatus(silenced.account);
    await updateAccount(silenced.account.id, { silencedAt: new Date().toISOString() });
    const shown = await get(showAccount, `/api/v1/accounts/${silenced.account.id}`, { id: silenced.account.id }, viewer.token);
    expect(shown.status).toBe(200);
    expect(shown.body.limited).toBe(true);
    expect(shown.body.suspended).toBeUndefined();
    const one = await get(showStatus, `/api/v1/statuses/${status.id}`, { id: status.id }, viewer.token);
    expect(one.status).toBe(200);
    expect(one.body.account.limited).toBe(true);
  });
});

describe('a sensitized account', () => {
  it('has its statuses with media shown sensitive, and those without left as they are', async () => {
    const [author, viewer] = await Promise.all([aUser(), aUser()]);
    const media = await aMediaAttachment(author.account, { state: 'ready' });
    const withMedia = await aPostedStatus(author.account, { mediaIds: [media.id], sensitive: false });
    const plain = await aPostedStatus(author.account, { sensitive: false });
    const before = await get(showStatus, `/api/v1/statuses/${withMedia.id}`, { id: withMedia.id }, viewer.token);
    expect(before.body.sensitive).toBe(false);
    await updateAccount(author.account.id, { sensitizedAt: new Date().toISOString() });
    expect((await get(showStatus, `/api/v1/statuses/${withMedia.id}`, { id: withMedia.id }, viewer.token)).body.sensitive).toBe(true);
    expect((await get(showStatus, `/api/v1/statuses/${plain.id}`, { id: plain.id }, viewer.token)).body.sensitive).toBe(false);
  });
});
