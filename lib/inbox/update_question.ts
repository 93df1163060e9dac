// Update(Question) received from a remote actor. Contract skeleton: ignored until built (issue 13).
import type { ApDocument } from '../federation/vocab';
import type { Outcome, Received } from './received';

export async function updateQuestion(received: Received, object: ApDocument): Promise<Outcome> {
  void received;
  void object;
  return 'ignored';
}
