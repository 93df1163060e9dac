// Quote posts as Mastodon 4.4/4.5 has them, through the real handlers and the table: posting a quote
// (`quoted_status_id`, the older `quote_id`) under the quoted author's policy, the Quote / ShallowQuote /
// QuoteApproval rendering and its viewer-dependent states, quotes_count, the quoted author's list of quotes and
// revocation, the interaction policy of a status and the author's default (`source[quote_policy]`), what deleting
// either status does, and the `quote` / `quoted_update` notifications. The notify and fan-out queues run their
// real workers in-process.
import { handler as block } from '../../functions/accounts/block';
import { handler as mute } from '../../functions/accounts/mute';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as notificationsIndex } from '../../functions/notifications/index';
import { handler as notificationsV2 } from '../../functions/notifications/v2_index';
import { handler as create } from '../../functions/statuses/create';
import { handler as remove } from '../../functions/statuses/delete';
import { handler as interactionPolicy } from '../../functions/statuses/interaction_policy';
import { handler as quotes } from '../../functions/statuses/quotes';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as revoke } from '../../functions/statuses/revoke_quote';
import { handler as show } from '../../functions/statuses/show';
import { handler as update } from '../../functions/statuses/update';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { quoteOf } from '../../lib/db/quotes';
import { scheduledById } from '../../lib/db/scheduled';
import { statusById } from '../../lib/db/statuses';
import { publishScheduled } from '../../lib/statuses/scheduled_posting';
import { runSuspensionWork } from '../../lib/moderation/purge';
import { suspendAccount, SUSPENSION_RETENTION_DAYS } from '../../lib/moderation/suspension';
import { accountById } from '../../lib/db/accounts';
import { registerInlineWorker } from '../../lib/queue';
import { issueAccessToken } from '../../lib/tokens';
import { aFollow, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = (token: string, form: Record<string, string | string[]>) => call(create, { method: 'POST', path: '/api/v1/statuses', token, form });
const showStatus = (id: string, token?: string) => call(show, { path: `/api/v1/statuses/${id}`, pathParameters: { id }, token });
const quotesOf = (id: string, token?: string, query: Record<string, string> = {}) =>
  call(quotes, { path: `/api/v1/statuses/${id}/quotes`, pathParameters: { id }, token, query });
const revokeQuote = (id: string, quotingId: string, token?: string) =>
  call(revoke, { method: 'POST', path: `/api/v1/statuses/${id}/quotes/${quotingId}/revoke`, pathParameters: { id, quoting_status_id: quotingId }, token });
const setPolicy = (id: string, token: string, form: Record<string, string>) =>
  call(interactionPolicy, { method: 'PUT', path: `/api/v1/statuses/${id}/interaction_policy`, pathParameters: { id }, token, form });
const edit = (id: string, token: string, form: Record<string, string>) => call(update, { method: 'PUT', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token, form });
const deleteStatus = (id: string, token: string) => call(remove, { method: 'DELETE', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token });
const accountAction = (handler: typeof block, id: string, action: string, token: string) =>
  call(handler, { method: 'POST', path: `/api/v1/accounts/${id}/${action}`, pathParameters: { id }, token });

/** A status of `user`, posted through the endpoint; answers its rendered body. */
async function posted(user: UserFixture, form: Record<string, string | string[]>): Promise<Record<string, any>> {
  const res = await post(user.token, form);
  expect(res.status).toBe(200);
  return res.body;
}

let quoted: UserFixture;
let quoter: UserFixture;
let stranger: UserFixture;
beforeAll(async () => {
  [quoted, quoter, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
});

describe('POST /api/v1/statuses with quoted_status_id', () => {
  it('quotes a public status: accepted, nested with a ShallowQuote of its own quote, counted on the quoted status', async () => {
    const inner = await posted(stranger, { status: 'the first word' });
    const original = await posted(quoted, { status: 'a thought', quoted_status_id: inner.id });
    expect(original.quote).toMatchObject({ state: 'accepted', quoted_status: { id: inner.id } });

    const res = await post(quoter.token, { status: 'well said', quoted_status_id: original.id });
    expect(res.status).toBe(200);
    expect(res.body.quote.state).toBe('accepted');
    expect(res.body.quote.quoted_status).toMatchObject({ id: original.id, account: { id: quoted.account.id }, content: '<p>a thought</p>' });
    // One level only: the quoted status's own quote is a ShallowQuote.
    expect(res.body.quote.quoted_status.quote).toEqual({ state: 'accepted', quoted_status_id: inner.id });
    expect(res.body).toMatchObject({ quotes_count: 0, quote_approval: { automatic: ['public'], manual: [], current_user: 'automatic' } });

    const record = await quoteOf(original.id, res.body.id);
    expect(record).toMatchObject({ statusId: res.body.id, accountId: quoter.account.id, quotedStatusId: original.id, quotedAccountId: quoted.account.id, state: 'accepted', activityUri: null, approvalUri: null });
    const again = await showStatus(original.id, stranger.token);
    expect(again.body).toMatchObject({ quotes_count: 1, quote: { state: 'accepted' }, quote_approval: { current_user: 'automatic' } });
    // Signed out, nobody may quote.
    expect((await showStatus(original.id)).body.quote_approval).toEqual({ automatic: ['public'], manual: [], current_user: 'denied' });
  });

  it('takes quote_id, the name older clients send, and quotes a reblog\'s original as Mastodon quotes `proper`', async () => {
    const original = await posted(quoted, { status: 'boost me' });
    const reblogged = await call(reblog, { method: 'POST', path: `/api/v1/statuses/${original.id}/reblog`, pathParameters: { id: original.id }, token: stranger.token });
    expect(reblogged.status).toBe(200);
    const viaAlias = await posted(quoter, { status: 'old client', quote_id: original.id });
    expect(viaAlias.quote.quoted_status.id).toBe(original.id);
    const viaReblog = await posted(quoter, { status: 'quoting the boost', quoted_status_id: reblogged.body.id });
    expect(viaReblog.quote.quoted_status.id).toBe(original.id);
    expect((await showStatus(original.id)).body.quotes_count).toBe(2);
  });

  it('refuses with 404 what the author may not quote, and writes nothing', async () => {
    const nobody = await posted(quoted, { status: 'mine alone', quote_approval_policy: 'nobody' });
    const followers = await posted(quoted, { status: 'friends only', quote_approval_policy: 'followers' });
    const privateOne = await posted(quoted, { status: 'followers see this', visibility: 'private' });
    const direct = await posted(quoted, { status: `@${quoter.account.username} psst`, visibility: 'direct' });
    expect(nobody.quote_approval).toMatchObject({ automatic: [], manual: [], current_user: 'automatic' });
    expect(followers.quote_approval).toMatchObject({ automatic: ['followers'], current_user: 'automatic' });
    expect(privateOne.quote_approval).toMatchObject({ automatic: [], current_user: 'automatic' });

    for (const id of [nobody.id, followers.id, privateOne.id, direct.id, '123456789', 'not-an-id']) {
      const res = await post(quoter.token, { status: 'quoting', quoted_status_id: id });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'The post you are trying to quote does not appear to exist.' });
    }
    expect((await showStatus(nobody.id, quoter.token)).body.quote_approval.current_user).toBe('denied');
    expect((await showStatus(followers.id, quoter.token)).body.quote_approval.current_user).toBe('denied');
    expect((await statusById(nobody.id))?.quotesCount ?? 0).toBe(0);

    // A follower may quote a `followers` status, and its author its own private one.
    const follower = await aUser();
    await aFollow(follower.account, quoted.account);
    expect((await showStatus(followers.id, follower.token)).body.quote_approval.current_user).toBe('automatic');
    expect((await posted(follower, { status: 'as a follower', quoted_status_id: followers.id })).quote.state).toBe('accepted');
    const self = await posted(quoted, { status: 'quoting myself', quoted_status_id: privateOne.id, visibility: 'private' });
    expect(self.quote).toMatchObject({ state: 'accepted', quoted_status: { id: privateOne.id } });
    // A private quote has the `nobody` policy whatever was asked (Mastodon downgrades it).
    expect(self.quote_approval.automatic).toEqual([]);
  });

  it('refuses a quote between accounts that block each other (404), and a private mention quoting someone it does not mention (422)', async () => {
    const target = await posted(quoted, { status: 'blocked soon' });
    const blocker = await aUser();
    expect((await accountAction(block, quoted.account.id, 'block', blocker.token)).status).toBe(200);
    expect((await post(blocker.token, { status: 'x', quoted_status_id: target.id })).status).toBe(404);
    const blocked = await aUser();
    expect((await accountAction(block, blocked.account.id, 'block', quoted.token)).status).toBe(200);
    expect((await post(blocked.token, { status: 'x', quoted_status_id: target.id })).status).toBe(404);

    const dm = await post(quoter.token, { status: `@${stranger.account.username} look`, visibility: 'direct', quoted_status_id: target.id });
    expect(dm.status).toBe(422);
    expect(dm.body.error).toMatch(/Only mentioned users can be quoted in private mentions/);
    const mentioning = await post(quoter.token, { status: `@${quoted.account.username} look`, visibility: 'direct', quoted_status_id: target.id });
    expect(mentioning.status).toBe(200);
  });

  it('is 422 naming the field for an unknown policy', async () => {
    const res = await post(quoter.token, { status: 'x', quote_approval_policy: 'everyone' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/quote_approval_policy/);
  });
});

describe('a scheduled quote (scheduled_at with quoted_status_id)', () => {
  const later = () => new Date(Date.now() + 10 * 60_000).toISOString();
  it('keeps quoted_status_id and quote_approval_policy in the params and quotes when posted, checked again then', async () => {
    const target = await posted(quoted, { status: 'to be quoted later' });
    const scheduled = await posted(quoter, { status: 'later quote', quote_id: target.id, quote_approval_policy: 'followers', scheduled_at: later() });
    expect(scheduled.params).toMatchObject({ quoted_status_id: target.id, quote_approval_policy: 'followers', text: 'later quote' });
    // Refused at scheduling as posting refuses it.
    const closed = await posted(quoted, { status: 'closed', quote_approval_policy: 'nobody' });
    const refused = await post(quoter.token, { status: 'no', quoted_status_id: closed.id, scheduled_at: later() });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: 'The post you are trying to quote does not appear to exist.' });

    const stored = await scheduledById(quoter.account.id, scheduled.id, true);
    expect(await publishScheduled({ id: scheduled.id, accountId: quoter.account.id, scheduledAt: stored!.scheduledAt }, Date.now() + 20 * 60_000)).toBe('published');
    expect((await statusById(target.id))?.quotesCount).toBe(1);
    const quotesPage = await quotesOf(target.id, quoted.token);
    expect(quotesPage.body).toHaveLength(1);
    const made = quotesPage.body[0];
    expect(made).toMatchObject({ content: expect.stringContaining('later quote'), quote: { state: 'accepted', quoted_status: { id: target.id } } });
    expect(made.quote_approval.automatic).toEqual(['followers']);

    // The quoted author closes its status before the time comes: the scheduled quote is discarded, as any refused post.
    const target2 = await posted(quoted, { status: 'open for now' });
    const scheduled2 = await posted(quoter, { status: 'too late', quoted_status_id: target2.id, scheduled_at: later() });
    expect((await setPolicy(target2.id, quoted.token, { quote_approval_policy: 'nobody' })).status).toBe(200);
    const stored2 = await scheduledById(quoter.account.id, scheduled2.id, true);
    expect(await publishScheduled({ id: scheduled2.id, accountId: quoter.account.id, scheduledAt: stored2!.scheduledAt }, Date.now() + 20 * 60_000)).toBe('discarded');
    expect(await scheduledById(quoter.account.id, scheduled2.id, true)).toBeUndefined();
    expect((await statusById(target2.id))?.quotesCount ?? 0).toBe(0);
  });
});

