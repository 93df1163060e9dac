// GET and POST /oauth/userinfo (https://docs.joinmastodon.org/methods/oauth/#userinfo, Mastodon 4.4)
import { http, type Ctx } from '../../lib/http';
import { serverMetadata } from '../../lib/oauth/metadata';
import { userinfo } from '../../lib/oauth/userinfo';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  // `iss` is the metadata's `issuer`, as OpenID Connect requires.
  return userinfo(ctx.account, serverMetadata().issuer);
}

// Mastodon's `doorkeeper_authorize! :profile`: the profile scope alone, which `read` does not cover.
export const handler = http(run, { auth: 'user', scopes: ['profile'] });
