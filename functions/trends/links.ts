// GET /api/v1/trends/links (https://docs.joinmastodon.org/methods/trends/#links)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { offsetPageReply } from '../../lib/http/offset_page';
import { limitParam } from '../../lib/paging';
import { offsetParam } from '../../lib/paging/offset';
import { renderTrendingLink } from '../../lib/render/trends';
import { trendingLinks } from '../../lib/trends';

/** Mastodon's DEFAULT_LINKS_LIMIT is 10 (at most twice that), not the statuses' 20. */
export const schema = z.object({ limit: limitParam(10, 20), offset: offsetParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  const { links, more } = await trendingLinks(input);
  return offsetPageReply(ctx, { ...input, more }, links.map(renderTrendingLink));
}

export const handler = http(run, { auth: 'public', schema });
