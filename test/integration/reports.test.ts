// Reports: POST /api/v1/reports (lib/reports/file.ts) with its Report entity, the
// Flag it forwards to a remote account's server (signed by the instance actor,
// naming no reporter), a Flag received from another server (lib/inbox/flag.ts)
// becoming a report here, and the operator's `reports` commands. Each refused
// input is paired with the accepted one beside it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { handler as createReport } from '../../functions/reports/create';
import { addRule } from '../../lib/admin/commands';
import { main } from '../../lib/admin/cli';
import { listReports, resolveReportCommand, showReport } from '../../lib/admin/report_commands';
import type { Account } from '../../lib/db/accounts';
import { instanceSettings } from '../../lib/db/instance';
import { reportById, reportsPage, type Report } from '../../lib/db/reports';
import { apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { FLAG_CONTENT_RAW_MAX } from '../../lib/inbox/flag';
import { RECEIVED_COMMENT_MAX } from '../../lib/reports/receive';
import { collectDeliveries, receive } from '../support/activities';
import { aFollow, aPostedStatus, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const delivered = collectDeliveries();
type Remote = Account & { uri: string; inboxUrl: string };
const aRemote = async (domain = 'beta.example', opts: { sharedInboxUrl?: null } = {}): Promise<Remote> =>
  (await aRemoteAccount({ domain, keyless: true, ...opts })).account as Remote;

const report = (user: UserFixture, json: Record<string, unknown>) => call(createReport, { method: 'POST', path: '/api/v1/reports', json, token: user.token });
/** Mastodon's Report entity as its OpenAPI description gives it (test/fixtures/mastodon-openapi). */
const reportSchema = (): { required: string[] } =>
  JSON.parse(readFileSync(new URL('../fixtures/mastodon-openapi/schemas.json', import.meta.url), 'utf8')).components.schemas.Report;
/** Every stored report about `account`, newest first. */
const reportsAbout = async (account: Pick<Account, 'id'>): Promise<Report[]> => (await reportsPage({ limit: 200 })).filter((r) => r.targetAccountId === account.id);

describe('POST /api/v1/reports', () => {
  it('stores a report about a local account with its statuses and answers the Report entity; nothing is sent', async () => {
    const alice = await aUser();
    const bob = await aUser();
    const [first, second] = [await aPostedStatus(bob.account), await aPostedStatus(bob.account)];
    const res = await report(alice, { account_id: bob.account.id, status_ids: [first.id, second.id], comment: 'spam links', category: 'spam', forward: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      action_taken: false,
      action_taken_at: null,
      category: 'spam',
      comment: 'spam links',
      forwarded: false,
      rule_ids: null,
      target_account: { id: bob.account.id, acct: bob.account.username },
    });
    expect([...res.body.status_ids].sort()).toEqual([first.id, second.id].sort());
    expect(typeof res.body.id).toBe('string');
    // Every field Mastodon's Report requires (its OpenAPI description) is there.
    const { required } = reportSchema();
    expect(required.filter((field) => !(field in res.body))).toEqual([]);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
    const stored = await reportById(res.body.id);
    expect(stored).toMatchObject({ accountId: alice.account.id, targetAccountId: bob.account.id, comment: 'spam links', uri: null });
    // A local account's report stays here, forward or not.
    expect(delivered).toEqual([]);
  });

  it('forwards a report about a remote account as a Flag from the instance actor to its server; without forward, nothing goes', async () => {
    const alice = await aUser();
    const bob = await aRemote('beta.example');
    const note = await aPostedStatus(bob, { uri: `${bob.uri}/statuses/${newId()}` });

    const kept = await report(alice, { account_id: bob.id, status_ids: [note.id], comment: 'abuse', forward: false });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ forwarded: false, category: 'other' });
    expect(delivered).toEqual([]);

    const res = await report(alice, { account_id: bob.id, status_ids: [note.id], comment: 'abuse', forward: 'true' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ forwarded: true, status_ids: [note.id] });
    expect(delivered).toHaveLength(1);
    const flag = delivered[0]!;
    expect(flag.inbox).toBe('https://beta.example/inbox');
    expect(flag.signer).toBe('instance');
    expect(flag.activity).toEqual({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${apUrls.instanceActor()}#flags/${res.body.id}`,
      type: 'Flag',
      actor: apUrls.instanceActor(),
      content: 'abuse',
      object: [bob.uri, note.uri],
    });
    // The reporter is named nowhere in it.
    expect(JSON.stringify(flag.activity)).not.toContain(alice.account.username);
  });

  it('forwards to the account’s own inbox when its server has no shared one', async () => {
    const alice = await aUser();
    const bob = await aRemote('gamma.example', { sharedInboxUrl: null });
    expect((await report(alice, { account_id: bob.id, forward: true })).status).toBe(200);
    expect(delivered.map((d) => d.inbox)).toEqual([bob.inboxUrl]);
  });

  it('answers 404 for an unknown account, a status not the account’s, and one the reporter may not see; 200 for the account’s visible status', async () => {
    const alice = await aUser();
    const bob = await aUser();
    const carol = await aUser();
    const bobs = await aPostedStatus(bob.account);
    const carols = await aPostedStatus(carol.account);
    const bobsPrivate = await aPostedStatus(bob.account, { visibility: 'private' });
    const before = (await reportsAbout(bob.account)).length;
    for (const body of [
      { account_id: '999999999999' },
      { account_id: 'nope' },
      { account_id: bob.account.id, status_ids: [carols.id] },
      { account_id: bob.account.id, status_ids: [bobs.id, carols.id] },
      { account_id: bob.account.id, status_ids: [bobsPrivate.id] },
      { account_id: bob.account.id, status_ids: ['12x'] },
    ]) {
      const res = await report(alice, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 404]);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect(await reportsAbout(bob.account)).toHaveLength(before);

    expect((await report(alice, { account_id: bob.account.id, status_ids: [bobs.id] })).status).toBe(200);
    // A follower may report the private one.
    await aFollow(alice.account, bob.account);
    expect((await report(alice, { account_id: bob.account.id, status_ids: [bobsPrivate.id] })).body).toMatchObject({ status_ids: [bobsPrivate.id] });
    expect(await reportsAbout(bob.account)).toHaveLength(before + 2);
  });

  it('takes a comment of 1000 characters and refuses 1001 with 422', async () => {
    const alice = await aUser();
    const bob = await aUser();
    const long = await report(alice, { account_id: bob.account.id, comment: 'é'.repeat(1001) });
    expect(long.status).toBe(422);
    expect(long.body).toEqual({ error: 'Validation failed: Comment is too long (maximum is 1000 characters)' });
    expect(await reportsAbout(bob.account)).toHaveLength(0);
    const fits = await report(alice, { account_id: bob.account.id, comment: 'é'.repeat(1000) });
    expect(fits.status).toBe(200);
    expect(fits.body.comment).toHaveLength(1000);
  });

  it('checks category and the cited rules: unknown ones 422, the instance’s own kept for a violation', async () => {
    const alice = await aUser();
    const bob = await aUser();
    await addRule(`Be kind ${randomUUID()}`);
    const rule = (await instanceSettings()).rules.at(-1)!;
    expect((await report(alice, { account_id: bob.account.id, category: 'rude' })).status).toBe(422);
    const unknown = await report(alice, { account_id: bob.account.id, category: 'violation', rule_ids: ['99999'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatch(/Rule ids/);
    expect(await reportsAbout(bob.account)).toHaveLength(0);

    const cited = await report(alice, { account_id: bob.account.id, category: 'violation', rule_ids: [rule.id] });
    expect(cited.body).toMatchObject({ category: 'violation', rule_ids: [rule.id] });
    // Rules named without a category make a violation; with another category they are not kept.
    expect((await report(alice, { account_id: bob.account.id, rule_ids: [rule.id] })).body).toMatchObject({ category: 'violation', rule_ids: [rule.id] });
    expect((await report(alice, { account_id: bob.account.id, category: 'spam', rule_ids: [rule.id] })).body).toMatchObject({ category: 'spam', rule_ids: null });
  });

  it('needs write:reports: a read-only token is refused with 403, a write:reports one is not', async () => {
    const reader = await aUser({ scopes: ['read'] });
    const writer = await aUser({ scopes: ['write:reports'] });
    const bob = await aUser();
    const refused = await report(reader, { account_id: bob.account.id });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'This action is outside the authorized scopes' });
    expect((await report(writer, { account_id: bob.account.id })).status).toBe(200);
  });
});

// ---- Flags from other servers ----

const flagFrom = (actor: Remote, object: unknown, content?: unknown) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${actor.uri.replace(/\/users\/.*$/, '')}/${randomUUID()}`,
  type: 'Flag',
  actor: actor.uri,
  object,
  ...(content === undefined ? {} : { content }),
});
const statusUrl = (user: UserFixture, id: string) => apUrls.status(user.account.username, id);

describe('a received Flag', () => {
  it('stores a report from the sending server about the account named, with its statuses only and the comment as text', async () => {
    const bob = await aUser();
    const carol = await aUser();
    const server = await aRemote('reporting.example');
    const bobs = await aPostedStatus(bob.account);
    const carols = await aPostedStatus(carol.account);
    const flag = flagFrom(
      server,
      [apUrls.actor(bob.account.username), statusUrl(bob, bobs.id), statusUrl(carol, carols.id), 'https://elsewhere.example/users/x'],
      '<p>Spam &amp; <b>abuse</b></p><script>alert(1)</script>',
    );
    expect(await receive(flag)).toBe('applied');
    const stored = await reportsAbout(bob.account);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ accountId: server.id, statusIds: [bobs.id], comment: 'Spam & abuse', uri: flag.id, category: 'other', forwarded: false });
    // Carol's status was named but not Carol: no report about her.
    expect(await reportsAbout(carol.account)).toEqual([]);
    // Delivered again: the activity is a replay, and no second report appears.
    expect(await receive(flag)).toBe('replayed');
    expect(await reportsAbout(bob.account)).toHaveLength(1);
  });

  it('stores it once even when the same Flag is handled again after a crash', async () => {
    const bob = await aUser();
    const server = await aRemote('reporting.example');
    const { flag } = await import('../../lib/inbox/flag');
    const body = flagFrom(server, apUrls.actor(bob.account.username), 'twice');
    const received = { id: body.id, type: 'Flag', actor: server, activity: body };
    expect(await flag(received)).toBe('applied');
    expect(await flag(received)).toBe('applied');
    expect(await reportsAbout(bob.account)).toHaveLength(1);
  });

  it('is ignored when it names nothing of ours (only a status, a remote account, an unknown or unconfirmed user); naming the account applies', async () => {
    const bob = await aUser();
    const pending = await aUser({ confirmed: false });
    const server = await aRemote('reporting.example');
    const bobs = await aPostedStatus(bob.account);
    const notOurs = [[statusUrl(bob, bobs.id)], [server.uri], [apUrls.actor('nobody_at_all')], [apUrls.actor(pending.account.username)], []];
    for (const object of notOurs) {
      expect(await receive(flagFrom(server, object, 'x'))).toBe('ignored');
    }
    expect(await reportsAbout(bob.account)).toEqual([]);
    expect(await reportsAbout(pending.account)).toEqual([]);
    expect(await receive(flagFrom(server, [apUrls.actor(bob.account.username), statusUrl(bob, bobs.id)], 'x'))).toBe('applied');
    expect((await reportsAbout(bob.account))[0]).toMatchObject({ statusIds: [bobs.id] });
  });

  it('is ignored when oversize; a long comment within bounds is kept, capped at 5000 characters', async () => {
    const bob = await aUser();
    const server = await aRemote('reporting.example');
    const actor = apUrls.actor(bob.account.username);
    expect(await receive(flagFrom(server, actor, 'x'.repeat(FLAG_CONTENT_RAW_MAX + 1)))).toBe('ignored');
    const manyObjects = [actor, ...Array.from({ length: 101 }, (_, i) => statusUrl(bob, String(1000 + i)))];
    expect(await receive(flagFrom(server, manyObjects, 'x'))).toBe('ignored');
    expect(await reportsAbout(bob.account)).toEqual([]);

    expect(await receive(flagFrom(server, actor, 'y'.repeat(RECEIVED_COMMENT_MAX + 1000)))).toBe('applied');
    const [stored] = await reportsAbout(bob.account);
    expect(stored!.comment).toBe('y'.repeat(RECEIVED_COMMENT_MAX));
  });
});

describe('npm run admin -- reports', () => {
  it('lists, shows and resolves reports; an unknown id is an error', async () => {
    const alice = await aUser();
    const bob = await aUser();
    const server = await aRemote('reporting.example');
    const filed = (await report(alice, { account_id: bob.account.id, comment: 'look at this' })).body as { id: string };
    expect(await receive(flagFrom(server, apUrls.actor(bob.account.username), 'from afar'))).toBe('applied');
    const received = (await reportsAbout(bob.account)).find((r) => r.uri !== null)!;

    const list = await listReports();
    expect(list).toContain(`${filed.id}  open  about ${bob.account.username}  by ${alice.account.username}`);
    expect(list).toContain(`${received.id}  open  about ${bob.account.username}  from reporting.example`);

    const shown = await showReport(filed.id);
    expect(shown).toContain('comment:     look at this');
    expect(shown).toContain(`about:       ${bob.account.username}`);

    expect(await resolveReportCommand(filed.id)).toBe(`Resolved report ${filed.id}.`);
    expect((await reportById(filed.id, true))!.actionTakenAt).not.toBeNull();
    expect(await resolveReportCommand(filed.id)).toMatch(/was already resolved/);
    expect(await showReport(filed.id)).toMatch(/state: +resolved /);

    // Through the command line: output and exit codes.
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    expect(await main(['reports', 'show', received.id], io)).toBe(0);
    expect(out.join('\n')).toContain('from reporting.example');
    expect(await main(['reports', 'show', '12345'], io)).toBe(1);
    expect(err.join('\n')).toContain('No report with id 12345');
    expect(await main(['reports', 'resolve'], io)).toBe(1);
    expect(await main(['reports', 'list', 'extra'], io)).toBe(1);
  });
});