describe('what a viewer is shown of a quote', () => {
  it('shows blocked_account, muted_account and unauthorized by the viewer\'s relations, the quoted status kept where the spec keeps it', async () => {
    const author = await aUser();
    const target = await posted(author, { status: 'quoted text' });
    const quoting = await posted(quoter, { status: 'quoting it', quoted_status_id: target.id });

    const blocker = await aUser();
    await accountAction(block, author.account.id, 'block', blocker.token);
    const seenByBlocker = await showStatus(quoting.id, blocker.token);
    expect(seenByBlocker.body.quote).toMatchObject({ state: 'blocked_account', quoted_status: { id: target.id } });

    const muter = await aUser();
    await accountAction(mute, author.account.id, 'mute', muter.token);
    expect((await showStatus(quoting.id, muter.token)).body.quote).toMatchObject({ state: 'muted_account', quoted_status: { id: target.id } });

    const shunned = await aUser();
    await accountAction(block, shunned.account.id, 'block', author.token);
    expect((await showStatus(quoting.id, shunned.token)).body.quote).toEqual({ state: 'unauthorized', quoted_status: null });

    // Everyone else, and the signed-out, see it accepted.
    expect((await showStatus(quoting.id, stranger.token)).body.quote.state).toBe('accepted');
    expect((await showStatus(quoting.id)).body.quote.state).toBe('accepted');
  });
});

describe('deleting a quoted or a quoting status', () => {
  it('turns the quotes of a deleted status into `deleted`; deleting the quoting status takes its quote and its count', async () => {
    const target = await posted(quoted, { status: 'ephemeral' });
    const first = await posted(quoter, { status: 'one', quoted_status_id: target.id });
    const second = await posted(stranger, { status: 'two', quoted_status_id: target.id });
    expect((await statusById(target.id))?.quotesCount).toBe(2);

    expect((await deleteStatus(first.id, quoter.token)).status).toBe(200);
    expect(await quoteOf(target.id, first.id)).toBeUndefined();
    expect((await statusById(target.id))?.quotesCount).toBe(1);

    expect((await deleteStatus(target.id, quoted.token)).status).toBe(200);
    expect((await quoteOf(target.id, second.id))?.state).toBe('deleted');
    expect((await showStatus(second.id, stranger.token)).body.quote).toEqual({ state: 'deleted', quoted_status: null });
  });

  it('turns the quotes of the statuses of a purged account into `deleted`', async () => {
    const doomed = await aUser();
    const target = await posted(doomed, { status: 'soon purged' });
    const quoting = await posted(quoter, { status: 'quoting the doomed', quoted_status_id: target.id });
    await suspendAccount((await accountById(doomed.account.id))!);
    const after = Date.now() + (SUSPENSION_RETENTION_DAYS + 1) * 86_400_000;
    for (let runs = 0; (await statusById(target.id)) !== undefined; runs++) {
      expect(runs).toBeLessThan(20);
      await runSuspensionWork(after);
    }
    expect((await quoteOf(target.id, quoting.id))?.state).toBe('deleted');
    expect((await showStatus(quoting.id, quoter.token)).body.quote).toEqual({ state: 'deleted', quoted_status: null });
  });
});

