// GET /api/v1/polls/:id (https://docs.joinmastodon.org/methods/polls/#get)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { showPoll } from '../../lib/interactions/polls';
import { renderPoll } from '../../lib/render/poll';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: { account: Account | undefined }) {
  const { poll, ownVotes } = await showPoll(input.id, ctx.account);
  return renderPoll(poll, ownVotes, ctx.account?.id);
}

// Public for polls of public statuses; a token, when sent, must hold read:statuses.
export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema });
