// POST /api/v2/filters/:id/keywords (https://docs.joinmastodon.org/methods/filters/#keywords-create): adds a keyword (keyword, whole_word) to a filter of the caller.
import { z } from 'zod';
import { renderFilterKeyword } from '../../lib/filters/entities';
import { addKeyword, keywordFields } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

/** `id` is the filter's. */
export const schema = keywordFields.extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const keyword = await addKeyword(ctx.account.id, input.id, input);
  await publishFiltersChanged(ctx.account.id);
  return renderFilterKeyword(keyword);
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
