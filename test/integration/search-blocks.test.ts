// Blocks apply to account search (GET /api/v2/search and GET /api/v1/accounts/search)
// as in Mastodon's AccountSearchService: partial matches leave out accounts blocked
// either way (a mute does not hide), while the exact username is always found, so
// that a client can resolve a name to unblock or unmute it (toot's `unblock NAME`).
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as accountSearch } from '../../functions/accounts/search';
import { handler as search } from '../../functions/search/v2';
import { config } from '../../lib/config';
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

  it('hides the searcher from the partial matches of the accounts it blocks and that block it', async () => {
    expect(await v2Accounts(blockedBySeeker, 'sbseek')).toEqual([]);
    expect(await v2Accounts(blockingSeeker, 'sbseek')).toEqual([]);
    expect(await v1Accounts(blockingSeeker, 'sbseek')).toEqual([]);
  });

  it.each([
    ['an account the searcher blocks', () => blockedBySeeker],
    ['an account that blocks the searcher', () => blockingSeeker],
    ['an account the searcher mutes', () => mutedBySeeker],
  ])('finds %s by its exact username, in v1 and v2 and in every spelling of the name', async (_name, target) => {
    const { username } = target().account;
    for (const q of [username, `@${username}`, username.toUpperCase(), `${username}@${config.domain}`]) {
      expect(await v2Accounts(seeker, q)).toEqual([target().account.id]);
      expect(await v1Accounts(seeker, q)).toEqual([target().account.id]);
    }
  });

  it('lets the blocked account find the searcher by exact username too', async () => {
    expect(await v2Accounts(blockedBySeeker, 'sbseeker')).toEqual([seeker.account.id]);
    expect(await v2Accounts(blockingSeeker, 'sbseeker')).toEqual([seeker.account.id]);
  });

  it('puts the exact match first, ahead of the partial matches it does not hide', async () => {
    const res = await call(search, { path: '/api/v2/search', query: { q: 'sbwombat1', type: 'accounts', resolve: 'true' }, token: seeker.token });
    expect(res.status).toBe(200);
    expect((res.body.accounts as { id: string; acct: string }[]).map((a) => a.acct)).toEqual(['sbwombat1']);
  });

  it('still applies following=true to the exact match', async () => {
    const res = await call(accountSearch, { path: '/api/v1/accounts/search', query: { q: 'sbwombat1', following: 'true' }, token: seeker.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('changes nothing for a third account', async () => {
    expect((await v2Accounts(bystander, 'sbwombat')).sort()).toEqual(
      [blockedBySeeker.account.id, blockingSeeker.account.id, mutedBySeeker.account.id].sort(),
    );
    expect((await v2Accounts(bystander, 'quokka')).length).toBe(3);
  });
});
