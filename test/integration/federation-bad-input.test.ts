// The bad-input table of the inbox (issue 13): hostile activities another server
// may send, each driven through processActivity (lib/inbox) as the inbox worker
// runs it, each asserted to write NOTHING (every item of the table, compared
// before and after), and each paired with its good twin, the same activity made
// honest, which IS applied and does change the table — so that a row cannot pass
// by the handler doing nothing at all. The actors are stored remote accounts (the
// inbox endpoint verified the signature: `signer` is the activity's actor).
import { randomUUID } from 'node:crypto';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import type { Status } from '../../lib/db/statuses';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { processActivity, type Processed } from '../../lib/inbox';
import { registerInlineWorker } from '../../lib/queue';
import { activity, activityIdOf, aNote, type Doc, receive } from '../support/activities';
import { aRemoteAccount, aStoredPoll, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { scanTable } from '../support/items';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);
// What handlers send (Accept, poll Updates) and push notifications are not this suite's: recorded, not sent.
const sent: unknown[] = [];
for (const queue of ['deliver', 'push'] as const) {
  registerInlineWorker(queue, async (event) => {
    for (const r of event.Records) sent.push(JSON.parse(r.body));
    return { batchItemFailures: [] };
  });
}

type Remote = Account & { uri: string; followersUrl: string };

/** Every item of the test's table but rate-limit counters, in key order: what "nothing written" compares. */
async function tableDump(): Promise<string[]> {
  const items: string[] = [];
  await scanTable({}, (page) => {
    for (const item of page.Items ?? []) if (!String(item.PK).startsWith('RATE#')) items.push(JSON.stringify(item, Object.keys(item).sort()));
  });
  return items.sort();
}

const noteOf = (author: Remote, extra: Doc = {}): Doc & { id: string } =>
  aNote(author, { content: '<p>a note</p>', published: new Date(Date.now() - 60_000).toISOString(), ...extra });
const createOf = (actor: Remote, note: Doc) => activity(actor, 'Create', note, { to: note.to, cc: note.cc });

/** What every row works on: our account and its statuses, two remote actors on their own servers, a third server's account. */
type World = {
  bob: UserFixture;
  bobUri: string;
  publicStatus: Status;
  privateStatus: Status;
  openPoll: Status;
  closedPoll: Status;
  alice: Remote;
  mallory: Remote;
  carol: Remote;
  /** An actor no other row touches (mallory ends up blocking bob in one row's twin). */
  dave: Remote;
  /** Activities a row's `prepare` applied, for its hostile and honest Undo. */
  applied: Record<string, Doc>;
};
let w: World;

const statusUrl = (s: Status) => apUrls.status(w.bob.account.username, s.id);
const remote = async (domain: string) => (await aRemoteAccount({ domain, keyless: true })).account as Remote;

beforeAll(async () => {
  const bob = await aUser();
  const [publicStatus, privateStatus] = [await aStoredStatus(bob.account), await aStoredStatus(bob.account, { visibility: 'private' })];
  const openPoll = (await aStoredPoll(bob.account, { expiresAt: new Date(Date.now() + 86_400_000) })).status;
  const closedPoll = (await aStoredPoll(bob.account, { expiresAt: new Date(Date.now() - 60_000) })).status;
  w = {
    bob,
    bobUri: apUrls.actor(bob.account.username),
    publicStatus,
    privateStatus,
    openPoll,
    closedPoll,
    alice: await remote('alice-bad.example'),
    mallory: await remote('mallory-bad.example'),
    carol: await remote('carol-bad.example'),
    dave: await remote('dave-bad.example'),
    applied: {},
  };
});

type Row = {
  /** Something applied first, that the hostile activity and its twin then act on. */
  prepare?: () => Promise<void>;
  bad: () => Doc;
  /** refused: failed the checks before any handler; ignored: the handler found nothing to do; replayed: seen before. */
  badOutcome: Processed;
  good: () => Doc;
};

/** Applies `doc` (it must be) and keeps it under `name` for the row's Undo. */
async function applyAs(name: string, doc: Doc): Promise<void> {
  expect(await receive(doc)).toBe('applied');
  w.applied[name] = doc;
}

/** Undo by `actor` of the activity applied under `name`, embedded as peers send it. */
const undoOf = (actor: Remote, name: string) => activity(actor, 'Undo', w.applied[name]);

const alicesNote = { current: undefined as (Doc & { id: string }) | undefined };
const replayed = { current: undefined as Doc | undefined };

