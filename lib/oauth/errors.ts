// The OAuth endpoints' errors, with the codes of RFC 6749 section 5.2 and the
// descriptions Doorkeeper (Mastodon's OAuth provider) answers with, so that
// clients which show `error_description` to the user read the same text.
import { HttpError, oauthError } from '../errors';

/** Token responses, errors included, must not be cached (RFC 6749 section 5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export const DESCRIPTIONS = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_client: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant: 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  unauthorized_client: 'You are not authorized to revoke this token',
  invalid_redirect_uri: "The requested redirect URI is malformed or doesn't match the client redirect URI.",
  unsupported_response_type: 'The authorization server does not support this response type.',
  unsupported_response_mode: 'The authorization server does not support this response mode.',
  invalid_code_challenge_method: 'The code_challenge_method must be S256.',
  access_denied: 'The resource owner or authorization server denied the request.',
} as const;

export type OAuthErrorCode = keyof typeof DESCRIPTIONS;

export const missingParam = (name: string) => `Missing required parameter: ${name}.`;

/** An OAuth error as an HttpError: 401 for invalid_client, 400 otherwise, as Doorkeeper answers. */
export function oauthFailure(code: OAuthErrorCode, description: string = DESCRIPTIONS[code], status?: number): HttpError {
  const err = oauthError(status ?? (code === 'invalid_client' ? 401 : 400), code, description);
  // Bearer, not Basic: a Basic challenge would make browsers prompt for a password on a web client's XHR.
  const headers: Record<string, string> = { ...NO_STORE };
  if (code === 'invalid_client') headers['WWW-Authenticate'] = `Bearer error="invalid_client", error_description="${description}"`;
  return new HttpError(err.status, err.message, err.extra, headers);
}

export const invalidRequest = (description: string = DESCRIPTIONS.invalid_request) => oauthFailure('invalid_request', description);
export const invalidClient = () => oauthFailure('invalid_client');
export const invalidGrant = () => oauthFailure('invalid_grant');
export const invalidScope = () => oauthFailure('invalid_scope');
export const unsupportedGrantType = () => oauthFailure('unsupported_grant_type');
/** RFC 7009 section 2.2.1, as Doorkeeper: a revocation the client may not make. */
export const revocationRefused = () => oauthFailure('unauthorized_client', DESCRIPTIONS.unauthorized_client, 403);
