// OAuth 2.0 Authorization Server Metadata (RFC 8414), with the fields Mastodon 4.4 publishes.
import { config } from '../config';
import { SCOPES } from '../http/scopes';
import { CODE_CHALLENGE_METHODS } from './pkce';
import { GRANT_TYPES } from './token';

export function serverMetadata() {
  const base = config.baseUrl;
  return {
    issuer: `${base}/`,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    // Mastodon 4.4: the OpenID Connect userinfo endpoint (lib/oauth/userinfo.ts).
    userinfo_endpoint: `${base}/oauth/userinfo`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS],
    service_documentation: 'https://docs.joinmastodon.org/',
    // Not RFC 7591 dynamic registration: Mastodon's own apps endpoint, under the name Mastodon uses.
    app_registration_endpoint: `${base}/api/v1/apps`,
  };
}
