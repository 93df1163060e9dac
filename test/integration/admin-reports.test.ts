// The moderators' reports API (functions/admin_reports/, lib/moderation/reports.ts): every route through HTTP,
// the list's filters (state, reporter, target) and Link paging, bad inputs, the permission and scope checks, the
// audit log, and the operator's `reports` commands on the same store.
import { readFileSync } from 'node:fs';
import { handler as assignHandler } from '../../functions/admin_reports/assign_to_self';
import { handler as listHandler } from '../../functions/admin_reports/index';
import { handler as reopenHandler } from '../../functions/admin_reports/reopen';
import { handler as resolveHandler } from '../../functions/admin_reports/resolve';
import { handler as showHandler } from '../../functions/admin_reports/show';
import { handler as unassignHandler } from '../../functions/admin_reports/unassign';
import { handler as updateHandler } from '../../functions/admin_reports/update';
import { handler as createReport } from '../../functions/reports/create';
import { addRule } from '../../lib/admin/commands';
import { listReports, reindexReportsCommand, resolveReportCommand } from '../../lib/admin/report_commands';
import { setRole, type Account } from '../../lib/db/accounts';
import { auditLogPage, type AuditEntry } from '../../lib/db/audit_log';
import { instanceSettings } from '../../lib/db/instance';
import * as gsi1 from '../../lib/db/gsi1';
import * as keys from '../../lib/db/keys';
import { reportById } from '../../lib/db/reports';
import { putItem } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { aFollow, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

// Filing a report tells the staff through the notify queue (admin-notifications.test.ts); not this file's subject.
registerInlineWorker('notify', async () => ({ batchItemFailures: [] }));

const ADMIN_SCOPES = ['read', 'write', 'admin:read:reports', 'admin:write:reports'];

/** A local user given a role (Moderator '1', Admin '2', Owner '3'), with a token of the given scopes. */
async function aStaffMember(roleId: string, scopes = ADMIN_SCOPES): Promise<UserFixture & { account: Account }> {
  const user = await aUser({ scopes });
  const account = await setRole(user.account.id, roleId, roleId === '3');
  return { ...user, account: account! };
}

const fileReport = async (reporter: UserFixture, json: Record<string, unknown>): Promise<string> => {
  const res = await call(createReport, { method: 'POST', path: '/api/v1/reports', json, token: reporter.token });
  expect(res.status).toBe(200);
  return res.body.id as string;
};

const list = (token: string, query: Record<string, string> = {}) => call(listHandler, { path: '/api/v1/admin/reports', query, token });
const show = (token: string, id: string) => call(showHandler, { path: `/api/v1/admin/reports/${id}`, pathParameters: { id }, token });
const act = (handler: typeof resolveHandler, action: string, token: string, id: string) =>
  call(handler, { method: 'POST', path: `/api/v1/admin/reports/${id}/${action}`, pathParameters: { id }, token });
const update = (token: string, id: string, json: Record<string, unknown>) =>
  call(updateHandler, { method: 'PUT', path: `/api/v1/admin/reports/${id}`, pathParameters: { id }, json, token });

const ids = (res: Answer): string[] => (res.body as { id: string }[]).map((r) => r.id);
/** The audit entries about one report, oldest first. */
const auditOf = async (reportId: string): Promise<Pick<AuditEntry, 'action' | 'accountId'>[]> =>
  (await auditLogPage({ limit: 200 }))
    .filter((e) => e.targetType === 'Report' && e.targetId === reportId)
    .reverse()
    .map((e) => ({ action: e.action, accountId: e.accountId }));

const adminReportSchema = (): { required: string[] } =>
  JSON.parse(readFileSync(new URL('../fixtures/mastodon-openapi/schemas.json', import.meta.url), 'utf8')).components.schemas.AdminReport;

let moderator: Awaited<ReturnType<typeof aStaffMember>>;
let alice: UserFixture;
let carol: UserFixture;
let bob: UserFixture;
let dave: UserFixture;
/** Reports in the order filed: alice→bob, carol→bob, alice→dave, carol→dave, alice→bob. */
let filed: string[];
let ruleId: string;

beforeAll(async () => {
  moderator = await aStaffMember('1');
  [alice, carol, bob, dave] = [await aUser(), await aUser(), await aUser(), await aUser()];
  await addRule('No spam');
  ruleId = (await instanceSettings()).rules.at(-1)!.id;
  // A followers-only status alice (a follower) may report, which the moderator could not otherwise see.
  await aFollow(alice.account, bob.account);
  const status = await aPostedStatus(bob.account, { visibility: 'private' });
  filed = [];
  filed.push(await fileReport(alice, { account_id: bob.account.id, status_ids: [status.id], comment: 'first', category: 'violation', rule_ids: [ruleId] }));
  filed.push(await fileReport(carol, { account_id: bob.account.id, comment: 'second' }));
  filed.push(await fileReport(alice, { account_id: dave.account.id, comment: 'third' }));
  filed.push(await fileReport(carol, { account_id: dave.account.id, comment: 'fourth', category: 'spam' }));
  filed.push(await fileReport(alice, { account_id: bob.account.id, comment: 'fifth' }));
});

describe('GET /api/v1/admin/reports', () => {
  it('lists the open reports newest first as Admin::Report, with their accounts, statuses and rules', async () => {
    const res = await list(moderator.token);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([...filed].reverse());
    const first = (res.body as Record<string, any>[]).find((r) => r.id === filed[0])!;
    const { required } = adminReportSchema();
    expect(required.filter((field) => !(field in first))).toEqual([]);
    expect(first).toMatchObject({
      action_taken: false,
      action_taken_at: null,
      category: 'violation',
      comment: 'first',
      forwarded: false,
      assigned_account: null,
      action_taken_by_account: null,
      // Admin::Account: the login's e-mail, and the public Account inside.
      account: { id: alice.account.id, username: alice.account.username, email: alice.account.email, account: { id: alice.account.id } },
      target_account: { id: bob.account.id, account: { acct: bob.account.username } },
      rules: [{ id: ruleId, text: 'No spam', hint: '' }],
    });
    // A private status the moderator could not otherwise see is shown to them in the report.
    expect(first.statuses).toHaveLength(1);
    expect(first.statuses[0]).toMatchObject({ visibility: 'private', account: { id: bob.account.id } });
    expect(first.updated_at).toBe(first.created_at);
  });

  it('narrows by reporter, by target, and by both', async () => {
    expect(ids(await list(moderator.token, { account_id: alice.account.id }))).toEqual([filed[4], filed[2], filed[0]]);
    expect(ids(await list(moderator.token, { target_account_id: dave.account.id }))).toEqual([filed[3], filed[2]]);
    expect(ids(await list(moderator.token, { account_id: carol.account.id, target_account_id: bob.account.id }))).toEqual([filed[1]]);
    expect(ids(await list(moderator.token, { account_id: bob.account.id }))).toEqual([]);
  });

  it('pages with limit and Link (next older by max_id, prev newer by min_id)', async () => {
    const page1 = await list(moderator.token, { limit: '2' });
    expect(ids(page1)).toEqual([filed[4], filed[3]]);
    const link = page1.headers.link ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    const prev = /<([^>]+)>; rel="prev"/.exec(link)?.[1];
    expect(next).toContain(`max_id=${filed[3]}`);
    expect(next).toContain('limit=2');
    expect(prev).toContain(`min_id=${filed[4]}`);
    const page2 = await list(moderator.token, Object.fromEntries(new URL(next!).searchParams));
    expect(ids(page2)).toEqual([filed[2], filed[1]]);
    const back = await list(moderator.token, { limit: '2', min_id: filed[1]! });
    expect(ids(back)).toEqual([filed[3], filed[2]]);
    expect(ids(await list(moderator.token, { since_id: filed[2]! }))).toEqual([filed[4], filed[3]]);
    // The filters travel with the links.
    const narrowed = await list(moderator.token, { account_id: alice.account.id, limit: '1' });
    expect(narrowed.headers.link).toContain(`account_id=${alice.account.id}`);
  });

  it('answers 422 naming the field for a malformed filter or page bound', async () => {
    for (const [query, field] of [
      [{ account_id: 'alice' }, 'account_id'],
      [{ target_account_id: '12x' }, 'target_account_id'],
      [{ resolved: 'perhaps' }, 'resolved'],
      [{ max_id: 'abc' }, 'max_id'],
      [{ limit: 'many' }, 'limit'],
    ] as const) {
      const res = await list(moderator.token, query);
      expect(res.status).toBe(422);
      expect(res.body.error).toContain(field);
    }
  });
});

describe('who may use it', () => {
  it('a Moderator and an Admin may; a plain user with the admin scopes, a token without them, or without a token may not', async () => {
    const admin = await aStaffMember('2');
    const owner = await aStaffMember('3');
    expect((await list(admin.token)).status).toBe(200);
    expect((await list(owner.token)).status).toBe(200);

    const plain = await aUser({ scopes: ADMIN_SCOPES });
    for (const res of [await list(plain.token), await show(plain.token, filed[0]!), await act(resolveHandler, 'resolve', plain.token, filed[0]!)]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'This action is not allowed' });
    }

    const unscoped = await aStaffMember('1', ['read', 'write']);
    const res = await list(unscoped.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
    // admin:read covers the reads, not the writes.
    const reader = await aStaffMember('1', ['admin:read']);
    expect((await show(reader.token, filed[0]!)).status).toBe(200);
    expect((await act(assignHandler, 'assign_to_self', reader.token, filed[0]!)).status).toBe(403);
    const writer = await aStaffMember('1', ['admin:write']);
    expect((await act(assignHandler, 'assign_to_self', writer.token, filed[3]!)).status).toBe(200);
    await act(unassignHandler, 'unassign', writer.token, filed[3]!);

    expect((await call(listHandler, { path: '/api/v1/admin/reports' })).status).toBe(401);
    expect(await reportById(filed[0]!)).toMatchObject({ actionTakenAt: null, assignedAccountId: null });
  });
});

describe('GET /api/v1/admin/reports/:id', () => {
  it('shows one report; 404 for an unknown or malformed id', async () => {
    const res = await show(moderator.token, filed[2]!);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: filed[2], comment: 'third', target_account: { id: dave.account.id } });
    for (const id of [newId(), 'abc', '0']) {
      const missing = await show(moderator.token, id);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: 'Record not found' });
    }
  });
});

describe('assign_to_self and unassign', () => {
  it('assigns the report to the caller and back to nobody, each once in the audit log however often repeated', async () => {
    const id = filed[1]!;
    const assigned = await act(assignHandler, 'assign_to_self', moderator.token, id);
    expect(assigned.status).toBe(200);
    expect(assigned.body.assigned_account).toMatchObject({ id: moderator.account.id, role: { name: 'Moderator' } });
    expect(Date.parse(assigned.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(assigned.body.created_at));
    const again = await act(assignHandler, 'assign_to_self', moderator.token, id);
    expect(again.status).toBe(200);
    expect(again.body.assigned_account.id).toBe(moderator.account.id);
    expect(again.body.updated_at).toBe(assigned.body.updated_at);

    // Another moderator may take it over.
    const other = await aStaffMember('1');
    expect((await act(assignHandler, 'assign_to_self', other.token, id)).body.assigned_account.id).toBe(other.account.id);

    const released = await act(unassignHandler, 'unassign', moderator.token, id);
    expect(released.status).toBe(200);
    expect(released.body.assigned_account).toBeNull();
    expect((await act(unassignHandler, 'unassign', moderator.token, id)).body.assigned_account).toBeNull();

    expect(await auditOf(id)).toEqual([
      { action: 'assigned_to_self', accountId: moderator.account.id },
      { action: 'assigned_to_self', accountId: other.account.id },
      { action: 'unassigned', accountId: moderator.account.id },
    ]);
    expect((await act(assignHandler, 'assign_to_self', moderator.token, newId())).status).toBe(404);
    expect((await act(unassignHandler, 'unassign', moderator.token, 'nope')).status).toBe(404);
  });
});

describe('resolve and reopen', () => {
  it('moves the report between the open and the resolved lists, naming who resolved it, idempotently', async () => {
    const id = filed[2]!;
    const resolved = await act(resolveHandler, 'resolve', moderator.token, id);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ action_taken: true, action_taken_by_account: { id: moderator.account.id } });
    expect(Date.parse(resolved.body.action_taken_at)).not.toBeNaN();
    const twice = await act(resolveHandler, 'resolve', moderator.token, id);
    expect(twice.body.action_taken_at).toBe(resolved.body.action_taken_at);

    expect(ids(await list(moderator.token))).not.toContain(id);
    expect(ids(await list(moderator.token, { resolved: 'true' }))).toEqual([id]);
    expect(ids(await list(moderator.token, { resolved: 'true', target_account_id: dave.account.id }))).toEqual([id]);
    expect(ids(await list(moderator.token, { resolved: 'true', account_id: alice.account.id }))).toEqual([id]);
    expect(ids(await list(moderator.token, { target_account_id: dave.account.id }))).toEqual([filed[3]]);
    // resolved=false is the default list.
    expect(ids(await list(moderator.token, { resolved: 'false' }))).toEqual(ids(await list(moderator.token)));

    const reopened = await act(reopenHandler, 'reopen', moderator.token, id);
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ action_taken: false, action_taken_at: null, action_taken_by_account: null });
    expect((await act(reopenHandler, 'reopen', moderator.token, id)).body.action_taken).toBe(false);
    expect(ids(await list(moderator.token, { resolved: 'true' }))).toEqual([]);
    expect(ids(await list(moderator.token, { account_id: alice.account.id }))).toEqual([filed[4], filed[2], filed[0]]);

    expect(await auditOf(id)).toEqual([
      { action: 'resolve', accountId: moderator.account.id },
      { action: 'reopen', accountId: moderator.account.id },
    ]);
    expect((await act(resolveHandler, 'resolve', moderator.token, newId())).status).toBe(404);
    expect((await act(reopenHandler, 'reopen', moderator.token, newId())).status).toBe(404);
  });
});

