// A browser web client in miniature, as Elk or Phanpy is one: bundled with esbuild (platform browser) by
// test/e2e/web-client-browser.test.ts and served from an origin of its own, it talks to the server only
// through masto. It signs in with the authorization code flow and PKCE (S256; the verifier stays in the
// tab's sessionStorage across the trip through the server's /oauth/authorize page), then does what a
// client's main screens do. Each step is exposed on `globalThis.webClient` for the test to call; answers
// are masto's entities, plain data the test can read back.
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';

// The page's own globals (the project compiles without the DOM library): only what is used here.
declare const location: { origin: string; search: string };
declare const sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };

const SCOPES = 'read write follow';
const PENDING = 'webClient.pending';
const SESSION = 'webClient.session';

type Pending = { server: string; clientId: string; clientSecret: string; verifier: string; state: string; redirectUri: string };
type Session = { server: string; accessToken: string };

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomText = (size: number) => base64url(crypto.getRandomValues(new Uint8Array(size)));

function stored<T>(key: string): T {
  const raw = sessionStorage.getItem(key);
  if (!raw) throw new Error(`nothing stored under ${key}: sign in first`);
  return JSON.parse(raw) as T;
}

/** The signed-in user's REST client. */
const rest = (): mastodon.rest.Client => {
  const session = stored<Session>(SESSION);
  return createRestAPIClient({ url: session.server, accessToken: session.accessToken });
};

export const webClient = {
  /** Registers the app on `server` and answers the authorization URL the user is sent to. */
  async signIn(server: string): Promise<string> {
    const redirectUri = `${location.origin}/callback`;
    const app = await createRestAPIClient({ url: server }).v1.apps.create({ clientName: 'Tiny web client', redirectUris: redirectUri, scopes: SCOPES, website: location.origin });
    const verifier = randomText(32);
    const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
    const pending: Pending = { server, clientId: app.clientId!, clientSecret: app.clientSecret!, verifier, state: randomText(12), redirectUri };
    sessionStorage.setItem(PENDING, JSON.stringify(pending));
    const authorize = new URL('/oauth/authorize', server);
    authorize.search = new URLSearchParams({
      response_type: 'code', client_id: pending.clientId, redirect_uri: redirectUri, scope: SCOPES,
      state: pending.state, code_challenge: challenge, code_challenge_method: 'S256',
    }).toString();
    return authorize.toString();
  },

  /** On the redirect back (`/callback?code=…&state=…`): exchanges the code with the PKCE verifier; answers who signed in. */
  async finishSignIn(): Promise<{ acct: string; scope: string }> {
    const pending = stored<Pending>(PENDING);
    const params = new URLSearchParams(location.search);
    if (params.get('state') !== pending.state) throw new Error('the state that came back is not the one sent');
    const code = params.get('code');
    if (!code) throw new Error(`no code: ${params.get('error') ?? 'nothing'}`);
    const token = await createOAuthAPIClient({ url: pending.server }).token.create({
      grantType: 'authorization_code', clientId: pending.clientId, clientSecret: pending.clientSecret,
      redirectUri: pending.redirectUri, code, codeVerifier: pending.verifier,
    } as mastodon.oauth.CreateTokenParams);
    sessionStorage.setItem(SESSION, JSON.stringify({ server: pending.server, accessToken: token.accessToken } satisfies Session));
    const me = await rest().v1.accounts.verifyCredentials();
    return { acct: me.acct, scope: token.scope };
  },

  /** What a client loads first: the instance (v2) and the home timeline. */
  async home() {
    const client = rest();
    const [instance, home] = await Promise.all([client.v2.instance.fetch(), client.v1.timelines.home.list({ limit: 20 })]);
    return { version: instance.version, streaming: instance.configuration.urls.streaming, home };
  },

  async post(text: string) {
    return rest().v1.statuses.create({ status: text, visibility: 'public' });
  },

  /** The edit screen: the source to edit, the new version, then the history a client shows under "edited". */
  async edit(id: string, text: string) {
    const client = rest();
    const source = await client.v1.statuses.$select(id).source.fetch();
    const edited = await client.v1.statuses.$select(id).update({ status: text, spoilerText: source.spoilerText });
    const history = await client.v1.statuses.$select(id).history.list();
    return { source, edited, history };
  },

  async followTag(name: string) {
    const client = rest();
    const tag = await client.v1.tags.$select(name).follow();
    const followed = await client.v1.followedTags.list();
    return { tag, followed };
  },

  /** The explore screen: trending tags, statuses and links together, as Ice Cubes loads them. */
  async explore() {
    const client = rest();
    const [tags, statuses, links] = await Promise.all([client.v1.trends.tags.list(), client.v1.trends.statuses.list(), client.v1.trends.links.list()]);
    return { tags, statuses, links };
  },

  /** The notifications screen, both ways apps read it: v1 (a list) and v2 (grouped). */
  async notifications() {
    const client = rest();
    const [plain, grouped] = await Promise.all([client.v1.notifications.list(), client.v2.notifications.list()]);
    return { plain, grouped };
  },
};

export type WebClient = typeof webClient;

(globalThis as unknown as { webClient: WebClient }).webClient = webClient;
