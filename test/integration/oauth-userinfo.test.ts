// Mastodon 4.4's GET (and POST) /oauth/userinfo: the OpenID Connect claims of the token's user, for a token
// with the `profile` scope (which `read` does not cover), and `userinfo_endpoint` in the server metadata.
import { handler as metadata } from '../../functions/oauth/metadata';
import { handler as token } from '../../functions/oauth/token';
import { handler as userinfoHandler } from '../../functions/oauth/userinfo';
import { updateAccount } from '../../lib/db/accounts';
import { call } from '../support/http';
import { anApp, anAppToken, anAuthorizationCode, aUser } from '../support/factories';

const userinfo = (tokenValue?: string, method = 'GET') => call(userinfoHandler, { method, path: '/oauth/userinfo', token: tokenValue });

describe('GET /oauth/userinfo', () => {
  it('answers the user’s claims to a token with the profile scope, obtained through the real code flow', async () => {
    const user = await aUser({ username: 'oidc_jane' });
    await updateAccount(user.account.id, { displayName: 'Jane :wave:' });
    const { app, clientSecret } = await anApp({ scopes: 'read profile', redirect_uris: 'https://client.example/callback' });
    const code = await anAuthorizationCode({ app, accountId: user.account.id, scopes: ['profile'] });
    const issued = await call(token, {
      method: 'POST',
      path: '/oauth/token',
      form: { grant_type: 'authorization_code', client_id: app.clientId, client_secret: clientSecret, code, redirect_uri: 'https://client.example/callback' },
    });
    expect([issued.status, issued.body.scope]).toEqual([200, 'profile']);

    const res = await userinfo(issued.body.access_token);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      iss: 'https://social.example/',
      sub: 'https://social.example/users/oidc_jane',
      name: 'Jane :wave:',
      preferred_username: 'oidc_jane',
      profile: 'https://social.example/@oidc_jane',
      picture: expect.stringMatching(/\/avatars\/original\/missing\.png$/),
    });
    // `iss` is the metadata's issuer, and the metadata names this endpoint.
    const meta = await call(metadata, { path: '/.well-known/oauth-authorization-server' });
    expect(meta.body.issuer).toBe(res.body.iss);
    expect(meta.body.userinfo_endpoint).toBe('https://social.example/oauth/userinfo');
    expect(meta.body.scopes_supported).toContain('profile');
    // POST answers the same, as OpenID Connect allows.
    const posted = await userinfo(issued.body.access_token, 'POST');
    expect([posted.status, posted.body]).toEqual([200, res.body]);
  });

  it('refuses no token (401), a bad token (401), an app token (422) and a token without profile, even read (403)', async () => {
    const app = await anAppToken(['profile']);
    const readWrite = await aUser({ scopes: ['read', 'write', 'follow', 'push'] });
    const answers = [await userinfo(), await userinfo('not-a-token'), await userinfo(app.token), await userinfo(readWrite.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const r of answers) expect(r.body).toEqual({ error: expect.any(String) });
    expect(answers[3]!.body).toEqual({ error: 'This action is outside the authorized scopes' });
    // The good twin: the same kind of user with profile.
    expect((await userinfo((await aUser({ scopes: ['profile'] })).token)).status).toBe(200);
  });

  it('an app cannot be given a scope it did not register: profile must be asked for', async () => {
    const { app, clientSecret } = await anApp({ scopes: 'read', redirect_uris: 'https://client.example/callback' });
    const res = await call(token, { method: 'POST', path: '/oauth/token', form: { grant_type: 'client_credentials', client_id: app.clientId, client_secret: clientSecret, scope: 'profile' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
  });
});