describe('PUT /api/v1/admin/reports/:id', () => {
  it('changes the category and the rules cited, as Mastodon validates them', async () => {
    const id = filed[0]!; // a violation citing ruleId
    // Another category with the rules still cited: Mastodon's "must be blank".
    const blank = await update(moderator.token, id, { category: 'spam' });
    expect(blank.status).toBe(422);
    expect(blank.body.error).toBe('Validation failed: Rule ids must be blank');

    const spam = await update(moderator.token, id, { category: 'spam', rule_ids: [] });
    expect(spam.status).toBe(200);
    expect(spam.body).toMatchObject({ category: 'spam', rules: [] });

    const unknownRule = await update(moderator.token, id, { category: 'violation', rule_ids: ['999'] });
    expect(unknownRule.status).toBe(422);
    expect(unknownRule.body.error).toBe('Validation failed: Rule ids does not reference valid rules');

    // A form body, as Mastodon's web client sends it.
    const violation = await call(updateHandler, {
      method: 'PUT',
      path: `/api/v1/admin/reports/${id}`,
      pathParameters: { id },
      form: { category: 'violation', 'rule_ids[]': ruleId },
      token: moderator.token,
    });
    expect(violation.status).toBe(200);
    expect(violation.body).toMatchObject({ category: 'violation', rules: [{ id: ruleId, text: 'No spam' }] });
    // The same again changes nothing and logs nothing.
    expect((await update(moderator.token, id, { category: 'violation', rule_ids: [ruleId] })).status).toBe(200);
    expect(await auditOf(id)).toEqual([
      { action: 'update', accountId: moderator.account.id },
      { action: 'update', accountId: moderator.account.id },
    ]);
    expect(await reportById(id)).toMatchObject({ category: 'violation', ruleIds: [ruleId], comment: 'first' });
    // A form's empty `rule_ids[]=` is no rule: the way a form clears them.
    const cleared = await call(updateHandler, {
      method: 'PUT',
      path: `/api/v1/admin/reports/${id}`,
      pathParameters: { id },
      form: { category: 'other', 'rule_ids[]': '' },
      token: moderator.token,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ category: 'other', rules: [] });
    await update(moderator.token, id, { category: 'violation', rule_ids: [ruleId] });
  });

  it('answers 422 naming the field for a bad category or rule list, 404 for an unknown report', async () => {
    const bad = await update(moderator.token, filed[3]!, { category: 'rude' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toContain('category');
    const notList = await update(moderator.token, filed[3]!, { rule_ids: { a: 1 } });
    expect(notList.status).toBe(422);
    expect(notList.body.error).toContain('rule_ids');
    expect((await update(moderator.token, newId(), { category: 'spam' })).status).toBe(404);
    expect(await reportById(filed[3]!)).toMatchObject({ category: 'spam' });
  });
});

describe('the operator commands on the same store', () => {
  it('list and resolve keep working, and a resolve from the command line leaves the open list', async () => {
    expect(await listReports()).toContain(filed[4]);
    expect(await resolveReportCommand(filed[4]!)).toBe(`Resolved report ${filed[4]}.`);
    expect(ids(await list(moderator.token))).not.toContain(filed[4]);
    const res = await show(moderator.token, filed[4]!);
    expect(res.body).toMatchObject({ action_taken: true, action_taken_by_account: null });
    await act(reopenHandler, 'reopen', moderator.token, filed[4]!);
  });

  it('reindex files a report stored before the queues existed into them', async () => {
    const id = newId();
    // A report item as an older version wrote it: no queue entries beside it.
    await putItem({
      ...keys.report(id),
      ...gsi1.report(id),
      id,
      accountId: carol.account.id,
      targetAccountId: dave.account.id,
      statusIds: [],
      comment: 'older',
      category: 'other',
      ruleIds: [],
      forwarded: false,
      uri: null,
      actionTakenAt: null,
      createdAt: new Date().toISOString(),
    });
    expect(ids(await list(moderator.token))).not.toContain(id);
    expect(await reindexReportsCommand()).toMatch(/^Filed \d+ reports into the moderators' queues\.$/);
    expect(ids(await list(moderator.token))[0]).toBe(id);
    expect(ids(await list(moderator.token, { account_id: carol.account.id, target_account_id: dave.account.id }))).toEqual([id, filed[3]]);
  });
});
