// The e2e suite's people: each registers through the API with masto as a new
// user's app would (an app, its client-credentials token, POST /api/v1/accounts)
// and gets a client holding the user token. `eventually` waits for what the
// workers (fan-out, notifications) do in their own invocations.
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';

export type MastoUser = {
  client: mastodon.rest.Client;
  me: mastodon.v1.AccountCredentials;
  /** The user token, for what masto's REST client does not do (streams, push subscriptions, revocation). */
  token: string;
  /** The user's own app (its client id and secret, its vapid_key). */
  app: mastodon.v1.Client;
};

const REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';
const SCOPES = 'read write follow push';

/**
 * A user named `<name><base-36 clock>` (keep `name` under 20 characters: usernames stop at 30), whose app and token
 * hold `scopes` (a moderator's app adds the admin scopes; the role, given by the operator, decides).
 */
export async function newUser(baseUrl: string, name: string, scopes = SCOPES): Promise<MastoUser> {
  const anon = createRestAPIClient({ url: baseUrl });
  const app = await anon.v1.apps.create({ clientName: `e2e ${name}`, redirectUris: REDIRECT, scopes });
  const oauth = createOAuthAPIClient({ url: baseUrl });
  const appToken = await oauth.token.create({ grantType: 'client_credentials', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: REDIRECT, scope: scopes });
  const username = `${name}${Date.now().toString(36)}`;
  const asApp = createRestAPIClient({ url: baseUrl, accessToken: appToken.accessToken });
  const token = await asApp.v1.accounts.create({ username, email: `${username}@example.com`, password: 'social passphrase 7', agreement: true, locale: 'en' });
  const client = createRestAPIClient({ url: baseUrl, accessToken: token.accessToken });
  return { client, me: await client.v1.accounts.verifyCredentials(), token: token.accessToken, app };
}

/** Waits until `probe` answers something truthy: the fan-out and notifications run in separate worker invocations. */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * What a masto streaming subscription brings, as it arrives, each event reduced by `seen`
 * to what the test compares; the array fills in the background until the client closes.
 */
export function collectEvents<T>(subscription: mastodon.streaming.Subscription, seen: (event: string, payload: unknown) => T): T[] {
  const events: T[] = [];
  void (async () => {
    try {
      for await (const e of subscription) events.push(seen(e.event, e.payload));
    } catch {
      // the client was closed
    }
  })();
  return events;
}
