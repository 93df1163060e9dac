// Moderation between two servers of ours, as people meet it. mia is a moderator on the first server (the operator
// gives her the role with `npm run admin -- accounts role`), and works with masto's admin methods. rex, on the first
// server, and una, on the second, follow each other.
// - mia suspends rex: the second server hears it (Update of his actor with `suspended`), shows him suspended with no
//   posts, and both follows end (a Reject of una's, an Undo of his).
// - mia lifts it: the second server shows him again, his posts with him, and his follow of una comes back (a new
//   Follow); hers cannot (her server dropped it on the Reject), as on Mastodon.
// - mia silences una, a remote account: her public posts still reach rex, who follows her, but leave the first
//   server's public timelines. Then mia suspends her: her new follow of rex is rejected back on her server.
// - mia lifts una's suspension, and una follows rex again. mia suspends rex again and, made an Admin (a Moderator may
//   not delete data), deletes his data now: the sweeper purges him, and the Delete of his actor, sent to his
//   followers' servers, removes him from the second server.
import type { mastodon } from 'masto';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { sweepAt } from '../../support/sweep';
import { HOP_MS, STEP_MS, acctOn, adminOn, followAcross, need, resolveAccount } from './pair';

/** Suspended accounts included (Mastodon 4.3's with_suspended: left out otherwise). */
const relationshipOf = async (viewer: MastoUser, other: mastodon.v1.Account) =>
  (await viewer.client.v1.accounts.relationships.fetch({ id: [other.id], withSuspended: true }))[0];
const statusUris = async (viewer: MastoUser, of: mastodon.v1.Account) =>
  (await viewer.client.v1.accounts.$select(of.id).statuses.list({ limit: 40 })).map((s) => s.uri);
const homeUris = async (viewer: MastoUser) => (await viewer.client.v1.timelines.home.list({ limit: 40 })).map((s) => s.uri);
const publicUris = async (viewer: MastoUser) => (await viewer.client.v1.timelines.public.list({ limit: 40 })).map((s) => s.uri);

/** The account as `viewer`'s server shows it now; undefined once it is gone (404). */
async function accountNow(viewer: MastoUser, id: string): Promise<mastodon.v1.Account | undefined> {
  try {
    return await viewer.client.v1.accounts.$select(id).fetch();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return undefined;
    throw err;
  }
}

/** Waits until `viewer`'s server shows `id` as `wanted` says (the hop of a delivery and its inbox run). */
const accountWhen = (viewer: MastoUser, id: string, wanted: (a: mastodon.v1.Account | undefined) => boolean, what: string) =>
  eventually(async () => {
    const a = await accountNow(viewer, id);
    return wanted(a) ? { account: a } : undefined;
  }, what, HOP_MS).then((r) => r.account);

/** Waits until `viewer`'s relationship with `other` is as `wanted` says. */
const relationshipWhen = (viewer: MastoUser, other: mastodon.v1.Account, wanted: (r: mastodon.v1.Relationship) => boolean, what: string) =>
  eventually(async () => {
    const r = await relationshipOf(viewer, other);
    return r && wanted(r) ? r : undefined;
  }, what, HOP_MS);