const rows: [string, Row][] = [
  [
    'Create of a Note attributed to someone else (forged attributedTo)',
    {
      bad: () => createOf(w.mallory, noteOf(w.mallory, { attributedTo: w.alice.uri })),
      badOutcome: 'ignored',
      good: () => createOf(w.mallory, noteOf(w.mallory)),
    },
  ],
  [
    'Update(Note) of another actor’s Note (forged attributedTo)',
    {
      prepare: async () => {
        alicesNote.current = noteOf(w.alice);
        expect(await receive(createOf(w.alice, alicesNote.current))).toBe('applied');
      },
      bad: () => activity(w.mallory, 'Update', { ...alicesNote.current, content: '<p>hacked</p>', updated: new Date().toISOString() }),
      badOutcome: 'ignored',
      good: () => activity(w.alice, 'Update', { ...alicesNote.current, content: '<p>edited</p>', updated: new Date().toISOString() }),
    },
  ],
  [
    'Like of an object that is not ours',
    {
      bad: () => activity(w.mallory, 'Like', `${w.carol.uri}/statuses/1`),
      badOutcome: 'ignored',
      good: () => activity(w.mallory, 'Like', statusUrl(w.publicStatus)),
    },
  ],
  [
    'Announce of a private status',
    {
      bad: () => activity(w.mallory, 'Announce', statusUrl(w.privateStatus), { to: [AS_PUBLIC], cc: [w.mallory.followersUrl], published: new Date().toISOString() }),
      badOutcome: 'ignored',
      good: () => activity(w.mallory, 'Announce', statusUrl(w.publicStatus), { to: [AS_PUBLIC], cc: [w.mallory.followersUrl], published: new Date().toISOString() }),
    },
  ],
  ...(['Like', 'Announce', 'Follow', 'Block'] as const).map((type): [string, Row] => [
    `Undo of someone else’s ${type}`,
    {
      prepare: async () => {
        const object = type === 'Like' || type === 'Announce' ? statusUrl(w.publicStatus) : w.bobUri;
        const extra = type === 'Announce' ? { to: [AS_PUBLIC], cc: [w.alice.followersUrl], published: new Date().toISOString() } : {};
        await applyAs(type, activity(w.alice, type, object, extra));
      },
      bad: () => undoOf(w.mallory, type),
      badOutcome: 'ignored',
      good: () => undoOf(w.alice, type),
    },
  ]),
  [
    'a poll vote after the poll closed',
    {
      bad: () => createOf(w.alice, noteOf(w.alice, { name: 'yes', content: undefined, inReplyTo: statusUrl(w.closedPoll), to: [w.bobUri], cc: [] })),
      badOutcome: 'ignored',
      good: () => createOf(w.alice, noteOf(w.alice, { name: 'yes', content: undefined, inReplyTo: statusUrl(w.openPoll), to: [w.bobUri], cc: [] })),
    },
  ],
  [
    'Block of an account not ours',
    {
      bad: () => activity(w.mallory, 'Block', w.carol.uri),
      badOutcome: 'ignored',
      good: () => activity(w.mallory, 'Block', w.bobUri),
    },
  ],
  [
    'Flag naming nothing of ours',
    {
      bad: () => activity(w.mallory, 'Flag', [w.carol.uri, `${w.carol.uri}/statuses/1`], { content: 'spam' }),
      badOutcome: 'ignored',
      good: () => activity(w.mallory, 'Flag', [w.bobUri, statusUrl(w.publicStatus)], { content: 'spam' }),
    },
  ],
  [
    'a replayed activity (the same id again)',
    {
      prepare: async () => {
        replayed.current = activity(w.dave, 'Like', statusUrl(w.openPoll));
        expect(await receive(replayed.current)).toBe('applied');
        // Undone under another id, so that only the replay's id stands between it and a second favourite.
        expect(await receive(activity(w.dave, 'Undo', replayed.current))).toBe('applied');
      },
      bad: () => replayed.current!,
      badOutcome: 'replayed',
      good: () => ({ ...replayed.current!, id: activityIdOf(w.dave) }),
    },
  ],
  [
    'an activity whose id is on another server than its actor',
    {
      bad: () => ({ ...activity(w.dave, 'Like', statusUrl(w.closedPoll)), id: `${w.carol.uri}#likes/${randomUUID()}` }),
      badOutcome: 'refused',
      good: () => activity(w.dave, 'Like', statusUrl(w.closedPoll)),
    },
  ],
];

describe('hostile activities write nothing; their honest twins are applied', () => {
  it.each(rows)('%s', async (_name, row) => {
    if (row.prepare) await row.prepare();
    const before = await tableDump();
    expect(await receive(row.bad())).toBe(row.badOutcome);
    expect(await tableDump()).toEqual(before);
    expect(await receive(row.good())).toBe('applied');
    expect(await tableDump()).not.toEqual(before);
  });
});
