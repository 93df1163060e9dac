// The profile directory (GET /api/v1/directory), endorsements (POST /api/v1/accounts/:id/endorse|unendorse,
// GET /api/v1/endorsements, GET /api/v1/accounts/:id/endorsements, Relationship.endorsed), the instance's
// languages (GET /api/v1/instance/languages, /translation_languages) and resending the confirmation e-mail
// (POST /api/v1/emails/confirmations), each driven through its HTTP handler against the emulators.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as endorseHandler } from '../../functions/accounts/endorse';
import { handler as accountEndorsementsHandler } from '../../functions/accounts/endorsements';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as muteHandler } from '../../functions/accounts/mute';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as unendorseHandler } from '../../functions/accounts/unendorse';
import { handler as unfollowHandler } from '../../functions/accounts/unfollow';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as confirmationPage } from '../../functions/auth/confirmation';
import { handler as directoryHandler } from '../../functions/directory/index';
import { handler as confirmationsHandler } from '../../functions/emails/confirmations';
import { handler as endorsementsHandler } from '../../functions/endorsements/index';
import { handler as languagesHandler } from '../../functions/instance/languages';
import { handler as translationLanguagesHandler } from '../../functions/instance/translation_languages';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as mailHandler } from '../../functions/workers/mail';
import { registerAccount } from '../../lib/accounts/register';
import { accountById, accountByEmail, updateAccount, type Account } from '../../lib/db/accounts';
import { syncDirectoryListing } from '../../lib/db/directory';
import { putInstanceDomainBlock } from '../../lib/db/instance_domain_blocks';
import * as keys from '../../lib/db/keys';
import { getItem, nowIso } from '../../lib/db/table';
import { saveActorDocument } from '../../lib/federation/actors';
import { registerInlineWorker } from '../../lib/queue';
import { queueMessages, type QueueName } from '../../lib/queue/messages';
import { forgetInstanceDomainBlocks } from '../../lib/policy/instance_domains';
import { issueAccessToken } from '../../lib/tokens';
import { z } from 'zod';
import { anApp, anAppToken, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';
import { aRemoteActor } from '../support/remote-server';

// X-Db-Calls on every answer: what each read costs is part of what is tested.
process.env.EXPOSE_METRICS = '1';
// The bad-input tables resend many confirmation mails for one account; the per-account throttle is not what they test.
process.env.RATE_LIMIT_FACTOR = '100';

// Posting and following queue work this file does not look at; mail is delivered for real (written under MAIL_DIR).
for (const queue of Object.keys(queueMessages) as QueueName[]) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));
registerInlineWorker('mail', mailHandler);

const anyEntry = z.record(z.unknown());
const ids = (res: Answer): string[] => (res.body as { id: string }[]).map((a) => a.id);
/** The ids of `mine` in the order the answer lists them (the directory may hold accounts of other tests in this file). */
const orderOf = (res: Answer, mine: string[]) => ids(res).filter((id) => mine.includes(id));

const directory = (query: Record<string, string> = {}, token?: string) => call(directoryHandler, { path: '/api/v1/directory', query, token });
const makeDiscoverable = async (user: UserFixture, on = true) => {
  const res = await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', form: { discoverable: String(on) }, token: user.token });
  expect(res.status).toBe(200);
  expect(res.body.discoverable).toBe(on);
};
const post = async (user: UserFixture, status: string) => {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status }, token: user.token });
  expect(res.status).toBe(200);
};

