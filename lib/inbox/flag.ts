// Flag received from a remote server: a report about one of our accounts. Contract skeleton: ignored until built (issue 13).
import type { Outcome, Received } from './received';

export async function flag(received: Received): Promise<Outcome> {
  void received;
  return 'ignored';
}
