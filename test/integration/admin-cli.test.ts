import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { handler as mailWorker } from '../../functions/workers/mail';
import {
  AdminError,
  addRule,
  approve,
  confirmAccount,
  createAccount,
  listPending,
  removeRule,
  setDisabled,
  setSetting,
  showAccount,
  showSettings,
} from '../../lib/admin/commands';
import { applyLocalDefaults, main } from '../../lib/admin/cli';
import { accountByUsername, oldestAdmins } from '../../lib/db/accounts';
import { instanceSettings, updateInstanceSettings } from '../../lib/db/instance';
import { freePort } from '../../infra/local/emulators';
import { verifyPassword } from '../../lib/password';
import { registerInlineWorker } from '../../lib/queue';
import { aUser } from '../support/factories';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// Unconfirmed sign-ups get a confirmation mail: let the real mail worker take it.
registerInlineWorker('mail', mailWorker);

let seq = 0;
const fresh = (prefix = 'op') => `${prefix}_${Date.now().toString(36)}${(seq++).toString(36)}`;

const expectAdminError = async (promise: Promise<unknown>, message: RegExp) => {
  await expect(promise).rejects.toThrow(AdminError);
  await expect(promise).rejects.toThrow(message);
};

describe('accounts create', () => {
  it('creates a confirmed, approved admin and prints a generated password', async () => {
    const username = fresh();
    const { account, password, output } = await createAccount({ username, email: `${username}@example.com`, admin: true, confirmed: true, approve: true });
    expect(output).toContain(`Created ${username}`);
    expect(output).toContain(`New password: ${password}`);
    expect(password.length).toBeGreaterThanOrEqual(20);
    const stored = await accountByUsername(username);
    expect(stored).toMatchObject({ id: account.id, admin: true, approved: true, email: `${username}@example.com` });
    expect(stored?.confirmedAt).not.toBeNull();
    expect(await verifyPassword(stored?.passwordHash, password)).toBe(true);
    expect((await oldestAdmins(100)).map((a) => a.id)).toContain(account.id);
  });

  it('uses the given password and otherwise follows the instance policy', async () => {
    await updateInstanceSettings({ registrationsMode: 'approved', requireEmailConfirmation: true });
    const username = fresh();
    const { account, output } = await createAccount({ username, email: `${username}@example.com`, password: 'a given password' });
    expect(output).not.toContain('New password');
    expect(account).toMatchObject({ admin: false, approved: false, confirmedAt: null });
    expect(await verifyPassword((await accountByUsername(username))?.passwordHash, 'a given password')).toBe(true);
    expect(await listPending()).toContain(username);
    await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: false });
  });

  it('works while registrations are closed (the operator is not a visitor)', async () => {
    await updateInstanceSettings({ registrationsMode: 'none' });
    const username = fresh();
    await createAccount({ username, email: `${username}@example.com`, confirmed: true });
    expect(await accountByUsername(username)).toBeDefined();
    await updateInstanceSettings({ registrationsMode: 'open' });
  });

  it.each([
    ['a taken username', async () => ({ username: (await aUser()).account.username, email: `${fresh()}@example.com` }), /Username has already been taken/],
    ['a taken e-mail', async () => ({ username: fresh(), email: (await aUser()).account.email ?? '' }), /E-mail address has already been taken/],
    ['an invalid username', async () => ({ username: 'no spaces', email: `${fresh()}@example.com` }), /Username/],
    ['an invalid e-mail', async () => ({ username: fresh(), email: 'not-an-address' }), /E-mail address is invalid/],
    ['a short password', async () => ({ username: fresh(), email: `${fresh()}@example.com`, password: 'short' }), /Password is too short/],
  ])('refuses %s with a message and writes nothing', async (_name, build, message) => {
    const input = await build();
    const before = await accountByUsername(input.username);
    await expectAdminError(createAccount(input), message);
    expect(await accountByUsername(input.username)).toEqual(before);
  });
});

describe('account state commands', () => {
  it('confirms, approves, disables, enables and shows an account', async () => {
    const { account } = await aUser({ confirmed: false, approved: false });
    const name = account.username;
    expect(await listPending()).toContain(name);
    expect(await confirmAccount(name)).toBe(`Confirmed ${name}.`);
    expect(await confirmAccount(name)).toBe(`${name} was already confirmed.`);
    expect(await approve(name)).toBe(`Approved ${name}.`);
    expect(await approve(`@${name}`)).toBe(`${name} was already approved.`);
    expect(await listPending()).not.toContain(name);
    expect(await setDisabled(name, true)).toBe(`Disabled the login of ${name}.`);
    expect((await accountByUsername(name))?.disabled).toBe(true);
    expect(await showAccount(name)).toMatch(/disabled:\s+yes/);
    expect(await setDisabled(name, false)).toBe(`Enabled the login of ${name}.`);
    const stored = await accountByUsername(name);
    expect(stored).toMatchObject({ approved: true, disabled: false });
    expect(stored?.confirmedAt).not.toBeNull();
    const shown = await showAccount(name);
    expect(shown).toContain(`username:      ${name}`);
    expect(shown).toContain(`id:            ${account.id}`);
    expect(shown).not.toContain('argon2');
  });

  it.each([
    ['confirm', confirmAccount],
    ['approve', approve],
    ['disable', (u: string) => setDisabled(u, true)],
    ['show', showAccount],
  ])('%s names the unknown user in its error', async (_name, command) => {
    await expectAdminError(command('nobody_here'), /No local account named nobody_here/);
  });
});

