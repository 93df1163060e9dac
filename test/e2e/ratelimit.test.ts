// Guessing a password on the running local stack, as a script would: every
// request comes from 127.0.0.1, which these stacks hold to the limits
// (RATE_LIMIT_LOOPBACK=1; by default the local stage lets loopback past, as Mastodon
// lets localhost past). Thirty
// wrong passwords get a 429 before the 31st try, through the password grant and
// through the login form (one CSRF pair reused for every try); then even the
// right password is refused. Each path gets a stack of its own: both count
// against the same per-address budget. Each wrong try costs an argon2
// verification, hence the longer test timeouts.
import { useStack } from '../support/stack';

const unique = () => `rl${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';

type Person = { email: string; password: string; clientId: string; clientSecret: string };

/** An app and an account, registered through the API as a new user's client does. */
async function signUp(baseUrl: string): Promise<Person> {
  const post = async (path: string, body: Record<string, unknown>, token?: string) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, string>;
  };
  const app = await post('/api/v1/apps', { client_name: 'guesser', redirect_uris: REDIRECT, scopes: 'read write' });
  const appToken = await post('/oauth/token', { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'write' });
  const username = unique();
  const person = { email: `${username}@example.com`, password: 'the right passphrase 31', clientId: app.client_id!, clientSecret: app.client_secret! };
  await post('/api/v1/accounts', { username, email: person.email, password: person.password, agreement: true, locale: 'en' }, appToken.access_token);
  return person;
}

/** Tries passwords until the first 429: answers the statuses seen, the 429 last. */
async function guess(attempt: (password: string) => Promise<Response>, tries: number): Promise<{ statuses: number[]; refused?: Response }> {
  const statuses: number[] = [];
  for (let i = 1; i <= tries; i++) {
    const res = await attempt(`wrong guess ${i}`);
    statuses.push(res.status);
    if (res.status === 429) return { statuses, refused: res };
    await res.arrayBuffer();
  }
  return { statuses };
}

async function expectTooManyRequests(res: Response | undefined) {
  expect(res?.status).toBe(429);
  expect(await res?.json()).toEqual({ error: 'Too many requests' });
  expect(res?.headers.get('x-ratelimit-limit')).toBe('25');
  expect(res?.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(Date.parse(res?.headers.get('x-ratelimit-reset') ?? '')).toBeGreaterThan(Date.now());
}

describe('guessing through the password grant', () => {
  const stack = useStack({ env: { RATE_LIMIT_LOOPBACK: '1' } });

  it('gets 429 before the 31st of 30 wrong passwords, then for the right one too', async () => {
    const person = await signUp(stack().baseUrl);
    const grant = (password: string) =>
      fetch(`${stack().baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: person.email, password, client_id: person.clientId, client_secret: person.clientSecret, scope: 'read' }),
      });

    const { statuses, refused } = await guess(grant, 30);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length).toBeLessThanOrEqual(30);
    // Every try before the refusal was answered as a wrong password.
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([400]));
    await expectTooManyRequests(refused);

    const right = await grant(person.password);
    await expectTooManyRequests(right);
  }, 120_000);
});

describe('guessing through the login form', () => {
  const stack = useStack({ env: { RATE_LIMIT_LOOPBACK: '1' } });

  it('gets 429 before the 31st of 30 wrong passwords, reusing one CSRF pair, then for the right one too', async () => {
    const person = await signUp(stack().baseUrl);
    const query = { response_type: 'code', client_id: person.clientId, redirect_uri: REDIRECT, scope: 'read' };
    const page = await fetch(`${stack().baseUrl}/oauth/authorize?${new URLSearchParams(query)}`);
    expect(page.status).toBe(200);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    expect(cookie).toMatch(/=/);
    expect(csrf).not.toBe('');
    const submit = (password: string) =>
      fetch(`${stack().baseUrl}/oauth/authorize`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        body: new URLSearchParams({ ...query, csrf_token: csrf, email: person.email, password }),
        redirect: 'manual',
      });

    const { statuses, refused } = await guess(submit, 30);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length).toBeLessThanOrEqual(30);
    // Every try before the refusal showed the login form again with its error.
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([422]));
    await expectTooManyRequests(refused);

    const right = await submit(person.password);
    await expectTooManyRequests(right);
  }, 120_000);
});
