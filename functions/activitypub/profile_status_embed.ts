// GET /@:username/:id/embed (Mastodon's embed page): a status anyone may read, as a page other sites may frame;
// what the iframe of its oEmbed (GET /api/oembed) shows.
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { publicStatusOf } from '../../lib/federation/documents';
import { statusEmbedPage } from '../../lib/federation/pages';
import { handleParam } from '../../lib/federation/serving';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ handle: handleParam, id: z.string() });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'public'>) {
  // Not a status URL: the answer the catch-all gives every unknown path (functions/system/not_found.ts).
  if (input.handle === undefined) throw notFound('Not found');
  const { status, author } = await publicStatusOf(input.handle, input.id);
  return statusEmbedPage(status, author);
}

export const handler = http(run, { auth: 'public', schema });
