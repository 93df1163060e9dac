// Worker: records a successful sign-in (time and count) off the token request's hot path.
import { z } from 'zod';
import { recordSignIn } from '../../lib/db/accounts';
import { worker } from '../../lib/queue/worker';

export const signInMessage = z.object({ accountId: z.string().regex(/^\d+$/), at: z.string().datetime() });

export const handler = worker('signin', signInMessage, (m) => recordSignIn(m.accountId, m.at));
