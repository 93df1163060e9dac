// POST /api/v1/polls/:id/votes (https://docs.joinmastodon.org/methods/polls/#vote)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { vote } from '../../lib/interactions/polls';
import { renderPoll } from '../../lib/render/poll';

// Form bodies send `choices[]=0` (strings), JSON bodies numbers; a lone value counts as one choice.
const choice = z.union([z.number().int(), z.string().regex(/^\d{1,3}$/).transform(Number)], {
  errorMap: () => ({ message: 'must be option indexes' }),
});

export const schema = z.object({
  id: z.string(),
  choices: z.preprocess(
    (v) => (v === undefined || Array.isArray(v) ? v : [v]),
    z.array(choice, { required_error: "can't be blank", invalid_type_error: 'must be an array' }).min(1, "can't be blank").max(100, 'has too many items'),
  ),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const { poll, ownVotes } = await vote(input.id, ctx.account, input.choices);
  return renderPoll(poll, ownVotes, ctx.account.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