describe('GET /api/v1/statuses/:id/quotes', () => {
  it('lists the accepted quotes, newest first, with Link paging; others see only the quoting statuses they may see', async () => {
    const target = await posted(quoted, { status: 'much quoted' });
    const a = await posted(quoter, { status: 'a', quoted_status_id: target.id });
    const hidden = await posted(quoter, { status: 'for my followers', quoted_status_id: target.id, visibility: 'private' });
    const c = await posted(stranger, { status: 'c', quoted_status_id: target.id });

    const page = await quotesOf(target.id, quoted.token, { limit: '2' });
    expect(page.status).toBe(200);
    expect(page.body.map((s: { id: string }) => s.id)).toEqual([c.id, hidden.id]);
    expect(page.headers.link).toContain(`max_id=${hidden.id}`);
    const next = await quotesOf(target.id, quoted.token, { limit: '2', max_id: hidden.id });
    expect(next.body.map((s: { id: string }) => s.id)).toEqual([a.id]);

    const others = await quotesOf(target.id, stranger.token);
    expect(others.body.map((s: { id: string }) => s.id)).toEqual([c.id, a.id]);
  });

  it('is 401 without a token, 403 without read:statuses, 404 for an unknown or invisible status', async () => {
    const target = await posted(quoted, { status: 'q' });
    expect((await quotesOf(target.id)).status).toBe(401);
    const { raw } = await issueAccessToken(quoted.app, quoted.account.id, ['write']);
    expect((await quotesOf(target.id, raw)).status).toBe(403);
    expect((await quotesOf('123456789', quoted.token)).status).toBe(404);
    const privateOne = await posted(quoted, { status: 'p', visibility: 'private' });
    expect((await quotesOf(privateOne.id, stranger.token)).status).toBe(404);
  });
});

