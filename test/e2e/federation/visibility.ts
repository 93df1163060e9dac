// Visibility and profiles across two servers of ours, through masto: a
// followers-only post on the first server reaches a follower on the second and
// never a non-follower there nor its public timeline (a public post sent after it
// is the sign that everything sent has arrived); profile changes (display name,
// note, fields) travel both ways as Update(Person); a pinned post shows on the
// other server (the featured collection read with the profile change; then
// unpinning and pinning another, sent as Remove and Add).
import type { mastodon } from 'masto';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { HOP_MS, STEP_MS, acctOn, followAcross, need, resolveAccount } from './pair';

/** The status of `uri` in `user`'s home, when it is there. */
const inHome = async (user: MastoUser, uri: string) => (await user.client.v1.timelines.home.list({ limit: 40 })).find((s) => s.uri === uri);

/** `acct`'s profile as `viewer`'s server shows it, once `holds` says it shows what is expected. */
const profileWhen = (viewer: MastoUser, id: string, holds: (a: mastodon.v1.Account) => boolean, what: string) =>
  eventually(
    async () => {
      const account = await viewer.client.v1.accounts.$select(id).fetch();
      return holds(account) ? account : undefined;
    },
    what,
    HOP_MS,
  );

export function visibilitySteps(pair: () => [Stack, Stack]) {
  describe('visibility and profiles', () => {
    // vera posts on the first server; fred (second) follows her, nick (second) does not; vera follows fred back.
    let vera: MastoUser | undefined;
    let fred: MastoUser | undefined;
    let nick: MastoUser | undefined;
    let veraThere: mastodon.v1.Account | undefined; // vera as the second server knows her
    let fredHere: mastodon.v1.Account | undefined; // fred as the first server knows him

    beforeAll(async () => {
      const [first, second] = pair();
      [vera, fred, nick] = await Promise.all([newUser(first.baseUrl, 'vvera'), newUser(second.baseUrl, 'vfred'), newUser(second.baseUrl, 'vnick')]);
      veraThere = await resolveAccount(fred, acctOn(vera, first));
      await followAcross(fred, veraThere);
      fredHere = await resolveAccount(vera, acctOn(fred, second));
      await followAcross(vera, fredHere);
    }, STEP_MS);

    it('a followers-only post reaches the follower, never a non-follower nor the public timeline', async () => {
      const [author, follower, stranger] = [need(vera, 'vera'), need(fred, 'fred'), need(nick, 'nick')];
      const hidden = await author.client.v1.statuses.create({ status: 'for my followers only', visibility: 'private' });
      const open = await author.client.v1.statuses.create({ status: 'for everyone, sent after the private one', visibility: 'public' });
      const seenHidden = await eventually(() => inHome(follower, hidden.uri), 'the followers-only post in the follower\'s home', HOP_MS);
      expect(seenHidden).toMatchObject({ visibility: 'private', content: expect.stringContaining('for my followers only') });
      // The public post was sent after the private one: once it is shown, everything sent has arrived.
      const seenOpen = await eventually(() => inHome(follower, open.uri), 'the public post in the follower\'s home', HOP_MS);
      const federated = await stranger.client.v1.timelines.public.list({ limit: 40 });
      expect(federated.map((s) => s.uri)).toContain(open.uri);
      expect(federated.map((s) => s.uri)).not.toContain(hidden.uri);
      await expect(stranger.client.v1.statuses.$select(seenHidden.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
      expect((await stranger.client.v1.statuses.$select(seenOpen.id).fetch()).uri).toBe(open.uri);
      expect(await inHome(stranger, hidden.uri)).toBeUndefined();
      const searched = await stranger.client.v2.search.list({ q: hidden.uri, type: 'statuses', resolve: true });
      expect(searched.statuses).toEqual([]);
      const listed = await stranger.client.v1.accounts.$select(need(veraThere, 'vera there').id).statuses.list({ limit: 40 });
      expect(listed.map((s) => s.uri)).not.toContain(hidden.uri);
      const listedForFollower = await follower.client.v1.accounts.$select(need(veraThere, 'vera there').id).statuses.list({ limit: 40 });
      expect(listedForFollower.map((s) => s.uri)).toContain(hidden.uri);
    }, STEP_MS);

    it('profile changes travel both ways (Update(Person)); a pinned post shows with them', async () => {
      const [first, second] = [need(vera, 'vera'), need(fred, 'fred')];
      const pinned = await first.client.v1.statuses.create({ status: 'pin me', visibility: 'public' });
      await first.client.v1.statuses.$select(pinned.id).pin();
      await first.client.v1.accounts.updateCredentials({
        displayName: 'Vera Visible',
        note: 'I pin things',
        fieldsAttributes: [{ name: 'Site', value: 'https://vera.example/' }],
      });
      const veraSeen = await profileWhen(second, need(veraThere, 'vera there').id, (a) => a.displayName === 'Vera Visible', 'vera\'s new profile on the second server');
      expect(veraSeen.note).toContain('I pin things');
      expect(veraSeen.fields.map((f) => [f.name, f.value.includes('https://vera.example/')])).toEqual([['Site', true]]);
      const pinsThere = async () => (await second.client.v1.accounts.$select(veraSeen.id).statuses.list({ pinned: true })).map((s) => s.uri);
      await eventually(async () => (await pinsThere()).join() === pinned.uri, 'vera\'s pinned post on the second server', HOP_MS);
      // Unpinning and pinning another travel on their own (Remove, Add), with no profile change.
      const next = await first.client.v1.statuses.create({ status: 'pin me instead', visibility: 'public' });
      await first.client.v1.statuses.$select(pinned.id).unpin();
      await first.client.v1.statuses.$select(next.id).pin();
      await eventually(async () => (await pinsThere()).join() === next.uri, 'the pin changed on the second server (Remove and Add)', HOP_MS);

      await second.client.v1.accounts.updateCredentials({ displayName: 'Fred Far', note: 'hello from the second server', fieldsAttributes: [{ name: 'Pronouns', value: 'he/him' }] });
      const fredSeen = await profileWhen(first, need(fredHere, 'fred here').id, (a) => a.displayName === 'Fred Far', 'fred\'s new profile on the first server');
      expect(fredSeen.note).toContain('hello from the second server');
      expect(fredSeen.fields.map((f) => [f.name, f.value])).toEqual([['Pronouns', 'he/him']]);
    }, STEP_MS);
  });
}
