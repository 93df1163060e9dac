// Blocks apply to account search (GET /api/v2/search and GET /api/v1/accounts/search):
// two accounts that block each other, either way, do not find each other; a mute does not hide.
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as accountSearch } from '../../functions/graph/search';
import { handler as search } from '../../functions/search/v2';
import { block, mute } from '../../lib/graph/blocks';
import { aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

let seeker: UserFixture;
let blockedBySeeker: UserFixture;
let blockingSeeker: UserFixture;
let mutedBySeeker: UserFixture;
let bystander: UserFixture;

const v2Accounts = async (user: UserFixture, q: string) => {
  const res = await call(search, { path: '/api/v2/search', query: { q, type: 'accounts' }, token: user.token });
  expect(res.status).toBe(200);
  return (res.body.accounts as { id: string }[]).map((a) => a.id);
};
const v1Accounts = async (user: UserFixture, q: string) => {
  const res = await call(accountSearch, { path: '/api/v1/accounts/search', query: { q }, token: user.token });
  expect(res.status).toBe(200);
  return (res.body as { id: string }[]).map((a) => a.id);
};

beforeAll(async () => {
  [seeker, blockedBySeeker, blockingSeeker, mutedBySeeker, bystander] = await Promise.all([
    aUser({ username: 'sbseeker' }),
    aUser({ username: 'sbwombat1' }),
    aUser({ username: 'sbwombat2' }),
    aUser({ username: 'sbwombat3' }),
    aUser({ username: 'sbbystander' }),
  ]);
  // Display names make the same accounts findable through the display-name index too.
  await Promise.all(
    [blockedBySeeker, blockingSeeker, mutedBySeeker].map((u) =>
      call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', json: { display_name: 'Quokka Friend' }, token: u.token }),
    ),
  );
  await block(seeker.account, blockedBySeeker.account.id);
  await block(blockingSeeker.account, seeker.account.id);
  await mute(seeker.account, mutedBySeeker.account.id, { notifications: true, duration: 0 });
});

describe('account search and blocks', () => {
  it('leaves out accounts blocked either way from a username prefix search, keeping muted ones', async () => {
    expect(await v2Accounts(seeker, 'sbwombat')).toEqual([mutedBySeeker.account.id]);
    expect(await v1Accounts(seeker, 'sbwombat')).toEqual([mutedBySeeker.account.id]);
  });

  it('leaves them out of a display-name search too', async () => {
    expect(await v2Accounts(seeker, 'quokka')).toEqual([mutedBySeeker.account.id]);
  });

  it('hides the searcher from the accounts it blocks and that block it', async () => {
    expect(await v2Accounts(blockedBySeeker, 'sbseeker')).toEqual([]);
    expect(await v2Accounts(blockingSeeker, 'sbseeker')).toEqual([]);
  });

  it('changes nothing for a third account', async () => {
    expect((await v2Accounts(bystander, 'sbwombat')).sort()).toEqual(
      [blockedBySeeker.account.id, blockingSeeker.account.id, mutedBySeeker.account.id].sort(),
    );
    expect((await v2Accounts(bystander, 'quokka')).length).toBe(3);
  });
});
