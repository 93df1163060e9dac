// Measures the fan-out rate (home entries written per second) for an author
// with N followers against the emulators. N defaults to 1,000; set
// FANOUT_FOLLOWERS=10000 for the larger measurement.
import { followRecord } from '../../lib/db/follows';
import { keys } from '../../lib/db/keys';
import { batchWrite, query } from '../../lib/db/table';
import { timelineEntry } from '../../lib/db/timelines';
import { newId } from '../../lib/ids';
import { fanOut, fanOutDelete } from '../../lib/timelines/fanout';
import { aPostedStatus, aUser } from '../support/factories';

const N = Number(process.env.FANOUT_FOLLOWERS ?? 1000);

const homeCount = async (ownerId: string) =>
  (await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.homePartition(ownerId) } }, timelineEntry)).items.length;

describe(`fan-out rate for an author with ${N} followers`, () => {
  it('writes one home entry per follower and the author, and removes them all on delete', async () => {
    const author = (await aUser()).account;
    // Follower accounts need no profile for the fan-out: it reads only the edges.
    const base = Date.now() - N;
    const followerIds = Array.from({ length: N }, (_, i) => newId(base + i));
    const now = new Date().toISOString();
    await batchWrite(followerIds.map((followerId) => followRecord({ id: newId(), followerId, followedId: author.id, showReblogs: true, notify: false, createdAt: now })));
    const status = await aPostedStatus(author);

    const created = await fanOut(status.id);
    expect(created.written).toBe(N + 1);
    const rate = Math.round((created.written / Math.max(created.ms, 1)) * 1000);
    process.stderr.write(`fan-out: ${created.written} entries in ${created.ms} ms = ${rate} entries/s\n`);
    for (const id of [followerIds[0]!, followerIds[N - 1]!, author.id]) expect(await homeCount(id)).toBe(1);

    const removed = await fanOutDelete(status.id, author.id, []);
    expect(removed.written).toBe(N + 1);
    process.stderr.write(`fan-out delete: ${removed.written} entries in ${removed.ms} ms\n`);
    for (const id of [followerIds[0]!, followerIds[N - 1]!, author.id]) expect(await homeCount(id)).toBe(0);
  }, 600_000);
});
