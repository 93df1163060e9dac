// A moderator works the report queue with masto's own admin methods on the local stack (issue 26): the operator
// makes them a moderator with the CLI; a user reports someone; the moderator is notified (admin.report) and
// mailed, finds the report in masto.v1.admin.reports.list (and by its filters, paging by Link), takes it on,
// reclassifies it, gives it up, resolves it and reopens it. A plain user's token with the admin scopes is refused.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { eventually, newUser } from '../support/masto';
import { operator } from '../support/operator';
import { useStack } from '../support/stack';

const stack = useStack({ env: { RATE_LIMIT_FACTOR: '20' } });

const SLOW = 150_000;
const WORKERS = 60_000;
const REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';
const ADMIN_SCOPES = 'read write follow push admin:read admin:write';

/** Someone who signs up with an app that asks for the admin scopes too (as Mastodon's moderation apps do). */
async function staffCandidate(name: string): Promise<{ client: mastodon.rest.Client; me: mastodon.v1.AccountCredentials }> {
  const baseUrl = stack().baseUrl;
  const anon = createRestAPIClient({ url: baseUrl });
  const app = await anon.v1.apps.create({ clientName: `e2e ${name}`, redirectUris: REDIRECT, scopes: ADMIN_SCOPES });
  const oauth = createOAuthAPIClient({ url: baseUrl });
  const appToken = await oauth.token.create({ grantType: 'client_credentials', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: REDIRECT, scope: ADMIN_SCOPES });
  const username = `${name}${Date.now().toString(36)}`;
  const asApp = createRestAPIClient({ url: baseUrl, accessToken: appToken.accessToken });
  const token = await asApp.v1.accounts.create({ username, email: `${username}@example.com`, password: 'social passphrase 7', agreement: true, locale: 'en' });
  const client = createRestAPIClient({ url: baseUrl, accessToken: token.accessToken });
  return { client, me: await client.v1.accounts.verifyCredentials() };
}

/** masto 7 has no typed `update` on a report; its proxy sends `update` as PUT to the same path. */
type Updatable = { update: (params: { category?: string; ruleIds?: string[] }) => Promise<mastodon.v1.Admin.Report> };

const statusOf = (request: Promise<unknown>) =>
  request.then(
    () => 200,
    (err: { statusCode?: number }) => err.statusCode ?? 0,
  );

describe('a moderator works the report queue with masto', () => {
  it('is told of a report, lists, filters, pages, assigns, updates, resolves and reopens it', async () => {
    const mod = await staffCandidate('mod');
    const promoted = await operator(stack(), 'accounts', 'role', mod.me.username, 'moderator');
    expect(promoted.code).toBe(0);

    const reporter = await newUser(stack().baseUrl, 'rep');
    const target = await newUser(stack().baseUrl, 'trg');
    const other = await newUser(stack().baseUrl, 'oth');
    const rude = await target.client.v1.statuses.create({ status: 'buy followers cheap', visibility: 'public' });
    const report = await reporter.client.v1.reports.create({ accountId: target.me.id, statusIds: [rude.id], comment: 'spam again', category: 'spam' });
    const second = await reporter.client.v1.reports.create({ accountId: other.me.id, comment: 'also spam', category: 'other' });

    // Told by the notify worker: an admin.report notification carrying the report, and an e-mail.
    const notified = await eventually(async () => {
      const list = await mod.client.v1.notifications.list({ types: ['admin.report'] });
      return list.find((n) => n.report?.id === report.id);
    }, 'the admin.report notification', WORKERS);
    expect(notified).toMatchObject({ type: 'admin.report', account: { id: reporter.me.id } });
    const mail = await eventually(async () => {
      const files = (await readdir(stack().mailDir).catch(() => [] as string[])).filter((f) => f.includes(mod.me.username));
      for (const f of files) {
        const m = JSON.parse(await readFile(join(stack().mailDir, f), 'utf8')) as { subject: string; text: string };
        if (m.subject.includes(report.id)) return m;
      }
      return undefined;
    }, 'the report e-mail', WORKERS);
    expect(mail.text).toContain(`/admin/reports/${report.id}`);

    const reports = mod.client.v1.admin.reports;
    const open = await reports.list();
    expect(open.map((r) => r.id)).toEqual([second.id, report.id]);
    const [listed] = open.filter((r) => r.id === report.id);
    expect(listed).toMatchObject({ actionTaken: false, category: 'spam', comment: 'spam again', account: { id: reporter.me.id }, targetAccount: { id: target.me.id } });
    expect(listed!.statuses.map((s) => s.id)).toEqual([rude.id]);
    expect((await reports.list({ targetAccountId: target.me.id })).map((r) => r.id)).toEqual([report.id]);
    expect((await reports.list({ accountId: reporter.me.id, targetAccountId: other.me.id })).map((r) => r.id)).toEqual([second.id]);

    // Paging one at a time by Link, as masto's paginator follows it.
    const pages: string[][] = [];
    // `limit` is Mastodon's parameter, which masto 7's type for this list leaves out.
    for await (const page of reports.list({ limit: 1 } as Parameters<typeof reports.list>[0])) pages.push(page.map((r) => r.id));
    expect(pages.filter((p) => p.length > 0)).toEqual([[second.id], [report.id]]);

    const mine = await reports.$select(report.id).assignToSelf();
    expect(mine.assignedAccount?.id).toBe(mod.me.id);
    const updated = await (reports.$select(report.id) as unknown as Updatable).update({ category: 'other' });
    expect(updated).toMatchObject({ category: 'other', rules: [] });
    const released = await reports.$select(report.id).unassign();
    expect(released.assignedAccount).toBeNull();

    const resolved = await reports.$select(report.id).resolve();
    expect(resolved).toMatchObject({ actionTaken: true, actionTakenByAccount: { id: mod.me.id } });
    expect((await reports.list()).map((r) => r.id)).toEqual([second.id]);
    expect((await reports.list({ resolved: true })).map((r) => r.id)).toEqual([report.id]);
    const fetched = await reports.$select(report.id).fetch();
    expect(fetched.actionTaken).toBe(true);
    const reopened = await reports.$select(report.id).reopen();
    expect(reopened).toMatchObject({ actionTaken: false, actionTakenAt: null });
    expect((await reports.list()).map((r) => r.id)).toEqual([second.id, report.id]);

    // The operator's CLI reads the same queue.
    const cli = await operator(stack(), 'reports', 'show', report.id);
    expect(cli.stdout).toContain('state:       open');

    // A user who is not staff, holding a token with the admin scopes, is refused.
    const outsider = await staffCandidate('out');
    expect(await statusOf(Promise.resolve(outsider.client.v1.admin.reports.list()))).toBe(403);
    expect(await statusOf(outsider.client.v1.admin.reports.$select(report.id).resolve())).toBe(403);
  }, SLOW);
});
