// The admin accounts API tried with masto's own admin methods on the local stack, as a moderator's app would: the
// operator makes the moderator with `npm run admin -- accounts role`, who lists, inspects, sanctions and lifts.
// masto has no v2 admin methods: GET /api/v2/admin/accounts is asked with fetch.
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { newUser, type MastoUser } from '../support/masto';
import { useStack, type Stack } from '../support/stack';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const stack = useStack();
const SLOW = 120_000;

/** `npm run admin -- <args>` against this stack (as test/e2e/masto-v4.test.ts runs it). */
async function admin(s: Stack, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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

const REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';
const ADMIN_SCOPES = 'read write admin:read admin:write';

/** A user signed up through an app that asks for the admin scopes (its token holds them; its role decides). */
async function newStaffCandidate(baseUrl: string, name: string): Promise<{ client: mastodon.rest.Client; me: mastodon.v1.AccountCredentials; token: string }> {
  const anon = createRestAPIClient({ url: baseUrl });
  const app = await anon.v1.apps.create({ clientName: `e2e ${name}`, redirectUris: REDIRECT, scopes: ADMIN_SCOPES });
  const oauth = createOAuthAPIClient({ url: baseUrl });
  const appToken = await oauth.token.create({ grantType: 'client_credentials', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: REDIRECT, scope: 'read write' });
  const username = `${name}${Date.now().toString(36)}`;
  const asApp = createRestAPIClient({ url: baseUrl, accessToken: appToken.accessToken });
  const token = await asApp.v1.accounts.create({ username, email: `${username}@example.com`, password: 'social passphrase 7', agreement: true, locale: 'en' });
  const client = createRestAPIClient({ url: baseUrl, accessToken: token.accessToken });
  return { client, me: await client.v1.accounts.verifyCredentials(), token: token.accessToken };
}

describe('the admin accounts API with masto', () => {
  let mod: Awaited<ReturnType<typeof newStaffCandidate>>;
  let troll: MastoUser;

  beforeAll(async () => {
    mod = await newStaffCandidate(stack().baseUrl, 'mod');
    troll = await newUser(stack().baseUrl, 'troll');
  }, SLOW);

  it('answers 403 before the operator gives the role, then the moderator works with masto admin methods', async () => {
    await expect(mod.client.v1.admin.accounts.list({ username: troll.me.username })).rejects.toMatchObject({ statusCode: 403 });
    const made = await admin(stack(), 'accounts', 'role', mod.me.username, 'moderator');
    expect(made.code).toBe(0);
    expect((await mod.client.v1.accounts.verifyCredentials()).role).toMatchObject({ name: 'Moderator' });

    const listed = await mod.client.v1.admin.accounts.list({ username: troll.me.username, local: true });
    expect(listed.map((a) => a.id)).toEqual([troll.me.id]);
    const one = await mod.client.v1.admin.accounts.$select(troll.me.id).fetch();
    expect(one).toMatchObject({ id: troll.me.id, username: troll.me.username, silenced: false, suspended: false, disabled: false, approved: true, ip: '127.0.0.1' });

    await mod.client.v1.admin.accounts.$select(troll.me.id).action.create({ type: 'silence', text: 'calm down', sendEmailNotification: true });
    await mod.client.v1.admin.accounts.$select(troll.me.id).action.create({ type: 'sensitive' });
    await mod.client.v1.admin.accounts.$select(troll.me.id).action.create({ type: 'disable' });
    expect(await mod.client.v1.admin.accounts.$select(troll.me.id).fetch()).toMatchObject({ silenced: true, sensitized: true, disabled: true });
    expect((await mod.client.v1.admin.accounts.list({ silenced: true, username: troll.me.username })).map((a) => a.id)).toEqual([troll.me.id]);
    const v2 = await fetch(`${stack().baseUrl}/api/v2/admin/accounts?status=disabled&username=${troll.me.username}`, { headers: { authorization: `Bearer ${mod.token}` } });
    expect(v2.status).toBe(200);
    expect(((await v2.json()) as { id: string }[]).map((a) => a.id)).toEqual([troll.me.id]);

    expect(await mod.client.v1.admin.accounts.$select(troll.me.id).unsilence()).toMatchObject({ silenced: false });
    expect(await mod.client.v1.admin.accounts.$select(troll.me.id).unsensitive()).toMatchObject({ sensitized: false });
    expect(await mod.client.v1.admin.accounts.$select(troll.me.id).enable()).toMatchObject({ disabled: false });
    await mod.client.v1.admin.accounts.$select(troll.me.id).action.create({ type: 'suspend' });
    expect(await mod.client.v1.admin.accounts.$select(troll.me.id).fetch()).toMatchObject({ suspended: true });
    expect(await mod.client.v1.admin.accounts.$select(troll.me.id).unsuspend()).toMatchObject({ suspended: false });

    // The moderator may not act on itself.
    await expect(mod.client.v1.admin.accounts.$select(mod.me.id).action.create({ type: 'silence' })).rejects.toMatchObject({ statusCode: 403 });
  }, SLOW);
});
