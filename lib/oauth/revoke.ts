// Token revocation (RFC 7009), as Doorkeeper answers it.
import { z } from 'zod';
import { sha256 } from '../crypto';
import { deletePushSubscription } from '../db/push_subscriptions';
import { revokeToken, tokenByHash, type Token } from '../db/tokens';
import { endStreamsOfTokens } from '../streaming/withdraw';
import { authenticatedClient } from './client';
import { revocationRefused } from './errors';

export const revokeParams = z.object({
  client_id: z.string().max(200).optional(),
  client_secret: z.string().max(200).optional(),
  /** Checked below: a token that cannot be one of ours is simply unknown. */
  token: z.unknown(),
});

/**
 * Revokes an access token of the authenticated client. Unknown tokens are not an
 * error (section 2.2); an unauthenticated client or another client's token is
 * refused with 403 unauthorized_client, as Doorkeeper does.
 */
export async function revoke(input: unknown, authorization: string | undefined): Promise<void> {
  const parsed = revokeParams.safeParse(input);
  const params = parsed.success ? parsed.data : {};
  const app = await authenticatedClient(authorization, params);
  if (!app) throw revocationRefused();
  const raw = parsed.success ? parsed.data.token : undefined;
  if (typeof raw !== 'string' || raw === '' || raw.length > 512) return;
  const hash = sha256(raw);
  const token = await tokenByHash(hash);
  if (!token) return;
  if (token.clientId !== app.clientId) throw revocationRefused();
  await withdrawToken(token);
}

/**
 * Deletes a token and ends what it opened: its Web Push subscription goes with it (Mastodon:
 * Web::PushSubscription.unsubscribe_for), and so do its open streams, which Mastodon closes at once.
 * Answers false when the token was already gone.
 */
export async function withdrawToken(token: Token): Promise<boolean> {
  if (!(await revokeToken(token, token.clientId))) return false;
  await Promise.all([token.accountId ? deletePushSubscription(token.accountId, token.id) : undefined, endStreamsOfTokens([token.id])]);
  return true;
}
