// Worker: records a successful sign-in (time and count, and the instance's
// active-user tally) off the token request's hot path.
import { recordSignIn } from '../../lib/db/accounts';
import { recordActivity } from '../../lib/db/activity';
import { worker } from '../../lib/queue/worker';

export const handler = worker('signin', async (m) => {
  const locale = await recordSignIn(m.accountId, m.at);
  await recordActivity(m.accountId, new Date(m.at), locale);
});
