// A report resolved with a suspension through the moderation pages, as a moderator does it: on the local stack
// as `npm start` runs it, a user reports another through the API (masto); a moderator (given the role with
// `npm run admin -- accounts role`) opens /admin/reports in headless Chromium, is sent to the sign-in form,
// signs in, opens the report and clicks Suspend. Afterwards the reported account's token is refused (403), its
// WebSocket stream, opened before, is closed by the server, and its profile shows it suspended. Tests wait for
// arrival, never for time.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import WebSocket from 'ws';
import { arrival } from '../support/arrival';
import { launchChromium } from '../support/browser';
import { newUser } from '../support/masto';
import { useStack, type Stack } from '../support/stack';

const root = fileURLToPath(new URL('../..', import.meta.url));
const stack = useStack();
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

/** `npm run admin -- <args>` against the stack's table, as its operator runs it beside `npm start`. */
function admin(s: Stack, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  const testOnly = /^(STAGE|TABLE_NAME|MEDIA_BUCKET|MEDIA_URL|BASE_URL|STREAMING_URL|STREAMING_MANAGEMENT_URL|QUEUE_MODE|QUEUE_URL_.*|LAMBDA_ENDPOINT|MAIL_DIR|SECRET_KEY_BASE|SECRETS_PATH|AWS_ENDPOINT_URL.*|TEST_.*)$/;
  for (const [k, v] of Object.entries(process.env)) if (!testOnly.test(k)) env[k] = v;
  Object.assign(env, {
    STAGE: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: s.dynamo.endpoint,
    TABLE_NAME: s.dynamo.tableName,
    BASE_URL: s.baseUrl,
    STREAMING_URL: s.wsUrl,
    STREAMING_MANAGEMENT_URL: s.managementUrl,
    QUEUE_MODE: 'lambda',
    LAMBDA_ENDPOINT: s.lambdaEndpoint,
    DATA_DIR: s.dataDir,
    MAIL_DIR: s.mailDir,
  });
  return new Promise((done) => {
    execFile(resolve(root, 'node_modules/.bin/tsx'), ['lib/admin/cli.ts', ...args], { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A WebSocket on the `user` stream, noting whether the server closed it. */
async function userStream(streamingApi: string, token: string) {
  const ws = new WebSocket(`${streamingApi}/api/v1/streaming?stream=user&access_token=${encodeURIComponent(token)}`);
  let closedBy: { code: number } | undefined;
  ws.on('close', (code: number) => (closedBy = { code }));
  await new Promise<void>((done, fail) => {
    ws.once('open', () => done());
    ws.once('error', fail);
  });
  return { closed: () => closedBy, close: () => ws.close() };
}

describe('the moderation pages in a browser', () => {
  it('resolve a report filed through the API with a one-click suspension: token, stream and profile are gone', async () => {
    const base = stack().baseUrl;
    const [reporter, spammer, mod] = await Promise.all([newUser(base, 'reporter'), newUser(base, 'spammer'), newUser(base, 'mod')]);
    const granted = await admin(stack(), 'accounts', 'role', mod.me.username, 'moderator');
    expect(granted).toMatchObject({ code: 0 });

    const post = await spammer.client.v1.statuses.create({ status: 'Buy <cheap> followers now!', visibility: 'public' });
    const report = await reporter.client.v1.reports.create({ accountId: spammer.me.id, statusIds: [post.id], comment: 'Spam & "ads"', category: 'spam' });

    const { urls } = await spammer.client.v1.instance.fetch();
    const stream = await userStream(urls.streamingApi, spammer.token);
    try {
      const page = await browser.newPage();
      // Not signed in: the queue sends the browser to the sign-in form, which brings it back.
      await page.goto(`${base}/admin/reports`);
      expect(new URL(page.url()).pathname).toBe('/admin/sign_in');
      await page.fill('input[name="email"]', `${mod.me.username}@example.com`);
      await page.fill('input[name="password"]', 'social passphrase 7');
      await Promise.all([page.waitForURL(/\/admin\/reports$/), page.getByRole('button', { name: 'Sign in' }).click()]);

      // The queue lists the report; its page shows the comment and the reported status, as text.
      await Promise.all([page.waitForURL(new RegExp(`/admin/reports/${report.id}$`)), page.click(`a[href="/admin/reports/${report.id}"]`)]);
      await expect(page.locator('#comment').textContent()).resolves.toBe('Spam & "ads"');
      await expect(page.locator(`#status-${post.id} .content`).textContent()).resolves.toContain('Buy <cheap> followers now!');
      await expect(page.locator('#state').textContent()).resolves.toBe('Unresolved');

      // One click.
      await Promise.all([page.waitForURL(/notice=actioned/), page.getByRole('button', { name: 'Suspend' }).click()]);
      await expect(page.locator('#notice').textContent()).resolves.toBe('The action was taken and the report resolved.');
      await expect(page.locator('#state').textContent()).resolves.toMatch(/^Resolved/);
      await page.close();

      // The suspended account: its token refused, its stream closed by the server, its profile suspended.
      const verify = await fetch(`${base}/api/v1/accounts/verify_credentials`, { headers: { Authorization: `Bearer ${spammer.token}` } });
      expect(verify.status).toBe(403);
      await arrival(() => stream.closed(), 'the server to close the suspended account\'s stream');
      const profile = await fetch(`${base}/api/v1/accounts/${spammer.me.id}`, { headers: { Authorization: `Bearer ${reporter.token}` } });
      if (profile.status === 200) expect(await profile.json()).toMatchObject({ id: spammer.me.id, suspended: true });
      else expect(profile.status).toBe(404);
    } finally {
      stream.close();
    }
  }, 180_000);
});
