// Sanctions in the account lists others browse: the profile directory (GET /api/v1/directory) leaves out
// suspended and silenced accounts (Mastodon's Account.discoverable: searchable.without_silenced), and account
// search (GET /api/v1/accounts/search) finds a suspended account only by its exact name.
import { handler as directoryHandler } from '../../functions/directory/index';
import { handler as accountSearch } from '../../functions/accounts/search';
import { updateAccount } from '../../lib/db/accounts';
import { syncDirectoryListing } from '../../lib/db/directory';
import { call } from '../support/http';
import { aUser, type UserFixture } from '../support/factories';

const listed = async () => {
  const res = await call(directoryHandler, { path: '/api/v1/directory', query: { order: 'new', limit: '80' } });
  expect(res.status).toBe(200);
  return (res.body as { id: string }[]).map((a) => a.id);
};

let silenced: UserFixture;
let suspended: UserFixture;
let plain: UserFixture;

beforeAll(async () => {
  [silenced, suspended, plain] = await Promise.all([aUser({ username: `dirsil${Date.now() % 1e6}` }), aUser({ username: `dirsus${Date.now() % 1e6}` }), aUser()]);
  for (const u of [silenced, suspended, plain]) {
    const after = (await updateAccount(u.account.id, { discoverable: true }))!;
    await syncDirectoryListing(undefined, after);
  }
  expect(await listed()).toEqual(expect.arrayContaining([silenced.account.id, suspended.account.id, plain.account.id]));
  await updateAccount(silenced.account.id, { silencedAt: new Date().toISOString() });
  await updateAccount(suspended.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
});

it('leaves silenced and suspended accounts out of the directory', async () => {
  const ids = await listed();
  expect(ids).toContain(plain.account.id);
  expect(ids).not.toContain(silenced.account.id);
  expect(ids).not.toContain(suspended.account.id);
});

it('finds a suspended account by its exact name only, shown suspended', async () => {
  const name = suspended.account.username;
  const search = (q: string) => call(accountSearch, { path: '/api/v1/accounts/search', query: { q }, token: plain.token });
  const prefix = await search(name.slice(0, -1));
  expect(prefix.status).toBe(200);
  expect((prefix.body as { id: string }[]).map((a) => a.id)).not.toContain(suspended.account.id);
  const exact = await search(name);
  expect((exact.body as { id: string; suspended?: boolean }[]).find((a) => a.id === suspended.account.id)?.suspended).toBe(true);
});
