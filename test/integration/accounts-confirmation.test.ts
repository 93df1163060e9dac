// E-mail confirmation: the mail sent at registration and GET /auth/confirmation.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { handler as register } from '../../functions/accounts/create';
import { handler as verify } from '../../functions/accounts/verify_credentials';
import { handler as confirmation } from '../../functions/auth/confirmation';
import { handler as mailHandler } from '../../functions/workers/mail';
import { sha256 } from '../../lib/crypto';
import { accountByUsername, confirmationRecord, createLocalAccount } from '../../lib/db/accounts';
import { updateInstanceSettings } from '../../lib/db/instance';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { call } from '../support/http';
import { anAppToken } from '../support/factories';

let appToken: string;
beforeAll(async () => {
  registerInlineWorker('mail', mailHandler);
  await updateInstanceSettings({ registrationsMode: 'open', requireEmailConfirmation: true });
  ({ token: appToken } = await anAppToken(['read', 'write']));
});

let seq = 0;
const fresh = () => {
  seq += 1;
  const name = `conf_${Date.now().toString(36)}_${seq}`;
  return { username: name, email: `${name}@example.com`, password: 'hunter2hunter2', agreement: true };
};

type Mail = { to: string; subject: string; text: string; html?: string };
async function mailTo(address: string): Promise<Mail> {
  const dir = process.env.MAIL_DIR ?? '';
  const files = (await readdir(dir)).filter((f) => f.includes(address));
  expect(files).toHaveLength(1);
  return JSON.parse(await readFile(join(dir, files[0] ?? ''), 'utf8')) as Mail;
}

const visit = (query: string | Record<string, string>) => call(confirmation, { path: '/auth/confirmation', query });

describe('registration with e-mail confirmation on', () => {
  it('mails a link; the API answers 403 until it is visited, then works', async () => {
    const input = fresh();
    const res = await call(register, { method: 'POST', path: '/api/v1/accounts', json: input, token: appToken });
    expect(res.status).toBe(200);
    const token = res.body.access_token;

    const before = await call(verify, { path: '/api/v1/accounts/verify_credentials', token });
    expect(before.status).toBe(403);
    expect(before.body).toEqual({ error: 'Your login is missing a confirmed e-mail address' });
    expect((await accountByUsername(input.username))?.confirmedAt).toBeNull();

    const mail = await mailTo(input.email);
    expect(mail.to).toBe(input.email);
    const link = /https:\/\/social\.example\/auth\/confirmation\?confirmation_token=[\w%-]+/.exec(mail.text)?.[0];
    expect(link).toBeDefined();
    expect(mail.html).toContain(link);
    const url = new URL(link ?? '');

    const page = await visit(url.search.slice(1));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Your e-mail address is confirmed');
    expect(page.text).toContain(`@${input.username}`);

    const after = await call(verify, { path: '/api/v1/accounts/verify_credentials', token });
    expect(after.status).toBe(200);
    expect(after.body.username).toBe(input.username);
    expect((await accountByUsername(input.username))?.confirmedAt).toEqual(expect.any(String));

    const again = await visit(url.search.slice(1));
    expect(again.status).toBe(404);
    expect(again.text).toContain('This confirmation link is invalid');
  });

  it('refuses an expired link and leaves the account unconfirmed', async () => {
    const raw = 'expired-token-value';
    const id = newId();
    const username = `expired_${Date.now().toString(36)}`;
    const created = await createLocalAccount(
      { id, username, email: `${username}@example.com`, passwordHash: 'x', confirmedAt: null },
      [confirmationRecord({ tokenHash: sha256(raw), accountId: id, email: `${username}@example.com`, createdAt: new Date().toISOString(), expiresAt: Math.floor(Date.now() / 1000) - 1 })],
    );
    expect(created.ok).toBe(true);
    const page = await visit({ confirmation_token: raw });
    expect(page.status).toBe(404);
    expect((await accountByUsername(username))?.confirmedAt).toBeNull();
  });

  it.each([
    ['no token', ''],
    ['an unknown token', 'confirmation_token=nope'],
    ['an empty token', 'confirmation_token='],
    ['an array token', 'confirmation_token[]=a&confirmation_token[]=b'],
    ['a huge token', `confirmation_token=${'x'.repeat(5000)}`],
  ])('answers an error page for %s', async (_name, query) => {
    const page = await visit(query);
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('This confirmation link is invalid');
  });

  it('escapes the instance title on the page', async () => {
    await updateInstanceSettings({ title: '<script>alert("t")</script>' });
    try {
      const page = await visit('confirmation_token=nope');
      expect(page.text).not.toContain('<script>');
      expect(page.text).toContain('&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;');
    } finally {
      await updateInstanceSettings({ title: 'Tootless' });
    }
  });
});
