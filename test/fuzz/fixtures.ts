// What the hostile requests refer to, made through the API as clients make it:
// two users (A and B), tokens of several kinds (full, read-only, revoked, app-only),
// and real ids owned by A, so that "real id" (with A's token) and "foreign id"
// (the same id with B's token) cases exist.
import sharp from 'sharp';
import type { IdName, TokenName } from './arbitraries';
import type { Fixtures } from './send';

const REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';
const SCOPES = 'read write follow push';

export type Setup = Fixtures & {
  /** A token of A's that the hostile requests never use, for checking afterwards that the stack still serves A. */
  healthToken: string;
};

type Json = Record<string, unknown>;

async function api(baseUrl: string, method: string, path: string, opts: { token?: string; json?: Json; form?: FormData } = {}): Promise<Json> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | FormData | undefined;
  if (opts.json) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) body = opts.form;
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`fuzz setup: ${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Json;
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v === '') throw new Error(`fuzz setup: no ${what} in the answer`);
  return v;
};

/** Polls until `probe` yields a value: notifications and conversations are written by workers in their own invocations. */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`fuzz setup: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function setUp(baseUrl: string): Promise<Setup> {
  const app = await api(baseUrl, 'POST', '/api/v1/apps', { json: { client_name: 'fuzz', redirect_uris: REDIRECT, scopes: SCOPES } });
  const clientId = str(app.client_id, 'client_id');
  const clientSecret = str(app.client_secret, 'client_secret');
  const grant = async (extra: Json) =>
    str((await api(baseUrl, 'POST', '/oauth/token', { json: { client_id: clientId, client_secret: clientSecret, redirect_uri: REDIRECT, ...extra } })).access_token, 'access_token');
  const appToken = await grant({ grant_type: 'client_credentials', scope: SCOPES });

  const stamp = Date.now().toString(36);
  const password = 'fuzzing passphrase 9';
  const register = async (name: string) => {
    const username = `${name}${stamp}`;
    const token = str((await api(baseUrl, 'POST', '/api/v1/accounts', { token: appToken, json: { username, email: `${username}@example.com`, password, agreement: true, locale: 'en' } })).access_token, 'access_token');
    const me = await api(baseUrl, 'GET', '/api/v1/accounts/verify_credentials', { token });
    return { token, id: str(me.id, 'account id'), username, email: `${username}@example.com` };
  };
  const a = await register('fuzza');
  const b = await register('fuzzb');
  const passwordGrant = (scope: string) => grant({ grant_type: 'password', username: a.email, password, scope });
  const readA = await passwordGrant('read');
  const healthToken = await passwordGrant(SCOPES);
  const revokedA = await passwordGrant(SCOPES);
  await api(baseUrl, 'POST', '/oauth/revoke', { json: { client_id: clientId, client_secret: clientSecret, token: revokedA } });

  const asA = (method: string, path: string, json?: Json) => api(baseUrl, method, path, { token: a.token, json });
  const status = await asA('POST', '/api/v1/statuses', { status: `fuzzing @${b.username} #fuzztag`, visibility: 'public' });
  const withPoll = await asA('POST', '/api/v1/statuses', { status: 'a poll', poll: { options: ['yes', 'no'], expires_in: 86_400 } });
  const list = await asA('POST', '/api/v1/lists', { title: 'fuzz list' });
  const filter = await asA('POST', '/api/v1/filters', { phrase: 'fuzzword', context: ['home'] });
  const featured = await asA('POST', '/api/v1/featured_tags', { name: 'fuzztag' });
  const scheduled = await asA('POST', '/api/v1/statuses', { status: 'later', scheduled_at: new Date(Date.now() + 86_400_000).toISOString() });
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3060c0' } }).png().toBuffer();
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'image/png' }), 'fuzz.png');
  const media = await api(baseUrl, 'POST', '/api/v2/media', { token: a.token, form });

  // B follows A and writes to A directly: A gets a notification and a conversation.
  await api(baseUrl, 'POST', `/api/v1/accounts/${a.id}/follow`, { token: b.token });
  await api(baseUrl, 'POST', '/api/v1/statuses', { token: b.token, json: { status: `@${a.username} psst`, visibility: 'direct' } });
  const firstId = async (path: string) => {
    const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${a.token}` } });
    const items = (await res.json()) as Array<{ id?: unknown }>;
    return Array.isArray(items) && typeof items[0]?.id === 'string' ? items[0].id : undefined;
  };
  const notification = await eventually(() => firstId('/api/v1/notifications'), "A's first notification");
  const conversation = await eventually(() => firstId('/api/v1/conversations'), "A's conversation with B");

  const poll = (withPoll.poll as Json | null | undefined)?.id;
  const tokens: Record<TokenName, string> = { A: a.token, B: b.token, readA, revokedA, app: appToken };
  const ids: Record<IdName, string> = {
    status: str(status.id, 'status id'),
    poll: str(poll, 'poll id'),
    list: str(list.id, 'list id'),
    filter: str(filter.id, 'filter id'),
    media: str(media.id, 'media id'),
    notification,
    scheduled: str(scheduled.id, 'scheduled status id'),
    featuredTag: str(featured.id, 'featured tag id'),
    conversation,
    accountA: a.id,
    accountB: b.id,
    hashtag: 'fuzztag',
  };
  return { tokens, ids, healthToken };
}
