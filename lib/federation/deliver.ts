// Delivery of our activities: one `deliver` message per (activity, inbox).
// OWNER: helper C. Signatures below are the contract other modules call.

/** The signing account: a local account id, or `instance` for the instance actor. */
export type SignerRef = { accountId: string } | 'instance';

/** Enqueues one delivery per distinct inbox. */
export async function deliverTo(_activity: Record<string, unknown>, _inboxes: string[], _signer: SignerRef): Promise<void> {
  throw new Error('not built yet');
}
