// GET /api/v1/trends (https://docs.joinmastodon.org/methods/trends/#tags)
import { z } from 'zod';
import { http } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { trendingTags } from '../../lib/tags/trends';

export const schema = z.object({ limit: limitParam(10, 20) });

export async function run(input: z.infer<typeof schema>) {
  return trendingTags(input.limit);
}

export const handler = http(run, { auth: 'public', schema });
