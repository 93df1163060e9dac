// The fan-out reaches every follower of an author with many followers (several
// pages of the followers index) and removes every entry on delete. Its rate is
// measured by bench/fanout.ts, not here.
import { followRecord } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { batchWrite, query } from '../../lib/db/table';
import { timelineEntry } from '../../lib/db/timelines';
import { newId } from '../../lib/ids';
import { fanOut, fanOutDelete } from '../../lib/timelines/fanout';
import { aPostedStatus, aUser } from '../support/factories';

const N = Number(process.env.FANOUT_FOLLOWERS ?? 1000);

const homeCount = async (ownerId: string) =>
  (await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.homePartition(ownerId) } }, timelineEntry)).items.length;

describe(`fan-out to an author's ${N} followers`, () => {
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
    for (const id of [followerIds[0]!, followerIds[N - 1]!, author.id]) expect(await homeCount(id)).toBe(1);

    const removed = await fanOutDelete(status.id, author.id, []);
    expect(removed.written).toBe(N + 1);
    for (const id of [followerIds[0]!, followerIds[N - 1]!, author.id]) expect(await homeCount(id)).toBe(0);
  }, 600_000);
});