describe('GET /api/v1/directory', () => {
  let early: UserFixture;
  let middle: UserFixture;
  let late: UserFixture;
  let quiet: UserFixture;
  let mine: string[];

  beforeAll(async () => {
    // Created in this order: ids (and so the `new` order) follow it.
    early = await aUser();
    middle = await aUser();
    late = await aUser();
    quiet = await aUser();
    for (const user of [early, middle, late, quiet]) await makeDiscoverable(user);
    mine = [early, middle, late, quiet].map((u) => u.account.id);
    // `active` follows the latest status: late, then early, then middle (posting again moves an account up).
    await post(middle, 'first');
    await post(early, 'second');
    await post(middle, 'third');
    await post(late, 'fourth');
    await post(early, 'fifth');
  });

  it('lists discoverable accounts newest first with order=new, as Account entities', async () => {
    const res = await directory({ order: 'new' });
    expect(res.status).toBe(200);
    expect(orderOf(res, mine)).toEqual([quiet, late, middle, early].map((u) => u.account.id));
    const first = (res.body as Record<string, unknown>[]).find((a) => a.id === late.account.id);
    expect(first).toMatchObject({ username: late.account.username, acct: late.account.username, discoverable: true });
    // Anonymous: one Query per origin and one batch read of the page's accounts, plus the cached operator's domain blocks.
    expect(Number(res.headers['x-db-calls'])).toBeLessThanOrEqual(5);
  });

  it('orders by the latest status by default (active), accounts that never posted last', async () => {
    const res = await directory();
    expect(res.status).toBe(200);
    expect(orderOf(res, mine)).toEqual([early, late, middle, quiet].map((u) => u.account.id));
    expect(orderOf(await directory({ order: 'active' }), mine)).toEqual(orderOf(res, mine));
    // Each account once: posting moved its entry rather than adding one.
    expect(new Set(ids(res)).size).toBe(ids(res).length);
  });

  it('pages by offset and limit', async () => {
    const all = orderOf(await directory({ order: 'new', limit: '80' }), mine);
    const everything = ids(await directory({ order: 'new', limit: '80' }));
    const at = everything.indexOf(all[1]!);
    const page = await directory({ order: 'new', offset: String(at), limit: '2' });
    expect(ids(page)).toEqual(everything.slice(at, at + 2));
    expect(ids(await directory({ order: 'new', offset: String(everything.length) }))).toEqual([]);
  });

  it('drops an account that turns discoverable off, and its index entries', async () => {
    const leaver = await aUser();
    await makeDiscoverable(leaver);
    expect(ids(await directory({ order: 'new' }))).toContain(leaver.account.id);
    await makeDiscoverable(leaver, false);
    expect(ids(await directory({ order: 'new' }))).not.toContain(leaver.account.id);
    expect(ids(await directory())).not.toContain(leaver.account.id);
    expect(await getItem(keys.directoryNew('local', leaver.account.id), anyEntry, true)).toBeUndefined();
    expect(await getItem(keys.directoryActive('local', null, leaver.account.id), anyEntry, true)).toBeUndefined();
  });

  it('leaves out disabled and unapproved accounts, and removes entries of accounts no longer discoverable', async () => {
    const disabled = await aUser();
    await makeDiscoverable(disabled);
    await updateAccount(disabled.account.id, { disabled: true });
    // An unapproved login cannot reach update_credentials: its entry is written as a profile change would write it.
    const pending = await aUser({ approved: false });
    await syncDirectoryListing(undefined, { ...pending.account, discoverable: true });
    await updateAccount(pending.account.id, { discoverable: true });
    // A stray entry: the account says it is not discoverable (a race with a profile change).
    const stray = await aUser();
    await syncDirectoryListing(undefined, { ...stray.account, discoverable: true });

    const res = await directory({ order: 'new' });
    expect(res.status).toBe(200);
    for (const gone of [disabled, pending, stray]) expect(ids(res)).not.toContain(gone.account.id);
    expect(ids(res)).toContain(late.account.id);
    expect(await getItem(keys.directoryNew('local', stray.account.id), anyEntry, true)).toBeUndefined();
    // The disabled account's entry stays: enabling it again lists it again.
    await updateAccount(disabled.account.id, { disabled: false });
    expect(ids(await directory({ order: 'new' }))).toContain(disabled.account.id);
  });

  it('includes known discoverable remote accounts unless local=true, never those of a silenced server', async () => {
    const remote = (await saveActorDocument(aRemoteActor('https://directory-peer.example', `dir${Date.now().toString(36)}`, { icon: undefined }).doc))!;
    const hidden = (await saveActorDocument(aRemoteActor('https://directory-noisy.example', 'noisy', { icon: undefined }).doc))!;
    const shy = (await saveActorDocument(aRemoteActor('https://directory-peer.example', 'shy', { icon: undefined, discoverable: false }).doc))!;
    const now = nowIso();
    await putInstanceDomainBlock({ domain: 'directory-noisy.example', severity: 'silence', publicComment: '', privateComment: '', createdAt: now, updatedAt: now });
    forgetInstanceDomainBlocks();

    const all = ids(await directory({ order: 'new', local: 'false' }));
    expect(all).toContain(remote.id);
    expect(all).toContain(late.account.id);
    expect(all).not.toContain(hidden.id);
    expect(all).not.toContain(shy.id);
    const local = await directory({ order: 'new', local: 'true' });
    expect(ids(local)).not.toContain(remote.id);
    expect(ids(local)).toContain(late.account.id);
    expect(Number(local.headers['x-db-calls'])).toBeLessThanOrEqual(4);

    // The actor turning discovery off (a refetch or an Update) takes it out of the index.
    await saveActorDocument(aRemoteActor('https://directory-peer.example', remote.username, { icon: undefined, discoverable: false }).doc);
    expect(ids(await directory({ order: 'new' }))).not.toContain(remote.id);
    expect(await getItem(keys.directoryNew('remote', remote.id), anyEntry, true)).toBeUndefined();
  });

  it('hides from a signed-in viewer the accounts it blocks or mutes', async () => {
    const viewer = await aUser();
    const res = await call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${middle.account.id}/block`, pathParameters: { id: middle.account.id }, token: viewer.token });
    expect(res.status).toBe(200);
    const muted = await call(muteHandler, { method: 'POST', path: `/api/v1/accounts/${early.account.id}/mute`, pathParameters: { id: early.account.id }, token: viewer.token });
    expect(muted.status).toBe(200);
    const seen = await directory({ order: 'new' }, viewer.token);
    expect(ids(seen)).not.toContain(middle.account.id);
    expect(ids(seen)).not.toContain(early.account.id);
    expect(ids(seen)).toContain(late.account.id);
    expect(ids(await directory({ order: 'new' }))).toEqual(expect.arrayContaining([middle.account.id, early.account.id]));
    // Signed in: the token and its account, and the viewer's blocks, blocked-by and mutes (one Query each) besides the page's reads.
    expect(Number(seen.headers['x-db-calls'])).toBeLessThanOrEqual(9);
  });

  it.each([
    ['an unknown order', { order: 'popular' }, { order: 'new' }, 'order'],
    ['a non-numeric limit', { limit: 'many' }, { limit: '5' }, 'limit'],
    ['a negative offset', { offset: '-1' }, { offset: '0' }, 'offset'],
    ['an offset past the bound', { offset: '10001' }, { offset: '10000' }, 'offset'],
    ['a non-numeric offset', { offset: 'x' }, { offset: '1' }, 'offset'],
    ['a local that is no boolean', { local: 'perhaps' }, { local: 'true' }, 'local'],
  ])('answers 422 for %s, 200 for its good twin', async (_case, bad, good, field) => {
    const refused = await directory(bad);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toContain(field);
    expect((await directory(good)).status).toBe(200);
  });

  it('clamps limit to 80; a token is optional, but an invalid one is refused as on every optional-auth endpoint', async () => {
    const res = await directory({ limit: '500', order: 'new' });
    expect(res.status).toBe(200);
    expect(ids(res).length).toBeLessThanOrEqual(80);
    expect((await directory({}, 'not-a-token')).status).toBe(401);
    expect((await directory({}, late.token)).status).toBe(200);
  });
});

describe('endorsements', () => {
  let viewer: UserFixture;
  let friend: UserFixture;
  let other: UserFixture;
  let stranger: UserFixture;

  const endorse = (token: string | undefined, id: string) =>
    call(endorseHandler, { method: 'POST', path: `/api/v1/accounts/${id}/endorse`, pathParameters: { id }, token });
  const unendorse = (token: string | undefined, id: string) =>
    call(unendorseHandler, { method: 'POST', path: `/api/v1/accounts/${id}/unendorse`, pathParameters: { id }, token });
  const follow = (token: string, id: string) => call(followHandler, { method: 'POST', path: `/api/v1/accounts/${id}/follow`, pathParameters: { id }, token });
  const unfollow = (token: string, id: string) => call(unfollowHandler, { method: 'POST', path: `/api/v1/accounts/${id}/unfollow`, pathParameters: { id }, token });
  const listOwn = (token: string | undefined, query: Record<string, string> = {}) => call(endorsementsHandler, { path: '/api/v1/endorsements', query, token });
  const listOf = (id: string, query: Record<string, string> = {}, token?: string) =>
    call(accountEndorsementsHandler, { path: `/api/v1/accounts/${id}/endorsements`, pathParameters: { id }, query, token });
  const relationship = async (token: string, id: string) => {
    const res = await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { 'id[]': id }, token });
    expect(res.status).toBe(200);
    return (res.body as { endorsed: boolean }[])[0];
  };

  beforeAll(async () => {
    [viewer, friend, other, stranger] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    expect((await follow(viewer.token, friend.account.id)).status).toBe(200);
    expect((await follow(viewer.token, other.account.id)).status).toBe(200);
  });

  it('refuses to endorse an account not followed (422), then endorses it once followed', async () => {
    const refused = await endorse(viewer.token, stranger.account.id);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: 'Validation failed: You must be already following the person you want to endorse' });
    expect(await getItem(keys.endorsement(viewer.account.id, stranger.account.id), anyEntry, true)).toBeUndefined();

    const res = await endorse(viewer.token, friend.account.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: friend.account.id, following: true, endorsed: true });
    expect(await relationship(viewer.token, friend.account.id)).toMatchObject({ endorsed: true });
    expect(await relationship(viewer.token, other.account.id)).toMatchObject({ endorsed: false });
    // Endorsing again changes nothing.
    expect((await endorse(viewer.token, friend.account.id)).body).toMatchObject({ endorsed: true });
  });

  it('lists the endorsed accounts, newest account first, with Link paging', async () => {
    expect((await endorse(viewer.token, other.account.id)).status).toBe(200);
    const res = await listOwn(viewer.token);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([other.account.id, friend.account.id]);
    expect(res.body[0]).toMatchObject({ username: other.account.username });

    const first = await listOwn(viewer.token, { limit: '1' });
    expect(ids(first)).toEqual([other.account.id]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.link ?? '')?.[1];
    expect(next).toContain(`max_id=${other.account.id}`);
    const second = await listOwn(viewer.token, { limit: '1', max_id: other.account.id });
    expect(ids(second)).toEqual([friend.account.id]);
    // Token read and rate count, one Query, one batch read of accounts and follow edges.
    expect(Number(res.headers['x-db-calls'])).toBeLessThanOrEqual(5);

    // Mastodon 4.4's public list of another account's endorsements.
    const shown = await listOf(viewer.account.id);
    expect(shown.status).toBe(200);
    expect(ids(shown)).toEqual([other.account.id, friend.account.id]);
    expect(ids(await listOf(friend.account.id))).toEqual([]);
  });

  it('unendorses, and unfollowing removes the endorsement', async () => {
    const res = await unendorse(viewer.token, other.account.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: other.account.id, endorsed: false, following: true });
    expect(ids(await listOwn(viewer.token))).toEqual([friend.account.id]);
    expect((await unendorse(viewer.token, other.account.id)).body).toMatchObject({ endorsed: false });

    expect((await unfollow(viewer.token, friend.account.id)).status).toBe(200);
    expect(await getItem(keys.endorsement(viewer.account.id, friend.account.id), anyEntry, true)).toBeUndefined();
    expect(ids(await listOwn(viewer.token))).toEqual([]);
    // Following again does not bring the endorsement back.
    expect((await follow(viewer.token, friend.account.id)).status).toBe(200);
    expect(await relationship(viewer.token, friend.account.id)).toMatchObject({ following: true, endorsed: false });
  });

  it('blocking an endorsed account removes the endorsement with the follow', async () => {
    const fan = await aUser();
    expect((await follow(fan.token, stranger.account.id)).status).toBe(200);
    expect((await endorse(fan.token, stranger.account.id)).status).toBe(200);
    const blocked = await call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${stranger.account.id}/block`, pathParameters: { id: stranger.account.id }, token: fan.token });
    expect(blocked.status).toBe(200);
    expect(await getItem(keys.endorsement(fan.account.id, stranger.account.id), anyEntry, true)).toBeUndefined();
  });

  describe('bad input', () => {
    let readOnly: string;
    let appToken: string;
    beforeAll(async () => {
      ({ raw: readOnly } = await issueAccessToken(viewer.app, viewer.account.id, ['read']));
      ({ token: appToken } = await anAppToken(['read', 'write']));
      expect((await endorse(viewer.token, other.account.id)).status).toBe(200);
    });

    const good = () => other.account.id;
    it.each([
      ['no token', () => undefined, good, 401],
      ['a read-only token', () => readOnly, good, 403],
      ['an app token', () => appToken, good, 422],
      ['an unknown account', () => viewer.token, () => '99999999999999999', 404],
      ['a malformed id', () => viewer.token, () => 'abc', 404],
      ['an oversized id', () => viewer.token, () => '9'.repeat(500), 404],
      ['an account not followed', () => viewer.token, () => stranger.account.id, 422],
      ['oneself', () => viewer.token, () => viewer.account.id, 422],
    ])('endorse answers an error for %s; its good twin works', async (_case, token, id, status) => {
      const res = await endorse(token(), id());
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await endorse(viewer.token, good())).status).toBe(200);
    });

    it.each([
      ['no token', () => undefined, good, 401],
      ['a read-only token', () => readOnly, good, 403],
      ['an unknown account', () => viewer.token, () => '99999999999999999', 404],
      ['a malformed id', () => viewer.token, () => 'abc', 404],
    ])('unendorse answers an error for %s; its good twin works', async (_case, token, id, status) => {
      const res = await unendorse(token(), id());
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await unendorse(viewer.token, good())).status).toBe(200);
      expect((await endorse(viewer.token, good())).status).toBe(200);
    });

    it.each([
      ['no token', undefined, {}, 401],
      ['a write-only token', 'write', {}, 403],
      ['a malformed max_id', 'user', { max_id: 'abc' }, 422],
      ['a non-numeric limit', 'user', { limit: 'lots' }, 422],
    ])('GET /api/v1/endorsements answers an error for %s; its good twin works', async (_case, who, query: Record<string, string>, status) => {
      const token = who === 'user' ? viewer.token : who === 'write' ? (await issueAccessToken(viewer.app, viewer.account.id, ['write'])).raw : undefined;
      const res = await listOwn(token, query);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await listOwn(viewer.token)).status).toBe(200);
    });

    it.each([
      ['an unknown account', '99999999999999999', {}, 404],
      ['a malformed id', 'abc', {}, 404],
      ['a malformed since_id', 'viewer', { since_id: '1x' }, 422],
    ])('GET /api/v1/accounts/:id/endorsements answers an error for %s; its good twin works', async (_case, id, query: Record<string, string>, status) => {
      const res = await listOf(id === 'viewer' ? viewer.account.id : id, query);
      expect(res.status).toBe(status);
      expect((await listOf(viewer.account.id)).status).toBe(200);
    });
  });
});

