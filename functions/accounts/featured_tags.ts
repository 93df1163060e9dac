// GET /api/v1/accounts/:id/featured_tags (https://docs.joinmastodon.org/methods/accounts/#featured_tags)
import { z } from 'zod';
import { http } from '../../lib/http';
import { visibleAccountById } from '../../lib/policy/accounts';
import { listFeaturedTags } from '../../lib/tags/featured';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>) {
  return listFeaturedTags(await visibleAccountById(input.id));
}

// Public; a token, when one is sent, must be valid and hold read:accounts (as GET /api/v1/accounts/:id).
export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema });
