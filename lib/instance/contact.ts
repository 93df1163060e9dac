// The account named as the instance's contact: the one the operator chose
// (`contactUsername`), else the oldest admin still able to log in.
import { accountByUsername, oldestAdmins, type Account } from '../db/accounts';
import type { InstanceSettings } from '../db/instance';

export async function contactAccount(settings: Pick<InstanceSettings, 'contactUsername'>): Promise<Account | undefined> {
  const chosen = settings.contactUsername?.trim().replace(/^@/, '');
  if (chosen) {
    const account = await accountByUsername(chosen);
    if (account && account.domain === null) return account;
  }
  const admins = await oldestAdmins(10);
  return admins.find((a) => !a.disabled && a.approved && a.confirmedAt !== null) ?? admins[0];
}
