// POST /api/v1/accounts/:id/note (https://docs.joinmastodon.org/methods/accounts/#note)
import { z } from 'zod';
import { NOTE_COMMENT_MAX, setAccountNote } from '../../lib/accounts/notes';
import { http, type Ctx } from '../../lib/http';
import { absent } from '../../lib/schema';

export const schema = z.object({
  id: z.string(),
  // Bounded in UTF-16 units before the rule counts characters (an emoji is two units, one character).
  comment: absent(
    z
      .string({ invalid_type_error: 'must be a string' })
      .max(NOTE_COMMENT_MAX * 2, `is too long (maximum is ${NOTE_COMMENT_MAX} characters)`),
  ),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return setAccountNote(ctx.account, input.id, input.comment);
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
