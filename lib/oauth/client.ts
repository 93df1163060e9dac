// Client authentication at the token and revocation endpoints (RFC 6749
// section 2.3.1): HTTP Basic first, then client_id and client_secret in the
// body, the order Doorkeeper tries them in.
import { authenticateClient } from '../apps';
import type { App } from '../db/apps';

export type ClientCredentials = { clientId: string; clientSecret: string };

/** Basic credentials are form-encoded before base64 (RFC 6749 section 2.3.1). */
const formDecode = (value: string): string => {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
};

export function basicCredentials(authorization: string | undefined): ClientCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

export function bodyCredentials(params: { client_id?: string; client_secret?: string }): ClientCredentials | undefined {
  if (!params.client_id || params.client_secret === undefined) return undefined;
  return { clientId: params.client_id, clientSecret: params.client_secret };
}

/** The authenticated application, or undefined when no credentials were given or they are wrong. */
export async function authenticatedClient(
  authorization: string | undefined,
  params: { client_id?: string; client_secret?: string },
): Promise<App | undefined> {
  const credentials = basicCredentials(authorization) ?? bodyCredentials(params);
  if (!credentials) return undefined;
  return authenticateClient(credentials.clientId, credentials.clientSecret);
}
