import { handler as metadata } from '../../functions/oauth/metadata';
import { SCOPES } from '../../lib/http/scopes';
import { call } from '../support/http';

describe('GET /.well-known/oauth-authorization-server', () => {
  it('describes the authorization server as RFC 8414 and Mastodon 4.4 do, with CORS', async () => {
    const res = await call(metadata, { path: '/.well-known/oauth-authorization-server' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      issuer: 'https://social.example/',
      authorization_endpoint: 'https://social.example/oauth/authorize',
      token_endpoint: 'https://social.example/oauth/token',
      revocation_endpoint: 'https://social.example/oauth/revoke',
      userinfo_endpoint: 'https://social.example/oauth/userinfo',
      scopes_supported: [...SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'password', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      service_documentation: 'https://docs.joinmastodon.org/',
      app_registration_endpoint: 'https://social.example/api/v1/apps',
    });
  });

  it('needs no token and ignores an invalid one', async () => {
    const res = await call(metadata, { path: '/.well-known/oauth-authorization-server', token: 'not-a-token' });
    expect(res.status).toBe(200);
  });
});
