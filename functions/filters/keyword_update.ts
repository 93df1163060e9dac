// PUT /api/v2/filters/keywords/:id (https://docs.joinmastodon.org/methods/filters/#keywords-update): changes a keyword (keyword, whole_word).
import { z } from 'zod';
import { renderFilterKeyword } from '../../lib/filters/entities';
import { changeKeyword, keywordFields } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export const schema = keywordFields.extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const keyword = await changeKeyword(ctx.account.id, input.id, input);
  await publishFiltersChanged(ctx.account.id);
  return renderFilterKeyword(keyword);
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
