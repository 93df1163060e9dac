// GET /api/v1/accounts/lookup (https://docs.joinmastodon.org/methods/accounts/#lookup)
import { z } from 'zod';
import { lookupAcct } from '../../lib/accounts/lookup';
import { http } from '../../lib/http';
import { renderAccount } from '../../lib/render/account';

export const schema = z.object({ acct: z.string({ invalid_type_error: 'must be a string' }).max(2000).optional() });

export async function run(input: z.infer<typeof schema>) {
  return renderAccount(await lookupAcct(input.acct));
}

// Public, but a token sent along must be valid and hold read:accounts, as in Mastodon.
export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema });
