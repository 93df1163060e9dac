// Sanctions on the streaming publish path (the fan-out and the notify worker publish; a stand-in for the
// API Gateway Management API records the frames): a suspended author's status reaches no home or public
// stream, and its notifications no notification stream; a silenced author's status reaches its followers'
// home streams but no public or hashtag stream.
import type { ServerResponse } from 'node:http';
import { updateAccount } from '../../lib/db/accounts';
import { notify } from '../../lib/notifications/notify';
import { fanOut } from '../../lib/timelines/fanout';
import { aFollow, aPostedStatus, aStoredStatus, aUser } from '../support/factories';
import { connectThroughHandler as listen, useManagementApi, type ManagementRequest } from '../support/management-api';

type Frame = { stream: string[]; event: string; payload?: string };
const frames: { connectionId: string; frame: Frame }[] = [];
useManagementApi((req: ManagementRequest, res: ServerResponse) => {
  if (req.method !== 'POST' || !req.connectionId) return res.writeHead(404).end();
  frames.push({ connectionId: req.connectionId, frame: JSON.parse(req.body.toString('utf8')) as Frame });
  res.writeHead(200).end();
});
const events = (connectionId: string, event: string) => frames.filter((f) => f.connectionId === connectionId && f.frame.event === event);

it("publishes a suspended author's status and notifications to no stream", async () => {
  const [author, follower] = await Promise.all([aUser(), aUser()]);
  await aFollow(follower.account, author.account);
  const tag = `st${Date.now()}`;
  const status = await aPostedStatus(author.account, { tags: [tag] });
  const [home, pub, hashtag] = [
    await listen(follower.token, { stream: 'user' }),
    await listen(undefined, { stream: 'public' }),
    await listen(undefined, { stream: 'hashtag', tag }),
  ];
  await updateAccount(author.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
  await fanOut(status.id);
  const followerStatus = await aStoredStatus(follower.account);
  await notify({ type: 'favourite', accountId: follower.account.id, fromAccountId: author.account.id, statusId: followerStatus.id });
  for (const conn of [home, pub, hashtag]) expect(events(conn, 'update')).toEqual([]);
  expect(events(home, 'notification')).toEqual([]);
});

it("publishes a silenced author's status to its followers' homes only, not to public or hashtag streams", async () => {
  const [author, follower] = await Promise.all([aUser(), aUser()]);
  await aFollow(follower.account, author.account);
  await updateAccount(author.account.id, { silencedAt: new Date().toISOString() });
  const tag = `sl${Date.now()}`;
  const status = await aPostedStatus(author.account, { tags: [tag] });
  const [home, pub, followerPub, hashtag] = [
    await listen(follower.token, { stream: 'user' }),
    await listen(undefined, { stream: 'public' }),
    await listen(follower.token, { stream: 'public' }),
    await listen(undefined, { stream: 'hashtag', tag }),
  ];
  await fanOut(status.id);
  expect(events(home, 'update')).toHaveLength(1);
  for (const conn of [pub, followerPub, hashtag]) expect(events(conn, 'update')).toEqual([]);
});
