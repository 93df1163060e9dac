// A suspended local account on the ActivityPub side, as Mastodon 4.3 serves one while its data is kept
// (AccountOwnedConcern#temporary_suspension_response; AccountsController serves the actor's JSON): the actor
// document keeps its key and says `suspended: true` with nothing it wrote; its notes, outbox, collections and
// its `/@user` page answer 403; WebFinger still answers (Mastodon refuses it only once the account is gone).
import { handler as actor } from '../../functions/activitypub/actor';
import { handler as followers } from '../../functions/activitypub/followers';
import { handler as outbox } from '../../functions/activitypub/outbox';
import { handler as profile } from '../../functions/activitypub/profile';
import { handler as statusDoc } from '../../functions/activitypub/status';
import { handler as webfinger } from '../../functions/wellknown/webfinger';
import { updateAccount } from '../../lib/db/accounts';
import type { Status } from '../../lib/db/statuses';
import { call } from '../support/http';
import { aPostedStatus, aUser, type UserFixture } from '../support/factories';

const AP_ACCEPT = 'application/activity+json';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
type Handler = Parameters<typeof call>[0];
const get = (handler: Handler, path: string, params: Record<string, string>, accept = AP_ACCEPT) =>
  call(handler, { path, pathParameters: params, headers: { accept } });

describe('a suspended local account', () => {
  let user: UserFixture;
  let status: Status;
  let name: string;
  let keyBefore: unknown;

  beforeAll(async () => {
    user = await aUser();
    name = user.account.username;
    await updateAccount(user.account.id, { displayName: 'Shown Name', note: 'bio', noteHtml: '<p>bio</p>', fields: [{ name: 'a', value: 'b' }], fieldsHtml: [{ name: 'a', value: 'b', verifiedAt: null }] });
    status = await aPostedStatus(user.account);
    const before = await get(actor, `/users/${name}`, { username: name });
    expect(before.status).toBe(200);
    expect(before.body.suspended).toBeUndefined();
    keyBefore = before.body.publicKey;
    expect((await get(statusDoc, `/users/${name}/statuses/${status.id}`, { username: name, id: status.id })).status).toBe(200);
    expect((await get(profile, `/@${name}`, { handle: `@${name}` }, BROWSER_ACCEPT)).status).toBe(200);
    await updateAccount(user.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
  });

  it('serves its actor with its key and suspended: true, nothing it wrote', async () => {
    for (const res of [await get(actor, `/users/${name}`, { username: name }), await get(profile, `/@${name}`, { handle: `@${name}` })]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ type: 'Person', preferredUsername: name, name, summary: '', attachment: [], tag: [], suspended: true });
      expect(res.body.publicKey).toEqual(keyBefore);
      expect(res.body.icon).toBeUndefined();
    }
  });

  it('answers 403 for its notes, outbox, followers and its web page', async () => {
    const answers = [
      await get(statusDoc, `/users/${name}/statuses/${status.id}`, { username: name, id: status.id }),
      await get(outbox, `/users/${name}/outbox`, { username: name }),
      await get(followers, `/users/${name}/followers`, { username: name }),
      await get(profile, `/@${name}`, { handle: `@${name}` }, BROWSER_ACCEPT),
    ];
    for (const res of answers) expect(res.status).toBe(403);
  });

  it('still answers WebFinger', async () => {
    const res = await call(webfinger, { path: '/.well-known/webfinger', query: { resource: `acct:${name}@social.example` } });
    expect(res.status).toBe(200);
  });
});
