// Edits across two servers of ours, through masto, both ways: a person edits a
// post that a follower on the other server has; the follower's server shows the
// new text, its edited_at and its history (both versions), and the author's own
// server answers the source the author edits from.
import type { mastodon } from 'masto';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { HOP_MS, STEP_MS, acctOn, followAcross, need, resolveAccount } from './pair';

/** One direction: `author` (first stack) edits a post `reader` (second stack, a follower) has. */
type Direction = { author: MastoUser; reader: MastoUser; authorStack: Stack };

/** The post in the reader's home, as the reader's server shows it, once `holds` says it shows what is expected. */
const seenWhen = (d: Direction, uri: string, holds: (s: mastodon.v1.Status) => boolean, what: string) =>
  eventually(
    async () => (await d.reader.client.v1.timelines.home.list({ limit: 40 })).find((s) => s.uri === uri && holds(s)),
    what,
    HOP_MS,
  );

const plain = (html: string) => html.replace(/<[^>]+>/g, '');

async function editAcross(d: Direction): Promise<void> {
  const post = await d.author.client.v1.statuses.create({ status: `before the edit, by ${d.author.me.username}`, visibility: 'public' });
  await seenWhen(d, post.uri, () => true, "the post in the follower's home");

  const edited = await d.author.client.v1.statuses.$select(post.id).update({ status: `after the edit, by ${d.author.me.username}`, spoilerText: 'edited' });
  expect(edited.editedAt).toEqual(expect.any(String));
  expect(await d.author.client.v1.statuses.$select(post.id).source.fetch()).toEqual({ id: post.id, text: `after the edit, by ${d.author.me.username}`, spoilerText: 'edited' });

  const seen = await seenWhen(d, post.uri, (s) => s.editedAt !== null, "the edit on the follower's server");
  expect(plain(seen.content)).toBe(`after the edit, by ${d.author.me.username}`);
  expect(seen).toMatchObject({ spoilerText: 'edited', sensitive: true, account: { acct: acctOn(d.author, d.authorStack) } });
  expect(Date.parse(need(seen.editedAt ?? undefined, 'edited_at'))).toBe(Date.parse(need(edited.editedAt ?? undefined, 'edited_at')));

  const versions = await d.reader.client.v1.statuses.$select(seen.id).history.list();
  expect(versions.map((v) => plain(v.content))).toEqual([`before the edit, by ${d.author.me.username}`, `after the edit, by ${d.author.me.username}`]);
  expect(versions.map((v) => v.spoilerText)).toEqual(['', 'edited']);
}

export function editsSteps(pair: () => [Stack, Stack]) {
  describe('edits', () => {
    // eda (first) and eli (second) each follow the other, and each edits a post the other has.
    let there: Direction | undefined; // eda's edit, seen on the second server
    let back: Direction | undefined; // eli's edit, seen on the first

    beforeAll(async () => {
      const [first, second] = pair();
      const [eda, eli] = await Promise.all([newUser(first.baseUrl, 'eeda'), newUser(second.baseUrl, 'eeli')]);
      await followAcross(eli, await resolveAccount(eli, acctOn(eda, first)));
      await followAcross(eda, await resolveAccount(eda, acctOn(eli, second)));
      there = { author: eda, reader: eli, authorStack: first };
      back = { author: eli, reader: eda, authorStack: second };
    }, STEP_MS);

    it('an edit on the first server reaches the follower on the second: new text, edited_at, two versions', async () => {
      await editAcross(need(there, 'the people of the first direction'));
    }, STEP_MS);

    it('and the other way round', async () => {
      await editAcross(need(back, 'the people of the second direction'));
    }, STEP_MS);
  });
}
