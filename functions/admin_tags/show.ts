// GET /api/v1/admin/tags/:id (https://docs.joinmastodon.org/methods/admin/tags/#get-one)
import { z } from 'zod';
import { http } from '../../lib/http';
import { adminTag } from '../../lib/moderation/trends';
import { renderAdminTagView } from '../../lib/render/admin_trends';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>) {
  return renderAdminTagView(await adminTag(input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], permission: 'manage_taxonomies', schema });