describe('POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke', () => {
  it('lets the quoted author revoke an accepted quote: the quoting status answered revoked, the count down, the list without it', async () => {
    const target = await posted(quoted, { status: 'revocable' });
    const quoting = await posted(quoter, { status: 'quoting', quoted_status_id: target.id });
    const res = await revokeQuote(target.id, quoting.id, quoted.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: quoting.id, quote: { state: 'revoked', quoted_status: null } });
    expect((await statusById(target.id))?.quotesCount).toBe(0);
    expect((await quotesOf(target.id, quoted.token)).body).toEqual([]);
    expect((await showStatus(quoting.id, stranger.token)).body.quote).toEqual({ state: 'revoked', quoted_status: null });
    // Revoked again: nothing moves.
    expect((await revokeQuote(target.id, quoting.id, quoted.token)).body.quote.state).toBe('revoked');
    expect((await statusById(target.id))?.quotesCount).toBe(0);
  });

  it('is 403 for a quote the caller did not receive, 404 for unknown ids, 403 without write:statuses', async () => {
    const target = await posted(quoted, { status: 'not yours' });
    const quoting = await posted(quoter, { status: 'quoting', quoted_status_id: target.id });
    const refused = await revokeQuote(target.id, quoting.id, stranger.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect((await revokeQuote(target.id, quoting.id, quoter.token)).status).toBe(403);
    const unrelated = await posted(quoter, { status: 'no quote' });
    expect((await revokeQuote(target.id, unrelated.id, quoted.token)).status).toBe(404);
    expect((await revokeQuote('123456789', quoting.id, quoted.token)).status).toBe(404);
    const { raw } = await issueAccessToken(quoted.app, quoted.account.id, ['read']);
    expect((await revokeQuote(target.id, quoting.id, raw)).status).toBe(403);
    expect((await quoteOf(target.id, quoting.id))?.state).toBe('accepted');
  });
});

describe('quote policies', () => {
  it('PUT /api/v1/statuses/:id/interaction_policy changes who may quote; others get 403, an unknown policy 422', async () => {
    const target = await posted(quoted, { status: 'open for now' });
    const res = await setPolicy(target.id, quoted.token, { quote_approval_policy: 'nobody' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.id, quote_approval: { automatic: [], manual: [], current_user: 'automatic' } });
    expect((await post(quoter.token, { status: 'x', quoted_status_id: target.id })).status).toBe(404);
    expect((await setPolicy(target.id, quoted.token, { quote_approval_policy: 'public' })).body.quote_approval.automatic).toEqual(['public']);

    expect((await setPolicy(target.id, quoter.token, { quote_approval_policy: 'nobody' })).status).toBe(403);
    const bad = await setPolicy(target.id, quoted.token, { quote_approval_policy: 'friends' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/quote_approval_policy/);
    expect((await setPolicy('123456789', quoted.token, { quote_approval_policy: 'nobody' })).status).toBe(404);
  });

  it('an edit may set the policy (PUT /api/v1/statuses/:id)', async () => {
    const target = await posted(quoted, { status: 'edit me' });
    const res = await edit(target.id, quoted.token, { status: 'edit me', quote_approval_policy: 'followers' });
    expect(res.status).toBe(200);
    expect(res.body.quote_approval.automatic).toEqual(['followers']);
    expect((await edit(target.id, quoted.token, { status: 'edit me', quote_approval_policy: 'all' })).status).toBe(422);
  });

  it('source[quote_policy] is the default of new statuses, shown in the credential account', async () => {
    const user = await aUser();
    const verify = () => call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: user.token });
    expect((await verify()).body.source.quote_policy).toBe('public');
    const patched = await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token: user.token, form: { 'source[quote_policy]': 'followers' } });
    expect(patched.status).toBe(200);
    expect(patched.body.source.quote_policy).toBe('followers');
    expect((await posted(user, { status: 'default' })).quote_approval.automatic).toEqual(['followers']);
    expect((await posted(user, { status: 'asked', quote_approval_policy: 'public' })).quote_approval.automatic).toEqual(['public']);
    const bad = await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token: user.token, form: { 'source[quote_policy]': 'anyone' } });
    expect(bad.status).toBe(422);
    // Named by its label, as update_credentials names every field (Mastodon's validation messages).
    expect(bad.body.error).toMatch(/Default quote policy is not included in the list/);
  });
});

describe('quote notifications', () => {
  it('tells the quoted author of a quote (`quote`, about the quoting status), v1 and v2, and the quoter of an edit (`quoted_update`)', async () => {
    const author = await aUser();
    const fan = await aUser();
    const target = await posted(author, { status: 'notable' });
    const quoting = await posted(fan, { status: 'noted', quoted_status_id: target.id });

    const v1 = await call(notificationsIndex, { path: '/api/v1/notifications', token: author.token, query: { 'types[]': 'quote' } });
    expect(v1.status).toBe(200);
    expect(v1.body).toHaveLength(1);
    expect(v1.body[0]).toMatchObject({ type: 'quote', account: { id: fan.account.id }, status: { id: quoting.id, quote: { state: 'accepted' } } });
    const v2 = await call(notificationsV2, { path: '/api/v2/notifications', token: author.token });
    expect(v2.body.notification_groups).toEqual([expect.objectContaining({ type: 'quote', status_id: quoting.id, sample_account_ids: [fan.account.id] })]);

    expect((await edit(target.id, author.token, { status: 'notable, edited' })).status).toBe(200);
    const told = await call(notificationsIndex, { path: '/api/v1/notifications', token: fan.token });
    expect(told.body).toEqual([expect.objectContaining({ type: 'quoted_update', account: expect.objectContaining({ id: author.account.id }), status: expect.objectContaining({ id: quoting.id }) })]);
  });
});

describe('what a page of quotes reads', () => {
  it('reads the quoted statuses of a whole page in one more batch, not one read per status', async () => {
    const { handler: accountStatuses } = await import('../../functions/accounts/statuses');
    const plain = await aUser();
    const quoting = await aUser();
    const authors = await Promise.all([aUser(), aUser(), aUser()]);
    for (const [i, author] of authors.entries()) {
      const target = await posted(author, { status: `target ${i}` });
      await posted(quoting, { status: `quote ${i}`, quoted_status_id: target.id });
      await posted(plain, { status: `plain ${i}` });
    }
    const page = (user: UserFixture) =>
      call(accountStatuses, { path: `/api/v1/accounts/${user.account.id}/statuses`, pathParameters: { id: user.account.id }, token: stranger.token });
    process.env.EXPOSE_METRICS = '1';
    try {
      await page(plain);
      const plainPage = await page(plain);
      const quotesPage = await page(quoting);
      expect(quotesPage.body).toHaveLength(3);
      expect(quotesPage.body.every((s: { quote: { state: string } }) => s.quote.state === 'accepted')).toBe(true);
      // The quoted statuses (one batch); their authors, media and the viewer's flags join the page's own batch.
      expect(Number(quotesPage.headers['x-db-calls'])).toBe(Number(plainPage.headers['x-db-calls']) + 1);
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });
});