export function moderationSteps(pair: () => [Stack, Stack]) {
  describe('moderation across the servers', () => {
    let mia: MastoUser | undefined;
    let rex: MastoUser | undefined;
    let una: MastoUser | undefined;
    /** rex as the second server knows him, una as the first server knows her. */
    let rexOnSecond: mastodon.v1.Account | undefined;
    let unaOnFirst: mastodon.v1.Account | undefined;
    /** rex's public post from before any sanction. */
    let rexPost: mastodon.v1.Status | undefined;

    beforeAll(async () => {
      const [first, second] = pair();
      [mia, rex, una] = await Promise.all([
        newUser(first.baseUrl, 'mia', 'read write follow push admin:read admin:write'),
        newUser(first.baseUrl, 'rex'),
        newUser(second.baseUrl, 'una'),
      ]);
      await adminOn(first, ['accounts', 'role', mia.me.username, 'moderator']);
    }, STEP_MS);

    it('rex and una follow each other across the servers, and his public post is on her home', async () => {
      const [first, second] = pair();
      const r = need(rex, 'rex');
      const u = need(una, 'una');
      rexOnSecond = await resolveAccount(u, acctOn(r, first));
      unaOnFirst = await resolveAccount(r, acctOn(u, second));
      await followAcross(u, rexOnSecond);
      await followAcross(r, unaOnFirst);
      rexPost = await r.client.v1.statuses.create({ status: 'before any sanction', visibility: 'public' });
      await eventually(async () => (await homeUris(u)).includes(rexPost!.uri), 'rex’s post on una’s home', HOP_MS);
      expect((await need(mia, 'mia').client.v1.accounts.verifyCredentials()).role).toMatchObject({ name: 'Moderator' });
    }, STEP_MS);

    it('mia suspends rex: the second server shows him suspended without posts, and the follows both ways end', async () => {
      const [first] = pair();
      const m = need(mia, 'mia');
      const r = need(rex, 'rex');
      const u = need(una, 'una');
      const rexThere = need(rexOnSecond, 'rex on the second server');
      const post = need(rexPost, 'rex’s post');
      await m.client.v1.admin.accounts.$select(r.me.id).action.create({ type: 'suspend', text: 'e2e' });
      expect(await m.client.v1.admin.accounts.$select(r.me.id).fetch()).toMatchObject({ suspended: true });
      // The follows are severed in the background, by the sweeper's next run (every minute; here at once).
      await sweepAt(first, Date.now());
      const shown = await accountWhen(u, rexThere.id, (a) => a?.suspended === true, 'the second server hears of the suspension');
      expect(shown).toMatchObject({ suspended: true, note: '', displayName: '', fields: [] });
      expect(await statusUris(u, rexThere)).toEqual([]);
      expect(await homeUris(u)).not.toContain(post.uri);
      const ended = await relationshipWhen(u, rexThere, (r) => !r.following && !r.followedBy, 'both follows ended on the second server');
      expect(ended).toMatchObject({ following: false, followedBy: false });
    }, STEP_MS);

    it('mia lifts the suspension: the second server shows rex and his post again, and his follow of una comes back', async () => {
      const [first] = pair();
      const m = need(mia, 'mia');
      const r = need(rex, 'rex');
      const u = need(una, 'una');
      const rexThere = need(rexOnSecond, 'rex on the second server');
      const post = need(rexPost, 'rex’s post');
      expect(await m.client.v1.admin.accounts.$select(r.me.id).unsuspend()).toMatchObject({ suspended: false });
      // The follows are restored in the background too.
      await sweepAt(first, Date.now());
      const shown = await accountWhen(u, rexThere.id, (a) => a !== undefined && !a.suspended, 'the second server hears the suspension lifted');
      expect(shown?.suspended).toBeFalsy();
      await eventually(async () => (await statusUris(u, rexThere)).includes(post.uri), 'rex’s post shown again', HOP_MS);
      const rel = await relationshipWhen(u, rexThere, (r) => r.followedBy, 'rex follows una again');
      // Hers was ended by a Reject her server obeyed: only she can follow again.
      expect(rel).toMatchObject({ followedBy: true, following: false });
    }, STEP_MS);

    it('mia silences una: her public posts still reach rex, her follower, but not the first server’s public timeline', async () => {
      const m = need(mia, 'mia');
      const r = need(rex, 'rex');
      const u = need(una, 'una');
      const unaThere = need(unaOnFirst, 'una on the first server');
      const before = await u.client.v1.statuses.create({ status: 'before the silence', visibility: 'public' });
      await eventually(async () => (await publicUris(m)).includes(before.uri), 'una’s post on the first server’s public timeline', HOP_MS);

      await m.client.v1.admin.accounts.$select(unaThere.id).action.create({ type: 'silence' });
      expect(await m.client.v1.admin.accounts.$select(unaThere.id).fetch()).toMatchObject({ silenced: true, domain: unaThere.acct.split('@')[1] });
      expect(await publicUris(m)).not.toContain(before.uri);
      const after = await u.client.v1.statuses.create({ status: 'after the silence', visibility: 'public' });
      await eventually(async () => (await homeUris(r)).includes(after.uri), 'una’s post on rex’s home', HOP_MS);
      expect(await publicUris(m)).not.toContain(after.uri);
      expect(await publicUris(r)).not.toContain(after.uri);
      // rex follows her: her profile and posts stay his to read, marked limited for nobody but staff.
      expect(await statusUris(r, unaThere)).toContain(after.uri);
    }, STEP_MS);

    it('mia suspends una: her new follow of rex is rejected back on her server, and her posts leave the first server', async () => {
      const [first] = pair();
      const m = need(mia, 'mia');
      const r = need(rex, 'rex');
      const u = need(una, 'una');
      const unaThere = need(unaOnFirst, 'una on the first server');
      const rexThere = need(rexOnSecond, 'rex on the second server');
      await followAcross(u, rexThere);
      await m.client.v1.admin.accounts.$select(unaThere.id).action.create({ type: 'suspend' });
      await sweepAt(first, Date.now());
      const rel = await relationshipWhen(u, rexThere, (r) => !r.following, 'una’s follow of rex rejected');
      expect(rel.following).toBe(false);
      expect(await accountNow(r, unaThere.id)).toMatchObject({ suspended: true });
      expect(await statusUris(r, unaThere)).toEqual([]);
      // What she posts now is not taken in: rex, who still follows her, does not get it.
      const unseen = await u.client.v1.statuses.create({ status: 'while suspended there', visibility: 'public' });
      const witness = await r.client.v1.statuses.create({ status: 'a post of rex after hers', visibility: 'public' });
      await eventually(async () => (await homeUris(r)).includes(witness.uri), 'rex’s own post at home', HOP_MS);
      const found = await r.client.v2.search.list({ q: unseen.uri, type: 'statuses', resolve: true });
      expect(found.statuses).toEqual([]);
      expect(await homeUris(r)).not.toContain(unseen.uri);
    }, STEP_MS * 2);

    it('mia suspends rex again and deletes his data now: the purge sends the Delete, and the second server removes him', async () => {
      const [first] = pair();
      const m = need(mia, 'mia');
      const r = need(rex, 'rex');
      const u = need(una, 'una');
      const rexThere = need(rexOnSecond, 'rex on the second server');
      const unaThere = need(unaOnFirst, 'una on the first server');
      // The Delete goes where the suspension's Update went: the servers of his followers (Mastodon's AccountReachFinder).
      // una follows him again, once mia has lifted her suspension.
      expect(await m.client.v1.admin.accounts.$select(unaThere.id).unsuspend()).toMatchObject({ suspended: false });
      await followAcross(u, rexThere);
      await m.client.v1.admin.accounts.$select(r.me.id).action.create({ type: 'suspend' });
      await accountWhen(u, rexThere.id, (a) => a?.suspended === true, 'the second server hears of the new suspension');
      // Deleting the data is an Admin's (delete user data): a Moderator is refused, until the operator makes her one.
      const asModerator = await fetch(`${first.baseUrl}/api/v1/admin/accounts/${r.me.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${m.token}` } });
      expect(asModerator.status).toBe(403);
      await adminOn(first, ['accounts', 'role', m.me.username, 'admin']);
      const removed = await fetch(`${first.baseUrl}/api/v1/admin/accounts/${r.me.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${m.token}` } });
      expect(removed.status).toBe(200);
      // The purge is the sweeper's, in as many runs as the account needs.
      await eventually(
        async () => {
          await sweepAt(first, Date.now());
          return (await accountNow(u, rexThere.id)) === undefined;
        },
        'rex removed from the second server',
        HOP_MS * 2,
      );
      expect(await statusUris(u, rexThere).catch((err: { statusCode?: number }) => err.statusCode)).toEqual(404);
    }, STEP_MS * 2);
  });
}