describe('instance languages', () => {
  it('lists every language a status may be marked with, by code and English name', async () => {
    const res = await call(languagesHandler, { path: '/api/v1/instance/languages' });
    expect(res.status).toBe(200);
    const list = res.body as { code: string; name: string }[];
    expect(list).toContainEqual({ code: 'en', name: 'English' });
    expect(list).toContainEqual({ code: 'de', name: 'German' });
    expect(list).toContainEqual({ code: 'ja', name: 'Japanese' });
    expect(new Set(list.map((l) => l.code)).size).toBe(list.length);
    for (const { code, name } of list) {
      expect(code).toMatch(/^[a-z]{2}$/);
      expect(name).not.toBe(code);
    }
    // Only the address's rate-limit counter: the list is the runtime's data.
    expect(res.headers['x-db-calls']).toBe('1');
  });

  it('answers the empty map of translation languages (translation is off), whatever token is sent', async () => {
    const res = await call(translationLanguagesHandler, { path: '/api/v1/instance/translation_languages' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await call(translationLanguagesHandler, { path: '/api/v1/instance/translation_languages', token: 'bogus' })).status).toBe(200);
    expect((await call(languagesHandler, { path: '/api/v1/instance/languages', token: 'bogus' })).status).toBe(200);
  });
});

describe('POST /api/v1/emails/confirmations', () => {
  type Mail = { to: string; subject: string; text: string };
  async function mailsTo(address: string): Promise<Mail[]> {
    const dir = process.env.MAIL_DIR ?? '';
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(`-${address}.json`)).sort();
    return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as Mail));
  }
  const linkIn = (mail: Mail | undefined) => new URL(/https:\/\/social\.example\/auth\/confirmation\?confirmation_token=[\w%-]+/.exec(mail?.text ?? '')?.[0] ?? 'https://x.invalid/');
  const resend = (token: string | undefined, json: Record<string, unknown> = {}) =>
    call(confirmationsHandler, { method: 'POST', path: '/api/v1/emails/confirmations', json, token });

  let seq = 0;
  /** An account signed up through an app and not confirmed yet, as POST /api/v1/accounts leaves it, with its token. */
  async function signedUp(): Promise<{ account: Account; token: string; email: string; app: Awaited<ReturnType<typeof anApp>>['app'] }> {
    seq += 1;
    const username = `resend_${Date.now().toString(36)}_${seq}`;
    const email = `${username}@example.com`;
    const { app } = await anApp({ scopes: 'read write' });
    const made = await registerAccount({ username, email, password: 'hunter2hunter2', agreement: true }, { app, confirmed: false, approved: true, skipRules: true });
    return { account: made.account, token: made.token!.raw, email, app };
  }

  it('mails a new link to the unconfirmed address; the link confirms it', async () => {
    const user = await signedUp();
    expect(await mailsTo(user.email)).toHaveLength(1);
    const res = await resend(user.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const mails = await mailsTo(user.email);
    expect(mails).toHaveLength(2);
    const page = await call(confirmationPage, { path: '/auth/confirmation', query: linkIn(mails[1]).search.slice(1) });
    expect(page.status).toBe(200);
    expect((await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: user.token })).status).toBe(200);
    // Confirmed now: nothing more to resend (403, as Mastodon).
    const after = await resend(user.token);
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ error: 'This method is only available while the e-mail is awaiting confirmation' });
  });

  it('moves the account to a corrected address; links to the old one stop working', async () => {
    const user = await signedUp();
    const corrected = `fixed_${user.email}`;
    const res = await resend(user.token, { email: corrected.toUpperCase() });
    expect(res.status).toBe(200);
    expect((await accountById(user.account.id))?.email).toBe(corrected);
    expect((await accountByEmail(corrected))?.id).toBe(user.account.id);
    expect(await accountByEmail(user.email)).toBeUndefined();

    const old = await call(confirmationPage, { path: '/auth/confirmation', query: linkIn((await mailsTo(user.email))[0]).search.slice(1) });
    expect(old.status).toBe(404);
    const mails = await mailsTo(corrected);
    expect(mails).toHaveLength(1);
    const page = await call(confirmationPage, { path: '/auth/confirmation', query: linkIn(mails[0]).search.slice(1) });
    expect(page.status).toBe(200);
    expect((await accountById(user.account.id))?.confirmedAt).toEqual(expect.any(String));
  });

  describe('bad input', () => {
    let user: Awaited<ReturnType<typeof signedUp>>;
    let taken: UserFixture;
    let otherAppToken: string;
    let readOnly: string;
    let confirmed: UserFixture;
    beforeAll(async () => {
      user = await signedUp();
      taken = await aUser();
      confirmed = await aUser();
      const { app } = await anApp({ scopes: 'read write' });
      ({ raw: otherAppToken } = await issueAccessToken(app, user.account.id, ['write']));
      ({ raw: readOnly } = await issueAccessToken(user.app, user.account.id, ['read']));
    });

    it.each([
      ['no token', () => undefined, {}, 401],
      ['a read-only token', () => readOnly, {}, 403],
      ['a token of another app than the sign-up one', () => otherAppToken, {}, 403],
      ['an account the operator made (no sign-up app), confirmed', () => confirmed.token, {}, 403],
      ['an address taken by another account', () => user.token, { email: 'TAKEN' }, 422],
      ['an invalid address', () => user.token, { email: 'not-an-address' }, 422],
      ['an empty address', () => user.token, { email: '' }, 422],
      ['an address that is no string', () => user.token, { email: 42 }, 422],
      ['an oversized address', () => user.token, { email: `${'a'.repeat(300)}@example.com` }, 422],
      ['a body past the schema bound', () => user.token, { email: 'a'.repeat(20_000) }, 422],
    ])('answers an error for %s, changing nothing; its good twin works', async (_case, token, body: Record<string, unknown>, status) => {
      const json = body.email === 'TAKEN' ? { email: taken.account.email } : body;
      const before = await accountById(user.account.id);
      const res = await resend(token(), json);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await accountById(user.account.id))?.email).toBe(before?.email);
      expect((await resend(user.token)).status).toBe(200);
    });
  });
});
