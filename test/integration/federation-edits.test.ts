// Edits across servers, both ways: Update(Note) received (lib/inbox/update_note.ts,
// through processActivity with stored remote actors) and what editing one of our
// statuses sends (lib/federation/send_edits.ts, through the real PUT endpoint and
// the fan-out worker, the deliver queue's messages recorded). Every bad Update is
// paired with its good twin, and must write nothing.
import type { SQSEvent } from 'aws-lambda';
import { handler as create } from '../../functions/statuses/create';
import { handler as history } from '../../functions/statuses/history';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as update } from '../../functions/statuses/update';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import { createFollow } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { notificationsPage } from '../../lib/db/notifications';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusEditsOf } from '../../lib/db/status_edits';
import { statusById, type Status } from '../../lib/db/statuses';
import { getItem } from '../../lib/db/table';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { processActivity } from '../../lib/inbox';
import { registerInlineWorker } from '../../lib/queue';
import { activity, aNote, collectDeliveries, type Doc, receive } from '../support/activities';
import { aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { storedItemCount } from '../support/items';
import { z } from 'zod';

const delivered = collectDeliveries();
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
type Remote = Account & { uri: string; followersUrl: string; inboxUrl: string; sharedInboxUrl: string };
let seq = 0;
async function aRemote(host: string): Promise<Remote> {
  const { account } = await aRemoteAccount({ domain: host, username: `e${Date.now().toString(36)}${(seq++).toString(36)}`, keyless: true });
  return account as Remote;
}


const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
/** A public Note of `author`, as its server renders it. */
const noteOf = (author: Remote, overrides: Doc = {}): Doc & { id: string } =>
  aNote(author, {
    published: minutesAgo(10),
    content: '<p>first words #old</p>',
    tag: [{ type: 'Hashtag', name: '#old', href: 'https://far.example/tags/old' }],
    attachment: [{ type: 'Document', mediaType: 'image/png', url: 'https://far.example/files/1.png', name: 'a cat' }],
    ...overrides,
  });
/** Stores `note` as its Create would. */
async function stored(author: Remote, note: Doc & { id: string }): Promise<Status> {
  expect(await receive(activity(author, 'Create', note))).toBe('applied');
  return (await statusById((await remoteStatusIdByUri(note.id))!, true))!;
}
/** The edited Note: new words, a new tag, the attachment described anew. */
const editedNote = (note: Doc & { id: string }, updated: string, overrides: Doc = {}): Doc & { id: string } => ({
  ...note,
  content: '<p>second words #new</p>',
  summary: 'now with a warning',
  tag: [{ type: 'Hashtag', name: '#new', href: 'https://far.example/tags/new' }],
  attachment: [{ type: 'Document', mediaType: 'image/png', url: 'https://far.example/files/1.png', name: 'a sleeping cat' }],
  updated,
  ...overrides,
});
const historyOf = async (id: string) => (await call(history, { path: `/api/v1/statuses/${id}/history`, pathParameters: { id } })).body as Doc[];
const shown = async (id: string) => (await call(showStatus, { path: `/api/v1/statuses/${id}`, pathParameters: { id } })).body as Doc;
const anyItem = z.record(z.unknown());

describe('Update(Note) received', () => {
  let alice: Remote;
  let bob: Remote;
  let mallory: Remote;
  let booster: UserFixture;
  beforeAll(async () => {
    [alice, bob, mallory, booster] = await Promise.all([aRemote('edits-a.example'), aRemote('edits-a.example'), aRemote('edits-m.example'), aUser()]);
  });

  it('applies a newer version: content, warning, tags, media descriptions, edited_at and a history of two; boosters are notified', async () => {
    const note = noteOf(alice);
    const status = await stored(alice, note);
    expect((await call(reblog, { method: 'POST', path: `/api/v1/statuses/${status.id}/reblog`, pathParameters: { id: status.id }, token: booster.token })).status).toBe(200);
    const updated = minutesAgo(1);

    expect(await receive(activity(alice, 'Update', editedNote(note, updated)))).toBe('applied');
    const now = await shown(status.id);
    expect(now).toMatchObject({ spoiler_text: 'now with a warning', sensitive: true, edited_at: updated, tags: [{ name: 'new' }] });
    expect(String(now.content)).toContain('second words');
    expect(now.media_attachments).toEqual([expect.objectContaining({ description: 'a sleeping cat' })]);
    expect(await getItem(keys.tagEntry('old', status.id), anyItem)).toBeUndefined();
    expect(await getItem(keys.tagEntry('new', status.id), anyItem)).toBeDefined();

    const versions = await historyOf(status.id);
    expect(versions).toHaveLength(2);
    expect(versions[0]).toMatchObject({ spoiler_text: '', media_attachments: [expect.objectContaining({ description: 'a cat' })] });
    expect(String(versions[0]!.content)).toContain('first words');
    expect(versions[1]).toMatchObject({ spoiler_text: 'now with a warning', created_at: updated, media_attachments: [expect.objectContaining({ description: 'a sleeping cat' })] });
    expect(await notificationsPage(booster.account.id, { limit: 40 }, { types: ['update'] })).toEqual([
      expect.objectContaining({ fromAccountId: alice.id, statusId: status.id }),
    ]);
  });

  it('ignores a version not newer than the one stored, an Update without `updated`, and one that changes nothing; each writes nothing', async () => {
    const note = noteOf(alice);
    const status = await stored(alice, note);
    const updated = minutesAgo(2);
    expect(await receive(activity(alice, 'Update', editedNote(note, updated)))).toBe('applied');

    const before = await storedItemCount();
    expect(await receive(activity(alice, 'Update', editedNote(note, minutesAgo(5), { content: '<p>older</p>' })))).toBe('ignored');
    expect(await receive(activity(alice, 'Update', editedNote(note, updated, { content: '<p>same instant</p>' })))).toBe('ignored');
    const { updated: _dropped, ...undated } = editedNote(note, updated, { content: '<p>undated</p>' });
    expect(await receive(activity(alice, 'Update', undated))).toBe('ignored');
    expect(await receive(activity(alice, 'Update', editedNote(note, minutesAgo(1))))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect((await statusById(status.id, true))?.editedAt).toBe(updated);
    expect(await statusEditsOf(status.id)).toHaveLength(2);

    // The good twin: newer, and different.
    expect(await receive(activity(alice, 'Update', editedNote(note, minutesAgo(1), { content: '<p>third words</p>' })))).toBe('applied');
    expect(await statusEditsOf(status.id)).toHaveLength(3);
  });

  it('writes nothing for a forged attributedTo, someone else\'s status, a status we lack, or one of ours', async () => {
    const note = noteOf(alice);
    const status = await stored(alice, note);
    const author = await aUser();
    const ours = apUrls.status(author.account.username, newId());
    const before = await storedItemCount();

    // Bob (same server) claims Alice's Note as his.
    expect(await receive(activity(bob, 'Update', editedNote(note, minutesAgo(1), { attributedTo: bob.uri })))).toBe('ignored');
    // Bob sends Alice's Note as hers: not his to update.
    expect(await receive(activity(bob, 'Update', editedNote(note, minutesAgo(1))))).toBe('ignored');
    // Mallory (another server) sends it under her own name: its id is not on her server.
    expect(await receive(activity(mallory, 'Update', editedNote(note, minutesAgo(1), { attributedTo: mallory.uri })))).toBe('ignored');
    // A Note we never stored: Mastodon ignores it too (no fetch, no Create).
    expect(await receive(activity(alice, 'Update', editedNote(noteOf(alice), minutesAgo(1))))).toBe('ignored');
    // One of our statuses.
    expect(await receive(activity(alice, 'Update', editedNote(noteOf(alice, { id: ours }), minutesAgo(1))))).toBe('ignored');
    expect(await storedItemCount()).toBe(before);
    expect(await statusById(status.id, true)).toMatchObject({ editedAt: null });

    // The good twin: Alice herself.
    expect(await receive(activity(alice, 'Update', editedNote(note, minutesAgo(1))))).toBe('applied');
  });

  it('applies an activity once: the same Update delivered again is a replay', async () => {
    const note = noteOf(alice);
    const status = await stored(alice, note);
    const sent = activity(alice, 'Update', editedNote(note, minutesAgo(1)));
    expect(await receive(sent)).toBe('applied');
    const before = await storedItemCount();
    expect(await receive(sent)).toBe('replayed');
    expect(await storedItemCount()).toBe(before);
    expect(await statusEditsOf(status.id)).toHaveLength(2);
  });
});

describe('a local edit sends Update(Note)', () => {
  let author: UserFixture;
  let follower: Remote;
  beforeAll(async () => {
    [author, follower] = await Promise.all([aUser(), aRemote('edits-f.example')]);
    const edge = { id: newId(), followerId: follower.id, followedId: author.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
    expect(await createFollow(edge, { followerInbox: follower.sharedInboxUrl })).toBe(true);
  });

  const post = async (form: Record<string, string>) => (await call(create, { method: 'POST', path: '/api/v1/statuses', token: author.token, form })).body as { id: string };
  const edit = (id: string, form: Record<string, string>) => call(update, { method: 'PUT', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token: author.token, form });

  it('to the same remote audience as its Create, the Note rendered anew with `updated`', async () => {
    const { id } = await post({ status: 'going out' });
    const creates = delivered.filter((d) => d.activity.type === 'Create');
    expect(creates.map((d) => d.inbox)).toEqual([follower.sharedInboxUrl]);
    delivered.length = 0;

    const res = await edit(id, { status: 'going out, edited' });
    expect(res.status).toBe(200);
    expect(delivered).toHaveLength(1);
    const [sent] = delivered;
    const noteId = apUrls.status(author.account.username, id);
    expect(sent).toMatchObject({ inbox: follower.sharedInboxUrl, signer: { accountId: author.account.id } });
    expect(sent!.activity).toMatchObject({
      type: 'Update',
      id: `${noteId}#updates/${Math.floor(Date.parse(res.body.edited_at) / 1000)}`,
      actor: apUrls.actor(author.account.username),
      to: [AS_PUBLIC],
      object: { id: noteId, type: 'Note', updated: res.body.edited_at, published: res.body.created_at },
    });
    expect(String((sent!.activity.object as Doc).content)).toContain('going out, edited');
  });

  it('sends nothing for a direct status that reaches no one elsewhere, nor for an edit that changes nothing', async () => {
    const { id: direct } = await post({ status: 'just me', visibility: 'direct' });
    delivered.length = 0;
    expect((await edit(direct, { status: 'just me, edited' })).status).toBe(200);
    expect(delivered).toEqual([]);

    // The good twin: a public one does go out, once, and an edit that changes nothing sends nothing.
    const { id } = await post({ status: 'public' });
    delivered.length = 0;
    expect((await edit(id, { status: 'public' })).status).toBe(200);
    expect(delivered).toEqual([]);
    expect((await edit(id, { status: 'public, edited' })).status).toBe(200);
    expect(delivered.map((d) => d.activity.type)).toEqual(['Update']);
  });
});
