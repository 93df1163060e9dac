// PUT /api/v1/admin/tags/:id (https://docs.joinmastodon.org/methods/admin/tags/#update): display_name, trendable,
// usable, listable. usable=false keeps the tag out of new posts (plain text, not recorded); listable=false out of
// search suggestions.
import { z } from 'zod';
import { unprocessable } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { adminTag, updateAdminTag } from '../../lib/moderation/trends';
import { renderAdminTagView } from '../../lib/render/admin_trends';
import { booleanish } from '../../lib/schema';
import { normalizeTag } from '../../lib/text/tags';

export const schema = z.object({
  id: z.string(),
  display_name: z.string().max(100, 'is too long (maximum is 100 characters)').optional(),
  trendable: booleanish.optional(),
  usable: booleanish.optional(),
  listable: booleanish.optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const current = await adminTag(input.id);
  const displayName = input.display_name?.trim().replace(/^#/, '');
  // Mastodon's Tag validation: a display name is the same tag, spelled otherwise (letter case, accents kept).
  if (displayName !== undefined && displayName !== '' && normalizeTag(displayName) !== current.tag) {
    throw unprocessable('Validation failed: Display name does not match the tag');
  }
  const changes = {
    ...(displayName ? { displayName } : {}),
    ...(input.trendable !== undefined ? { trendable: input.trendable } : {}),
    ...(input.usable !== undefined ? { usable: input.usable } : {}),
    ...(input.listable !== undefined ? { listable: input.listable } : {}),
  };
  return renderAdminTagView(await updateAdminTag(ctx.account, input.id, changes));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write'], permission: 'manage_taxonomies', schema });
