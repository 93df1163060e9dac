// GET /api/oembed (https://docs.joinmastodon.org/methods/oembed/): the oEmbed of a local status URL anyone may read.
import { z } from 'zod';
import { oembedOf } from '../../lib/federation/oembed';
import { http } from '../../lib/http';
import { absent, intParam, text } from '../../lib/schema';

/** Larger than any page: keeps the answer's numbers sane. */
const MAX_SIZE = 10_000;
const size = absent(intParam.min(1, 'must be greater than 0').max(MAX_SIZE, `must be less than or equal to ${MAX_SIZE}`));

export const schema = z.object({
  url: z.preprocess((v) => (v === undefined || v === null ? '' : v), text(2048).refine((v) => v.trim() !== '', "can't be blank")),
  maxwidth: size,
  maxheight: size,
});

export async function run(input: z.infer<typeof schema>) {
  return oembedOf(input.url.trim(), { maxwidth: input.maxwidth, maxheight: input.maxheight });
}

export const handler = http(run, { auth: 'public', schema });
