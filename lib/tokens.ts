// Issuing access tokens: the raw value goes to the client once; the table keeps its hash.
import { sha256 } from './crypto';
import type { App } from './db/apps';
import { saveToken, type Token } from './db/tokens';
import { newId, secretToken } from './ids';

export async function issueAccessToken(app: App, accountId: string | null, scopes: string[]): Promise<{ raw: string; token: Token }> {
  const issued = newAccessToken(app, accountId, scopes);
  await saveToken(issued.token);
  return issued;
}

/** A token not yet written: for a caller that writes it in a transaction of its own (an authorization code's exchange). */
export function newAccessToken(app: App, accountId: string | null, scopes: string[]): { raw: string; token: Token } {
  const raw = secretToken();
  const token: Token = {
    id: newId(),
    tokenHash: sha256(raw),
    clientId: app.clientId,
    appName: app.name,
    appWebsite: app.website,
    accountId,
    scopes,
    createdAt: new Date().toISOString(),
  };
  return { raw, token };
}

/** The OAuth token response (RFC 6749 section 5.1, Mastodon's fields). */
export const renderTokenResponse = (raw: string, token: Token) => ({
  access_token: raw,
  token_type: 'Bearer',
  scope: token.scopes.join(' '),
  created_at: Math.floor(new Date(token.createdAt).getTime() / 1000),
});
