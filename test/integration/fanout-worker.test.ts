import { handler as fanoutWorker } from '../../functions/workers/fanout';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import type { Status } from '../../lib/db/statuses';
import { query } from '../../lib/db/table';
import { timelineEntry } from '../../lib/db/timelines';
import { newId } from '../../lib/ids';
import { enqueue, registerInlineWorker, sqsEvent } from '../../lib/queue';
import { fanOut, fanOutDelete } from '../../lib/timelines/fanout';
import { aFollow, aPostedReblog, aPostedStatus, aUser } from '../support/factories';

const homeIds = async (owner: Account) => {
  const page = await query(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.homePartition(owner.id) }, ScanIndexForward: false },
    timelineEntry,
  );
  return page.items.map((e) => e.statusId);
};

const mention = (account: Account) => ({ id: account.id, username: account.username, acct: account.username, url: `https://social.example/@${account.username}` });

const deliver = async (status: Status) => {
  const res = await fanoutWorker(sqsEvent('fanout', [{ type: 'create', statusId: status.id }]));
  expect(res.batchItemFailures).toEqual([]);
};

describe('fan-out worker: create', () => {
  it('writes an entry for the author and every follower, following every page of followers', async () => {
    const author = (await aUser()).account;
    const followers = await Promise.all(Array.from({ length: 7 }, () => aUser()));
    for (const f of followers) await aFollow(f.account, author);
    const status = await aPostedStatus(author);
    const result = await fanOut(status.id, { pageSize: 3 });
    expect(result.written).toBe(8);
    for (const f of followers) expect(await homeIds(f.account)).toEqual([status.id]);
    expect(await homeIds(author)).toEqual([status.id]);
  });

  it('keeps reblogs out of the homes of followers who turned reblogs off, but not their statuses', async () => {
    const [booster, quiet, loud, original] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await aFollow(quiet.account, booster.account, { showReblogs: false });
    await aFollow(loud.account, booster.account);
    const post = await aPostedStatus(original.account);
    const reblog = await aPostedReblog(booster.account, post);
    await deliver(reblog);
    const own = await aPostedStatus(booster.account);
    await deliver(own);
    expect(await homeIds(quiet.account)).toEqual([own.id]);
    expect(await homeIds(loud.account)).toEqual([own.id, reblog.id]);
  });

  it('delivers private statuses to followers and to the local accounts they mention', async () => {
    const [author, follower, mentioned, bystander] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    const status = await aPostedStatus(author.account, { visibility: 'private', mentions: [mention(mentioned.account)] });
    await deliver(status);
    expect(await homeIds(follower.account)).toEqual([status.id]);
    expect(await homeIds(mentioned.account)).toEqual([status.id]);
    expect(await homeIds(bystander.account)).toEqual([]);
  });

  it('delivers direct statuses only to the author and the mentioned accounts, followers or not', async () => {
    const [author, follower, mentionedFollower, mentionedStranger] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    await aFollow(mentionedFollower.account, author.account);
    const status = await aPostedStatus(author.account, {
      visibility: 'direct',
      mentions: [mention(mentionedFollower.account), mention(mentionedStranger.account)],
    });
    await deliver(status);
    expect(await homeIds(follower.account)).toEqual([]);
    expect(await homeIds(mentionedFollower.account)).toEqual([status.id]);
    expect(await homeIds(mentionedStranger.account)).toEqual([status.id]);
    expect(await homeIds(author.account)).toEqual([status.id]);
  });

  it('leaves public statuses out of the homes of mentioned accounts that do not follow the author', async () => {
    const [author, mentioned] = await Promise.all([aUser(), aUser()]);
    const status = await aPostedStatus(author.account, { visibility: 'unlisted', mentions: [mention(mentioned.account)] });
    await deliver(status);
    expect(await homeIds(mentioned.account)).toEqual([]);
  });

  it('delivers a reply to a third account only to followers who follow that account too', async () => {
    const [author, other, followsBoth, followsAuthor] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await aFollow(followsBoth.account, author.account);
    await aFollow(followsBoth.account, other.account);
    await aFollow(followsAuthor.account, author.account);
    const parent = await aPostedStatus(other.account);
    const reply = await aPostedStatus(author.account, { inReplyToId: parent.id, inReplyToAccountId: other.account.id, conversationId: parent.id });
    await deliver(reply);
    const selfReply = await aPostedStatus(author.account, { inReplyToId: reply.id, inReplyToAccountId: author.account.id, conversationId: parent.id });
    await deliver(selfReply);
    expect(await homeIds(followsBoth.account)).toEqual([selfReply.id, reply.id]);
    expect(await homeIds(followsAuthor.account)).toEqual([selfReply.id]);
  });

  it('runs through the queue adapter as producers enqueue it', async () => {
    registerInlineWorker('fanout', fanoutWorker);
    const [author, follower] = await Promise.all([aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    const status = await aPostedStatus(author.account);
    await enqueue('fanout', { type: 'create', statusId: status.id });
    expect(await homeIds(follower.account)).toEqual([status.id]);
  });

  it('writes nothing for a status deleted before it ran', async () => {
    const [author, follower] = await Promise.all([aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    const result = await fanOut(newId());
    expect(result.written).toBe(0);
    expect(await homeIds(follower.account)).toEqual([]);
  });

  it.each([
    ['an unknown type', { type: 'update', statusId: '1' }],
    ['a non-numeric status id', { type: 'create', statusId: 'abc' }],
    ['a delete without its author', { type: 'delete', statusId: '1' }],
    ['a mention id of the wrong type', { type: 'delete', statusId: '1', accountId: '2', mentionIds: [3] }],
  ])('drops a malformed message (%s) without retrying it', async (_n, message) => {
    const res = await fanoutWorker(sqsEvent('fanout', [message]));
    expect(res.batchItemFailures).toEqual([]);
  });

  it('drops a message body that is not JSON', async () => {
    const event = sqsEvent('fanout', [{}]);
    event.Records[0]!.body = '{"type":';
    const res = await fanoutWorker(event);
    expect(res.batchItemFailures).toEqual([]);
  });
});

describe('fan-out worker: delete', () => {
  it('removes the status from the author\'s, every follower\'s and every mentioned account\'s home', async () => {
    const [author, mentioned, other] = await Promise.all([aUser(), aUser(), aUser()]);
    const followers = await Promise.all(Array.from({ length: 5 }, () => aUser()));
    for (const f of followers) await aFollow(f.account, author.account);
    const keep = await aPostedStatus(author.account, { id: newId(Date.now() - 5) });
    const gone = await aPostedStatus(author.account, { visibility: 'private', mentions: [mention(mentioned.account)] });
    await deliver(keep);
    await deliver(gone);
    const otherPost = await aPostedStatus(other.account);
    await aFollow(mentioned.account, other.account);
    await deliver(otherPost);
    expect(await homeIds(mentioned.account)).toEqual([otherPost.id, gone.id]);

    const result = await fanOutDelete(gone.id, author.account.id, [mentioned.account.id], { pageSize: 2 });
    expect(result.written).toBe(7);
    for (const f of followers) expect(await homeIds(f.account)).toEqual([keep.id]);
    expect(await homeIds(author.account)).toEqual([keep.id]);
    expect(await homeIds(mentioned.account)).toEqual([otherPost.id]);
  });

  it('removes an undone reblog through the queue message', async () => {
    const [booster, follower, poster] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, booster.account);
    const reblog = await aPostedReblog(booster.account, await aPostedStatus(poster.account));
    await deliver(reblog);
    expect(await homeIds(follower.account)).toEqual([reblog.id]);
    const res = await fanoutWorker(sqsEvent('fanout', [{ type: 'delete', statusId: reblog.id, accountId: booster.account.id, mentionIds: [] }]));
    expect(res.batchItemFailures).toEqual([]);
    expect(await homeIds(follower.account)).toEqual([]);
  });
});