describe('settings', () => {
  it('shows every setting', async () => {
    const text = await showSettings();
    for (const key of ['registrations', 'email-confirmation', 'public-preview', 'title', 'short-description', 'description', 'contact-email', 'contact-username', 'languages', 'rules']) {
      expect(text).toMatch(new RegExp(`^${key}:`, 'm'));
    }
  });

  it.each([
    ['registrations', 'approved', { registrationsMode: 'approved' }],
    ['registrations', 'NONE', { registrationsMode: 'none' }],
    ['registrations', 'open', { registrationsMode: 'open' }],
    ['email-confirmation', 'on', { requireEmailConfirmation: true }],
    ['email-confirmation', 'off', { requireEmailConfirmation: false }],
    ['public-preview', 'off', { publicPreview: false }],
    ['public-preview', 'on', { publicPreview: true }],
    ['title', '  Cats Social ', { title: 'Cats Social' }],
    ['short-description', 'For cats', { shortDescription: 'For cats' }],
    ['description', '<p>More</p>', { description: '<p>More</p>' }],
    ['contact-email', 'staff@social.example', { contactEmail: 'staff@social.example' }],
    ['contact-email', '', { contactEmail: '' }],
    ['languages', 'en, fr,EN', { languages: ['en', 'fr'] }],
    ['contact-username', 'none', { contactUsername: null }],
  ] as const)('set %s %j', async (key, value, expected) => {
    const text = await setSetting(key, value);
    expect(await instanceSettings()).toMatchObject(expected);
    expect(text).toContain(`${key}:`);
  });

  it('sets the contact username to an existing local account', async () => {
    const { account } = await aUser();
    await setSetting('contact-username', `@${account.username.toUpperCase()}`);
    expect((await instanceSettings()).contactUsername).toBe(account.username);
  });

  it.each([
    ['registrations', 'sometimes', /registrations must be one of open, approved, none/],
    ['email-confirmation', 'maybe', /email-confirmation must be on or off/],
    ['public-preview', '', /public-preview must be on or off/],
    ['title', '   ', /title can't be blank/],
    ['title', 'x'.repeat(201), /title is too long/],
    ['short-description', 'x'.repeat(501), /too long/],
    ['contact-email', 'not an address', /contact-email is not an e-mail address/],
    ['contact-username', 'nobody_here', /No local account named nobody_here/],
    ['languages', 'english', /languages must be ISO 639-1 codes/],
    ['languages', ' , ', /languages must be ISO 639-1 codes/],
    ['rules', 'x', /settings rules add/],
    ['colour', 'blue', /Unknown setting "colour"/],
  ])('refuses %s %j and changes nothing', async (key, value, message) => {
    const before = await instanceSettings();
    await expectAdminError(setSetting(key, value), message);
    expect(await instanceSettings()).toEqual(before);
  });

  it('adds and removes rules, numbering them', async () => {
    await updateInstanceSettings({ rules: [] });
    await addRule('Be kind');
    const text = await addRule('No spam');
    expect(text).toContain('  1. Be kind');
    expect(text).toContain('  2. No spam');
    await removeRule('1');
    await addRule('No ads');
    expect((await instanceSettings()).rules).toEqual([{ id: '2', text: 'No spam' }, { id: '3', text: 'No ads' }]);
    await expectAdminError(removeRule('9'), /No rule with id "9"/);
    await expectAdminError(addRule(' '), /rule can't be blank/);
    await expectAdminError(addRule('x'.repeat(301)), /rule is too long/);
    expect((await instanceSettings()).rules).toHaveLength(2);
  });
});

describe('the command line', () => {
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('prints usage for --help and exits 0', async () => {
    const res = await run('--help');
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/^Usage: npm run admin -- <command>/);
  });

  it.each([
    ['no command', []],
    ['an unknown command', ['accounts', 'delete', 'x']],
    ['an unknown option', ['settings', 'show', '--force']],
    ['a missing username', ['accounts', 'show']],
    ['a missing e-mail', ['accounts', 'create', 'someone']],
    ['a missing value', ['settings', 'set', 'title']],
    ['a stray argument', ['settings', 'show', 'extra']],
    ['a create option elsewhere', ['accounts', 'show', 'x', '--admin']],
    ['an unknown rules action', ['settings', 'rules', 'clear']],
  ])('exits 1 with a message for %s', async (_name, argv) => {
    const res = await run(...argv);
    expect(res.code).toBe(1);
    expect(res.err).not.toBe('');
    expect(res.err).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('creates an account from its arguments', async () => {
    const username = fresh('cli');
    const res = await run('accounts', 'create', username, '--email', `${username}@example.com`, '--confirmed', '--admin');
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/New password: \S{20,}/);
    expect(await accountByUsername(username)).toMatchObject({ admin: true });
  });

  it('sets a value containing spaces', async () => {
    const res = await run('settings', 'set', 'short-description', 'A calm place');
    expect(res.code).toBe(0);
    expect((await instanceSettings()).shortDescription).toBe('A calm place');
  });

  describe('as a process (npm run admin runs tsx lib/admin/cli.ts)', () => {
    const spawnCli = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(resolve(root, 'node_modules/.bin/tsx'), ['lib/admin/cli.ts', ...args], { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          done({ code, stdout, stderr });
        });
      });

    it('changes a setting in the table the functions read, having said which stage, table and endpoint', async () => {
      const res = await spawnCli(['settings', 'set', 'title', 'Set from the CLI']);
      expect(res.stderr).toBe(`Stage test, table ${process.env.TABLE_NAME}, DynamoDB at ${process.env.AWS_ENDPOINT_URL_DYNAMODB} in ${process.env.AWS_REGION}\n`);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('title:               Set from the CLI');
      expect((await instanceSettings()).title).toBe('Set from the CLI');
    });

    it('exits 1 with a one-line message for an unknown user', async () => {
      const res = await spawnCli(['accounts', 'show', 'nobody_here']);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr.split('\n').slice(1)).toEqual(['No local account named nobody_here', '']);
    });

    it.each([
      ['a table', { TABLE_NAME: 'tootless-prod' }],
      ['an endpoint', { AWS_ENDPOINT_URL_DYNAMODB: 'https://dynamodb.eu-west-1.amazonaws.com' }],
      ['an SSM path', { SECRETS_PATH: '/tootless/prod' }],
    ])('refuses to guess the stage of %s: exits 1, says STAGE is missing, writes nothing', async (_name, named) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...named };
      delete env.STAGE;
      // The table this file uses, so a write would be seen; a TABLE_NAME given above wins.
      const username = fresh('nostage');
      const res = await spawnCli(['accounts', 'create', username, '--email', `${username}@example.com`, '--confirmed'], env);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/^STAGE is not set: set it to the stage this process serves/);
      expect(res.stderr).not.toMatch(/\n\s+at /);
      expect(await accountByUsername(username)).toBeUndefined();
    }, 120_000);

    it('without STAGE and with nothing named, works on the local stack and says so', async () => {
      const closed = await freePort();
      const env: NodeJS.ProcessEnv = { ...process.env, DYNAMO_PORT: String(closed), HOST: '127.0.0.1' };
      for (const name of ['STAGE', 'TABLE_NAME', 'SECRETS_PATH', 'AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_DYNAMODB']) delete env[name];
      const res = await spawnCli(['settings', 'show'], env);
      expect(res.code).toBe(1);
      expect(res.stderr.split('\n').slice(0, 2)).toEqual([
        `Stage local, table tootless-local, DynamoDB at http://127.0.0.1:${closed} in ${process.env.AWS_REGION}`,
        `Cannot reach DynamoDB at http://127.0.0.1:${closed}: is the local stack running (npm start)?`,
      ]);
    }, 120_000);

    it('says so when DynamoDB cannot be reached', async () => {
      const closed = await freePort();
      const res = await spawnCli(['settings', 'show'], { ...process.env, AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${closed}` });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`Cannot reach DynamoDB at http://127.0.0.1:${closed}`);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    });
  });
});

describe('local defaults', () => {
  it('points the local stage at the local stack when no endpoint is set', () => {
    const env: NodeJS.ProcessEnv = { DYNAMO_PORT: '4999' };
    applyLocalDefaults(env);
    expect(env).toMatchObject({
      STAGE: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://localhost:4999',
      TABLE_NAME: 'tootless-local',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });
  });

  it.each([
    ['an endpoint is configured', { AWS_ENDPOINT_URL_DYNAMODB: 'http://elsewhere:1' }],
    ['LocalStack is configured', { AWS_ENDPOINT_URL: 'http://localhost:4566' }],
    ['the stage is not local', { STAGE: 'prod' }],
    ['a table is named without a stage', { TABLE_NAME: 'tootless-prod' }],
    ['an SSM path is named without a stage', { SECRETS_PATH: '/tootless/prod' }],
  ])('leaves the environment alone when %s', (_name, given) => {
    const env: NodeJS.ProcessEnv = { ...given };
    applyLocalDefaults(env);
    expect(env).toEqual(given);
  });
});
