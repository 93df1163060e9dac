// GET /api/v1/accounts/:id (https://docs.joinmastodon.org/methods/accounts/#get)
import { z } from 'zod';
import { visibleAccountById } from '../../lib/policy/accounts';
import { http } from '../../lib/http';
import { renderAccount } from '../../lib/render/account';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>) {
  return renderAccount(await visibleAccountById(input.id));
}

// A token is optional; when one is sent it must be valid and hold read:accounts (Mastodon's authorize_if_got_token!).
export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema });
