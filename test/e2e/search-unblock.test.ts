// Unblocking by name, as toot's `toot unblock NAME` does it against the local
// stack with masto: the name is resolved through GET /api/v2/search
// (type=accounts, resolve=true), the account whose `acct` is the name is taken,
// and its id is unblocked. Issue 9: the search used to leave the blocked account
// out, so the name never resolved and the block could not be lifted by name.
import { newUser, type MastoUser } from '../support/masto';
import { useStack } from '../support/stack';

const stack = useStack();

/** toot's find_account: search, then the account whose acct is the name (lower-cased, without a leading @). */
async function findAccount(user: MastoUser, name: string) {
  const wanted = name.replace(/^@/, '').toLowerCase();
  const found = await user.client.v2.search.list({ q: name, type: 'accounts', resolve: true });
  const account = found.accounts.find((a) => a.acct.toLowerCase() === wanted);
  if (!account) throw new Error(`account ${name} not found`);
  return account;
}

describe('block then unblock by name, through search', () => {
  let ana: MastoUser;
  let bob: MastoUser;

  beforeAll(async () => {
    [ana, bob] = await Promise.all([newUser(stack().baseUrl, 'unblana'), newUser(stack().baseUrl, 'unblbob')]);
  }, 60_000);

  it('resolves the blocked account by its name and unblocks it', async () => {
    const blocked = await ana.client.v1.accounts.$select(bob.me.id).block();
    expect(blocked.blocking).toBe(true);

    const account = await findAccount(ana, bob.me.username);
    expect(account.id).toBe(bob.me.id);
    const withAt = await findAccount(ana, `@${bob.me.username}`);
    expect(withAt.id).toBe(bob.me.id);

    const unblocked = await ana.client.v1.accounts.$select(account.id).unblock();
    expect(unblocked.blocking).toBe(false);
    const [relationship] = await ana.client.v1.accounts.relationships.fetch({ id: [bob.me.id] });
    expect(relationship).toMatchObject({ id: bob.me.id, blocking: false });
  }, 60_000);
});
