// The streaming publisher (lib/streaming/publish.ts) through the paths that use
// it: the fan-out (update, delete), the notify worker (notification) and the
// filter endpoints (filters_changed). Connections are opened with the real
// $connect handler; a small HTTP server stands in for the API Gateway
// Management API and records every frame posted to a connection.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { handler as message } from '../../functions/streaming/message';
import { dynamo, observeRequests } from '../../lib/aws';
import type { Account } from '../../lib/db/accounts';
import { connectionById, deleteConnection, onlineAccounts, saveConnection, subscribersOf } from '../../lib/db/connections';
import { addBookmark, addFavourite, muteConversation } from '../../lib/db/interactions';
import { createNotification, type Notification } from '../../lib/db/notifications';
import * as keys from '../../lib/db/keys';
import { recordDirectStatus } from '../../lib/conversations';
import { addFilter } from '../../lib/filters';
import { handler as createFilterHandler } from '../../functions/filters/create';
import { handler as deleteFilterHandler } from '../../functions/filters/delete';
import { handler as updateFilterHandler } from '../../functions/filters/update';
import { block, mute } from '../../lib/graph/blocks';
import { blockDomain } from '../../lib/graph/domain_blocks';
import { newId } from '../../lib/ids';
import { addAccounts, createList } from '../../lib/lists';
import { notify } from '../../lib/notifications/notify';
import { renderNotification } from '../../lib/render/notification';
import { renderStatus, renderStatuses } from '../../lib/render/status';
import { bindingFor, channels, type WebSocketEvent } from '../../lib/streaming/connections';
import { SEND_CONCURRENCY } from '../../lib/streaming/publish';
import { fanOut, fanOutDelete } from '../../lib/timelines/fanout';
import { call } from '../support/http';
import { aFollow, aMediaAttachment, aPostedReblog, aPostedStatus, aRemoteAccount, aStoredPoll, aUser, type UserFixture } from '../support/factories';
import { connectThroughHandler, useManagementApi, type ManagementRequest } from '../support/management-api';

// ---- a stand-in for the Management API ----

type Frame = { stream: string[]; event: string; payload?: string };
const frames: { connectionId: string; frame: Frame }[] = [];
/** Connection ids the stand-in answers 410 Gone for, as API Gateway does for a closed connection. */
const goneIds = new Set<string>();
/** When set, requests are held until `size` are pending (or `total` arrived), to observe the publisher's parallelism. */
let gate: { size: number; total: number; received: number; pending: (() => void)[] } | undefined;

function answer(req: ManagementRequest, res: ServerResponse) {
  const connectionId = req.connectionId;
  if (req.method !== 'POST' || !connectionId) return res.writeHead(404).end();
  if (goneIds.has(connectionId)) return res.writeHead(410, { 'Content-Type': 'application/json' }).end('{"message":"Gone"}');
  frames.push({ connectionId, frame: JSON.parse(req.body.toString('utf8')) as Frame });
  res.writeHead(200).end();
}

useManagementApi((req, res) => {
  if (!gate) return answer(req, res);
  const g = gate;
  g.received++;
  g.pending.push(() => answer(req, res));
  if (g.pending.length >= g.size || g.received === g.total) g.pending.splice(0).forEach((release) => release());
});

const framesOf = (connectionId: string, event?: string) =>
  frames.filter((f) => f.connectionId === connectionId && (!event || f.frame.event === event)).map((f) => f.frame);
const payloadsOf = (connectionId: string, event = 'update') => framesOf(connectionId, event).map((f) => JSON.parse(f.payload ?? 'null') as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any

/** Opens a connection through the real $connect handler. */
const listen = connectThroughHandler;

const messageEvent = (connectionId: string, body: string): WebSocketEvent => ({
  requestContext: { connectionId, routeKey: '$default', eventType: 'MESSAGE', requestId: randomUUID() },
  body,
  isBase64Encoded: false,
});

/** JSON as it travels: what a client parses out of a frame's payload. */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
/** A status as a page renders it (a timeline, a stream): a reblog's top-level flags are its own, where a reblog answered alone carries its original's. */
const onPage = async (status: Parameters<typeof renderStatuses>[0][number], viewer: Account) => (await renderStatuses([status], viewer))[0];

describe('update: the fan-out publishes each status to the streams that should see it', () => {
  it('renders a status once per receiver, each with their own flags, as the status renderer does', async () => {
    const [author, poster, fan, other] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    // The reblogged original has a poll; `fan` favourited, bookmarked, muted its conversation and voted.
    const { status: original } = await aStoredPoll(poster.account, { expiresAt: new Date(Date.now() + 3_600_000), voters: [fan.account] });
    await Promise.all([addFavourite(fan.account.id, original.id), addBookmark(fan.account.id, original.id), muteConversation(fan.account.id, original.conversationId)]);
    await Promise.all([aFollow(fan.account, author.account), aFollow(other.account, author.account)]);
    const reblog = await aPostedReblog(author.account, original);
    const own = await aPostedStatus(author.account, { text: 'my own', contentHtml: '<p>my own</p>' });
    const [fanConn, otherConn, authorConn] = await Promise.all([
      listen(fan.token, { stream: 'user' }),
      listen(other.token, { stream: 'user' }),
      listen(author.token, { stream: 'user' }),
    ]);

    await fanOut(reblog.id);
    await fanOut(own.id);

    for (const [conn, viewer] of [[fanConn, fan.account], [otherConn, other.account]] as [string, Account][]) {
      const got = framesOf(conn, 'update');
      expect(got).toEqual([{ stream: ['user'], event: 'update', payload: expect.any(String) }, { stream: ['user'], event: 'update', payload: expect.any(String) }]);
      expect(payloadsOf(conn)).toEqual([asJson(await onPage(reblog, viewer)), asJson(await renderStatus(own, viewer))]);
    }
    const [fansReblog] = payloadsOf(fanConn);
    expect(fansReblog!.reblog).toMatchObject({ favourited: true, bookmarked: true, muted: true, poll: { voted: true, own_votes: [0] } });
    expect(payloadsOf(otherConn)[0]!.reblog).toMatchObject({ favourited: false, bookmarked: false, muted: false, poll: { voted: false, own_votes: [] } });
    // The author sees their own status with `pinned`, as the REST API shows it.
    expect(payloadsOf(authorConn)).toEqual([asJson(await onPage(reblog, author.account)), asJson(await renderStatus(own, author.account))]);
    expect(payloadsOf(authorConn)[1]).toMatchObject({ pinned: false });
  });

  it('sends public statuses to public streams, with each listener\'s blocks and mutes applied', async () => {
    const [author, mentioned, blocker, muterOfMentioned, blockedByAuthor, plain] = await Promise.all([aUser(), aUser(), aUser(), aUser(), aUser(), aUser()]);
    await block(blocker.account, author.account.id);
    await mute(muterOfMentioned.account, mentioned.account.id, { notifications: true, duration: 0 });
    await block(author.account, blockedByAuthor.account.id);
    const mention = { id: mentioned.account.id, username: mentioned.account.username, acct: mentioned.account.username, url: 'https://social.example/@m' };
    const status = await aPostedStatus(author.account, { mentions: [mention] });
    const conns = {
      anonymous: await listen(undefined, { stream: 'public' }),
      local: await listen(undefined, { stream: 'public:local' }),
      plain: await listen(plain.token, { stream: 'public' }),
      blocker: await listen(blocker.token, { stream: 'public' }),
      muterOfMentioned: await listen(muterOfMentioned.token, { stream: 'public:local' }),
      blockedByAuthor: await listen(blockedByAuthor.token, { stream: 'public' }),
      media: await listen(undefined, { stream: 'public:media' }),
    };

    await fanOut(status.id);

    expect(framesOf(conns.anonymous)).toEqual([{ stream: ['public'], event: 'update', payload: expect.any(String) }]);
    expect(payloadsOf(conns.anonymous)).toEqual([asJson(await renderStatus(status, undefined))]);
    expect(framesOf(conns.local).map((f) => f.stream)).toEqual([['public:local']]);
    expect(payloadsOf(conns.plain)).toEqual([asJson(await renderStatus(status, plain.account))]);
    for (const hidden of [conns.blocker, conns.muterOfMentioned, conns.blockedByAuthor]) expect(framesOf(hidden)).toEqual([]);
    // No media: the media streams stay quiet.
    expect(framesOf(conns.media)).toEqual([]);
  });

  it.each([
    ['an unlisted status', { visibility: 'unlisted' as const }],
    ['a private status', { visibility: 'private' as const }],
    ['a reply to another account', { inReplyToId: newId(), inReplyToAccountId: newId() }],
  ])('keeps %s off public streams, as the public timeline does', async (_name, overrides) => {
    const author = await aUser();
    const status = await aPostedStatus(author.account, overrides);
    const conn = await listen(undefined, { stream: 'public' });
    await fanOut(status.id);
    expect(framesOf(conn)).toEqual([]);
  });

  it('shows each receiver a quote as the status renderer does: its blocks, mutes and domain blocks of the quoted authors, its flags on the quoted status', async () => {
    const [author, quotedAuthor, plain, blocker, muter, blockedByQuoted, domainBlocker] = await Promise.all([aUser(), aUser(), aUser(), aUser(), aUser(), aUser(), aUser()]);
    const domain = `quoted-${Date.now().toString(36)}.example`;
    const far = await aRemoteAccount({ domain });
    const quotedHere = await aPostedStatus(quotedAuthor.account, { quoteApprovalPolicy: 'public' });
    const quotedFar = await aPostedStatus(far.account, { uri: `${far.account.uri}/statuses/1`, quoteApprovalPolicy: 'public' });
    // Quoted in turn: the nested ShallowQuote is judged by the same rules (here, a domain the receiver blocks).
    const quotingFar = await aPostedStatus(quotedAuthor.account, { quote: { quotedStatusId: quotedFar.id, quotedAccountId: far.account.id, state: 'accepted' } });
    const privateOwn = await aPostedStatus(author.account, { visibility: 'private' });
    const accepted = (quoted: { id: string; accountId: string }) => ({ quote: { quotedStatusId: quoted.id, quotedAccountId: quoted.accountId, state: 'accepted' as const } });
    const [ofHere, ofFar, ofQuoting, ofPrivate] = [
      await aPostedStatus(author.account, accepted(quotedHere)),
      await aPostedStatus(author.account, accepted(quotedFar)),
      await aPostedStatus(author.account, accepted(quotingFar)),
      // A quote of its author's own private status: nobody signed out may see it, its followers may.
      await aPostedStatus(author.account, { ...accepted(privateOwn), visibility: 'private' }),
    ];
    const receivers = { plain, blocker, muter, blockedByQuoted, domainBlocker };
    await Promise.all(Object.values(receivers).map((r) => aFollow(r.account, author.account)));
    await block(blocker.account, quotedAuthor.account.id);
    await mute(muter.account, quotedAuthor.account.id, { notifications: true, duration: 0 });
    await block(quotedAuthor.account, blockedByQuoted.account.id);
    await blockDomain(domainBlocker.account, domain);
    await addFavourite(plain.account.id, quotedHere.id);
    const conns = Object.fromEntries(await Promise.all(Object.entries(receivers).map(async ([name, r]) => [name, await listen(r.token, { stream: 'user' })] as const)));

    for (const s of [ofHere, ofFar, ofQuoting, ofPrivate]) await fanOut(s.id);

    for (const [name, r] of Object.entries(receivers)) {
      const expected = await Promise.all([ofHere, ofFar, ofQuoting, ofPrivate].map(async (s) => asJson(await renderStatus(s, r.account))));
      expect([name, payloadsOf(conns[name]!)]).toEqual([name, expected]);
    }
    const [plainHere, plainFar, plainQuoting, plainPrivate] = payloadsOf(conns.plain!);
    expect(plainHere!.quote).toMatchObject({ state: 'accepted', quoted_status: { id: quotedHere.id, favourited: true, filtered: [] } });
    expect(plainFar!.quote).toMatchObject({ state: 'accepted', quoted_status: { id: quotedFar.id } });
    expect(plainQuoting!.quote.quoted_status.quote).toEqual({ state: 'accepted', quoted_status_id: quotedFar.id });
    expect(plainPrivate!.quote).toMatchObject({ state: 'accepted', quoted_status: { id: privateOwn.id, visibility: 'private' } });
    expect(payloadsOf(conns.blocker!)[0]!.quote).toMatchObject({ state: 'blocked_account', quoted_status: { id: quotedHere.id, favourited: false } });
    expect(payloadsOf(conns.muter!)[0]!.quote).toMatchObject({ state: 'muted_account', quoted_status: { id: quotedHere.id } });
    expect(payloadsOf(conns.blockedByQuoted!)[0]!.quote).toEqual({ state: 'unauthorized', quoted_status: null });
    const [, domainFar, domainQuoting] = payloadsOf(conns.domainBlocker!);
    expect(domainFar!.quote).toMatchObject({ state: 'blocked_domain', quoted_status: { id: quotedFar.id } });
    expect(domainQuoting!.quote).toMatchObject({ state: 'accepted', quoted_status: { id: quotingFar.id, quote: { state: 'blocked_domain', quoted_status_id: quotedFar.id } } });

    // Under a reblog the page reads no further than the quoted status: a nested quote's domain is still asked.
    const elsewhere = await aUser();
    const reblog = await aPostedReblog(author.account, await aPostedStatus(elsewhere.account, accepted(quotingFar)));
    const onPageNested = (await onPage(reblog, domainBlocker.account))!;
    expect((onPageNested.reblog as Record<string, any>).quote.quoted_status.quote).toEqual({ state: 'blocked_domain', quoted_status_id: quotedFar.id }); // eslint-disable-line @typescript-eslint/no-explicit-any
    await fanOut(reblog.id);
    expect(payloadsOf(conns.domainBlocker!)[4]).toEqual(asJson(onPageNested));
  });

  it('sends statuses with media to the media streams', async () => {
    const author = await aUser();
    const media = await aMediaAttachment(author.account);
    const status = await aPostedStatus(author.account, { mediaIds: [media.id] });
    const [all, local] = [await listen(undefined, { stream: 'public:media' }), await listen(undefined, { stream: 'public:local:media' })];
    await fanOut(status.id);
    expect(framesOf(all).map((f) => f.stream)).toEqual([['public:media']]);
    expect(framesOf(local).map((f) => f.stream)).toEqual([['public:local:media']]);
    expect(payloadsOf(all)[0]!.media_attachments).toHaveLength(1);
  });

  it('sends tagged statuses to their hashtag streams, framed with the tag as the listener asked for it', async () => {
    const author = await aUser();
    const tag = `cats${Date.now().toString(36)}`;
    const status = await aPostedStatus(author.account, { tags: [tag] });
    const [upper, local, other] = [
      await listen(undefined, { stream: 'hashtag', tag: tag.toUpperCase() }),
      await listen(undefined, { stream: 'hashtag:local', tag }),
      await listen(undefined, { stream: 'hashtag', tag: `${tag}x` }),
    ];
    await fanOut(status.id);
    expect(framesOf(upper).map((f) => f.stream)).toEqual([['hashtag', tag.toUpperCase()]]);
    expect(framesOf(local).map((f) => f.stream)).toEqual([['hashtag:local', tag]]);
    expect(framesOf(other)).toEqual([]);
  });

  it('drops a status a receiver\'s irreversible home filter matches, and leaves other filters to the client', async () => {
    const [author, strict, lenient] = await Promise.all([aUser(), aUser(), aUser()]);
    await Promise.all([aFollow(strict.account, author.account), aFollow(lenient.account, author.account)]);
    await addFilter(strict.account.id, { phrase: 'spoiler', context: ['home', 'public'], irreversible: true });
    await addFilter(lenient.account.id, { phrase: 'spoiler', context: ['home'], irreversible: false });
    await addFilter(author.account.id, { phrase: 'spoiler', context: ['home'], irreversible: true });
    const status = await aPostedStatus(author.account, { text: 'a big Spoiler here', contentHtml: '<p>a big Spoiler here</p>' });
    const strictHome = await listen(strict.token, { stream: 'user' });
    const strictPublic = await listen(strict.token, { stream: 'public' });
    const lenientHome = await listen(lenient.token, { stream: 'user' });
    const authorHome = await listen(author.token, { stream: 'user' });

    await fanOut(status.id);

    expect(framesOf(strictHome, 'update')).toEqual([]);
    // A hide filter of the public context keeps it off that reader's public stream too (Mastodon 4's streaming server).
    expect(payloadsOf(strictPublic)).toEqual([]);
    // A warn filter is the client's to apply: the status comes, marked `filtered` as the home timeline marks it.
    const [lenientPayload] = payloadsOf(lenientHome);
    expect(lenientPayload).toEqual(asJson(await renderStatus(status, lenient.account, { context: 'home' })));
    expect(lenientPayload).toMatchObject({ filtered: [{ keyword_matches: ['Spoiler'], filter: { filter_action: 'warn' } }] });
    // One's own statuses are never filtered.
    expect(payloadsOf(authorHome).map((s) => s.id)).toEqual([status.id]);
  });

  it('sends a status to the lists it entered, on the owner\'s list stream only', async () => {
    const [author, owner, guesser] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, author.account);
    const list = await createList(owner.account, { title: 'friends' });
    await addAccounts(owner.account, list.id, [author.account.id]);
    const status = await aPostedStatus(author.account);
    const ownerConn = await listen(owner.token, { stream: 'list', list: list.id });
    const guesserConn = await listen(guesser.token, { stream: 'list', list: list.id });

    await fanOut(status.id);

    expect(framesOf(ownerConn).map((f) => f.stream)).toEqual([['list', list.id]]);
    expect(payloadsOf(ownerConn)).toEqual([asJson(await renderStatus(status, owner.account))]);
    expect(framesOf(guesserConn)).toEqual([]);
  });

  it('keeps a status off a list stream when the owner\'s irreversible home filter matches it', async () => {
    const [author, owner] = await Promise.all([aUser(), aUser()]);
    await aFollow(owner.account, author.account);
    const list = await createList(owner.account, { title: 'strict' });
    await addAccounts(owner.account, list.id, [author.account.id]);
    await addFilter(owner.account.id, { phrase: 'spoiler', context: ['home'], irreversible: true });
    const conn = await listen(owner.token, { stream: 'list', list: list.id });
    const spoiler = await aPostedStatus(author.account, { text: 'spoiler inside' });
    const plain = await aPostedStatus(author.account, { text: 'nothing to hide' });
    await fanOut(spoiler.id);
    await fanOut(plain.id);
    expect(payloadsOf(conn).map((s) => s.id)).toEqual([plain.id]);
  });

  it('sends a direct status to its recipients\' direct and user streams, and nowhere else', async () => {
    const [author, recipient, follower] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    const mention = { id: recipient.account.id, username: recipient.account.username, acct: recipient.account.username, url: 'https://social.example/@r' };
    const status = await aPostedStatus(author.account, { visibility: 'direct', mentions: [mention] });
    const direct = await listen(recipient.token, { stream: 'direct' });
    const user = await listen(recipient.token, { stream: 'user' });
    const followerConn = await listen(follower.token, { stream: 'user' });
    const followerDirect = await listen(follower.token, { stream: 'direct' });

    await recordDirectStatus(status);
    await fanOut(status.id);

    // The direct stream carries the recipient's conversation, as Mastodon's `conversation` event; the user stream the status.
    expect(framesOf(direct).map((f) => [f.stream, f.event])).toEqual([[['direct'], 'conversation']]);
    expect(payloadsOf(direct, 'conversation')).toEqual([
      expect.objectContaining({ id: status.conversationId, unread: true, accounts: [expect.objectContaining({ id: author.account.id })], last_status: expect.objectContaining({ id: status.id }) }),
    ]);
    expect(framesOf(user).map((f) => [f.stream, f.event])).toEqual([[['user'], 'update']]);
    expect([...framesOf(followerConn), ...framesOf(followerDirect)]).toEqual([]);
  });

  it('finds the listening recipients in the online index: no read of any follower\'s channel', async () => {
    const author = await aUser();
    const offline = await Promise.all(Array.from({ length: 12 }, () => aUser()));
    const online = await aUser();
    await Promise.all([...offline, online].map((f) => aFollow(f.account, author.account)));
    const conn = await listen(online.token, { stream: 'user' });
    const status = await aPostedStatus(author.account);

    // Every partition the fan-out reads, as sent to DynamoDB.
    const read: string[] = [];
    const stopSpying = dynamo().observe((_op, given) => {
      const input = given as { KeyConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> };
      if (input.KeyConditionExpression) read.push(String(input.ExpressionAttributeValues?.[':p'] ?? input.ExpressionAttributeValues?.[':pk']));
    });
    try {
      await fanOut(status.id);
    } finally {
      stopSpying();
    }

    expect(framesOf(conn).map((f) => f.event)).toEqual(['update']);
    // Only the public channels' shards are read; the listening follower was found in the online shards, each read once.
    const channelReads = read.filter((pk) => pk.startsWith('CHANNEL#'));
    expect(new Set(channelReads)).toEqual(new Set([...keys.channelPartitions('timeline:public'), ...keys.channelPartitions('timeline:public:local')]));
    for (const f of offline) expect(read.some((pk) => pk.includes(f.account.id))).toBe(false);
    const onlineReads = read.filter((pk) => pk.startsWith('ONLINE'));
    expect(onlineReads.sort()).toEqual(Array.from({ length: keys.STREAM_SHARDS }, (_, i) => keys.onlineShardPartition(i)).sort());
  });

  it('follows subscriptions made and dropped after connecting', async () => {
    const [author, reader] = await Promise.all([aUser(), aUser()]);
    await aFollow(reader.account, author.account);
    const list = await createList(reader.account, { title: 'later' });
    await addAccounts(reader.account, list.id, [author.account.id]);
    const conn = await listen(reader.token, {});
    const say = async (body: unknown) => expect((await message(messageEvent(conn, JSON.stringify(body)))).statusCode).toBe(200);

    await say({ type: 'subscribe', stream: 'user' });
    await say({ type: 'subscribe', stream: 'list', list: list.id });
    const first = await aPostedStatus(author.account);
    await fanOut(first.id);
    expect(framesOf(conn, 'update').map((f) => [f.stream, JSON.parse(f.payload!).id])).toEqual([[['user'], first.id], [['list', list.id], first.id]]);

    await say({ type: 'unsubscribe', stream: 'user' });
    const second = await aPostedStatus(author.account);
    await fanOut(second.id);
    expect(framesOf(conn, 'update').map((f) => f.stream)).toEqual([['user'], ['list', list.id], ['list', list.id]]);
  });
});

describe('delivery', () => {
  it('forgets a connection that answers 410 Gone, with its subscriptions, and still delivers to the others', async () => {
    const [author, leaving, staying] = await Promise.all([aUser(), aUser(), aUser()]);
    await Promise.all([aFollow(leaving.account, author.account), aFollow(staying.account, author.account)]);
    const gone = await listen(leaving.token, { stream: 'user' });
    const kept = await listen(staying.token, { stream: 'user' });
    goneIds.add(gone);
    expect(await onlineAccounts()).toContain(leaving.account.id);

    await fanOut((await aPostedStatus(author.account)).id);

    expect(framesOf(kept).map((f) => f.event)).toEqual(['update']);
    expect(await connectionById(gone)).toBeUndefined();
    for (const channel of [channels.home(leaving.account.id), channels.notifications(leaving.account.id)]) {
      expect((await subscribersOf(channel)).map((s) => s.connectionId)).not.toContain(gone);
    }
    expect(await onlineAccounts()).not.toContain(leaving.account.id);
    expect(await connectionById(kept)).toBeDefined();
  });

  it('removes a subscription that answers 410 Gone even when its connection item is already gone', async () => {
    const author = await aUser();
    const orphan = `orphan${randomUUID().slice(0, 8)}=`;
    // A subscription left behind (its connection item expired): written as $connect writes it, then the connection removed.
    const binding = bindingFor({ stream: 'public' }, { accountId: null, scopes: [] });
    await saveConnection({ connectionId: orphan, accountId: null, tokenId: null, scopes: [] }, binding);
    await deleteConnection(orphan);
    goneIds.add(orphan);
    await fanOut((await aPostedStatus(author.account)).id);
    expect((await subscribersOf('timeline:public')).map((s) => s.connectionId)).not.toContain(orphan);
  });

  it('forgets the online entry of a gone connection whose connection item expired first', async () => {
    const [author, reader] = await Promise.all([aUser(), aUser()]);
    await aFollow(reader.account, author.account);
    const conn = await listen(reader.token, { stream: 'user' });
    await deleteConnection(conn);
    goneIds.add(conn);
    expect(await onlineAccounts()).toContain(reader.account.id);
    await fanOut((await aPostedStatus(author.account)).id);
    expect(await onlineAccounts()).not.toContain(reader.account.id);
    expect((await subscribersOf(channels.home(reader.account.id))).map((s) => s.connectionId)).not.toContain(conn);
  });

  it(`posts to many connections in parallel, at most ${SEND_CONCURRENCY} at a time`, async () => {
    const author = await aUser();
    const conns = await Promise.all(Array.from({ length: 2 * SEND_CONCURRENCY + 5 }, () => listen(undefined, { stream: 'public:local' })));
    const status = await aPostedStatus(author.account);
    // Every public:local listener in this file receives the status: the gate counts them all.
    const listeners = (await subscribersOf('timeline:public:local')).length + (await subscribersOf('timeline:public')).length;
    // The stand-in answers only once SEND_CONCURRENCY requests wait (a publisher posting one at a time would stall
    // here); the client side counts the requests in flight.
    gate = { size: SEND_CONCURRENCY, total: listeners, received: 0, pending: [] };
    let inFlight = 0;
    let most = 0;
    const stopCounting = observeRequests((req) => {
      if (req.service !== 'execute-api') return;
      most = Math.max(most, ++inFlight);
      return () => inFlight--;
    });
    try {
      await fanOut(status.id);
    } finally {
      stopCounting();
      const g = gate;
      gate = undefined;
      g.pending.splice(0).forEach((release) => release());
    }
    expect(most).toBe(SEND_CONCURRENCY);
    for (const conn of conns) expect(framesOf(conn).map((f) => f.event)).toEqual(['update']);
  });
});

describe('notification', () => {
  const mentionOf = (to: UserFixture) => ({ id: to.account.id, username: to.account.username, acct: to.account.username, url: 'https://social.example/@x' });

  it('streams a new notification to the recipient\'s user and user:notification streams, rendered for them', async () => {
    const [recipient, actor] = await Promise.all([aUser(), aUser()]);
    const statusesOnly = await aUser({ scopes: ['read:statuses'] });
    const user = await listen(recipient.token, { stream: 'user' });
    const onlyNotifications = await listen(recipient.token, { stream: 'user:notification' });
    const publicOnly = await listen(recipient.token, { stream: 'public:local' });
    const noScope = await listen(statusesOnly.token, { stream: 'user' });
    const status = await aPostedStatus(actor.account, { mentions: [mentionOf(recipient)] });

    expect(await notify({ type: 'mention', accountId: recipient.account.id, fromAccountId: actor.account.id, statusId: status.id })).toBe('created');
    // Someone else's notification reaches none of them.
    await notify({ type: 'follow', accountId: statusesOnly.account.id, fromAccountId: actor.account.id });

    const [frame] = framesOf(user, 'notification');
    expect(framesOf(user, 'notification')).toEqual([{ stream: ['user'], event: 'notification', payload: expect.any(String) }]);
    const payload = JSON.parse(frame!.payload!) as { id: string; created_at: string };
    const stored: Notification = { id: payload.id, type: 'mention', accountId: recipient.account.id, fromAccountId: actor.account.id, statusId: status.id, createdAt: payload.created_at };
    expect(payload).toEqual(asJson(await renderNotification(stored, recipient.account)));
    expect(framesOf(onlyNotifications, 'notification').map((f) => f.stream)).toEqual([['user:notification']]);
    expect(framesOf(publicOnly, 'notification')).toEqual([]);
    // A read:statuses token's user stream carries no notifications (and this one belongs to someone else anyway).
    expect(framesOf(noScope, 'notification')).toEqual([]);
  });

  it('does not stream a mention that the recipient\'s irreversible notification filter matches; other kinds still stream', async () => {
    const [recipient, actor] = await Promise.all([aUser(), aUser()]);
    await addFilter(recipient.account.id, { phrase: 'buy now', context: ['notifications'], irreversible: true });
    const user = await listen(recipient.token, { stream: 'user' });
    const spam = await aPostedStatus(actor.account, { text: 'BUY NOW cheap', mentions: [mentionOf(recipient)] });
    const fine = await aPostedStatus(actor.account, { text: 'hello there', mentions: [mentionOf(recipient)] });

    await notify({ type: 'mention', accountId: recipient.account.id, fromAccountId: actor.account.id, statusId: spam.id });
    await notify({ type: 'mention', accountId: recipient.account.id, fromAccountId: actor.account.id, statusId: fine.id });
    await notify({ type: 'favourite', accountId: recipient.account.id, fromAccountId: actor.account.id, statusId: (await aPostedStatus(recipient.account, { text: 'buy now' })).id });

    const got = framesOf(user, 'notification').map((f) => JSON.parse(f.payload!) as { type: string; status: { id: string } });
    expect(got.map((n) => [n.type, n.status.id])).toEqual([['mention', fine.id], ['favourite', expect.any(String)]]);
  });

  it('streams nothing for a notification that was not created', async () => {
    const [recipient, actor] = await Promise.all([aUser(), aUser()]);
    await mute(recipient.account, actor.account.id, { notifications: true, duration: 0 });
    const user = await listen(recipient.token, { stream: 'user' });
    expect(await notify({ type: 'follow', accountId: recipient.account.id, fromAccountId: actor.account.id })).toBe('hidden');
    // A duplicate is not streamed twice.
    const other = await aUser();
    const n: Notification = { id: newId(), type: 'follow', accountId: other.account.id, fromAccountId: actor.account.id, statusId: null, createdAt: new Date().toISOString() };
    await createNotification(n);
    const otherConn = await listen(other.token, { stream: 'user' });
    expect(await notify({ type: 'follow', accountId: other.account.id, fromAccountId: actor.account.id })).toBe('duplicate');
    expect([...framesOf(user), ...framesOf(otherConn)]).toEqual([]);
  });
});

describe('filters_changed', () => {
  it('tells the owner\'s user streams, without a payload, whenever a filter is added, changed or removed', async () => {
    const [owner, someoneElse] = await Promise.all([aUser(), aUser()]);
    const user = await listen(owner.token, { stream: 'user' });
    const notifications = await listen(owner.token, { stream: 'user:notification' });
    const other = await listen(someoneElse.token, { stream: 'user' });

    // Through the endpoints, which publish once the filter is written.
    const created = await call(createFilterHandler, { method: 'POST', path: '/api/v1/filters', token: owner.token, json: { phrase: 'x', context: ['home'] } });
    expect(created.status).toBe(200);
    const id = (created.body as { id: string }).id;
    const path = `/api/v1/filters/${id}`;
    expect((await call(updateFilterHandler, { method: 'PUT', path, pathParameters: { id }, token: owner.token, json: { phrase: 'y' } })).status).toBe(200);
    expect((await call(deleteFilterHandler, { method: 'DELETE', path, pathParameters: { id }, token: owner.token })).status).toBe(200);

    expect(framesOf(user)).toEqual(Array.from({ length: 3 }, () => ({ stream: ['user'], event: 'filters_changed' })));
    expect(framesOf(notifications)).toEqual([]);
    expect(framesOf(other)).toEqual([]);
  });
});

describe('delete', () => {
  it('sends the id to the streams of everyone whose home held it and to the public streams', async () => {
    const [author, follower, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
    const status = await aPostedStatus(author.account);
    const home = await listen(follower.token, { stream: 'user' });
    const strangerHome = await listen(stranger.token, { stream: 'user' });
    const pub = await listen(undefined, { stream: 'public' });

    await fanOutDelete(status.id, author.account.id, []);

    expect(framesOf(home, 'delete')).toEqual([{ stream: ['user'], event: 'delete', payload: status.id }]);
    expect(framesOf(pub, 'delete')).toEqual([{ stream: ['public'], event: 'delete', payload: status.id }]);
    expect(framesOf(strangerHome)).toEqual([]);
  });

  it('with what the status was, reaches its hashtag streams and keeps a non-public one off public streams', async () => {
    const author = await aUser();
    const tag = `del${Date.now().toString(36)}`;
    const tagged = await aPostedStatus(author.account, { tags: [tag] });
    const secret = await aPostedStatus(author.account, { visibility: 'private' });
    const hashtag = await listen(undefined, { stream: 'hashtag', tag });
    const pub = await listen(undefined, { stream: 'public' });

    await fanOutDelete(tagged.id, author.account.id, [], { deleted: { visibility: 'public', tags: [tag], hasMedia: false } });
    await fanOutDelete(secret.id, author.account.id, [], { deleted: { visibility: 'private', tags: [], hasMedia: false } });

    expect(framesOf(hashtag)).toEqual([{ stream: ['hashtag', tag], event: 'delete', payload: tagged.id }]);
    expect(framesOf(pub).map((f) => f.payload)).toEqual([tagged.id]);
  });

  it('reaches the list streams of the lists containing the author, on their owner\'s stream only', async () => {
    const [author, owner, guesser] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(owner.account, author.account);
    const list = await createList(owner.account, { title: 'friends' });
    await addAccounts(owner.account, list.id, [author.account.id]);
    const status = await aPostedStatus(author.account);
    const ownerConn = await listen(owner.token, { stream: 'list', list: list.id });
    const guesserConn = await listen(guesser.token, { stream: 'list', list: list.id });
    await fanOutDelete(status.id, author.account.id, [], { deleted: { visibility: 'public', tags: [], hasMedia: false } });
    expect(framesOf(ownerConn)).toEqual([{ stream: ['list', list.id], event: 'delete', payload: status.id }]);
    expect(framesOf(guesserConn)).toEqual([]);
  });

  it('reaches the direct streams of a direct status\'s recipients', async () => {
    const [author, recipient] = await Promise.all([aUser(), aUser()]);
    const status = await aPostedStatus(author.account, { visibility: 'direct' });
    const direct = await listen(recipient.token, { stream: 'direct' });
    await fanOutDelete(status.id, author.account.id, [recipient.account.id], { deleted: { visibility: 'direct', tags: [], hasMedia: false } });
    expect(framesOf(direct)).toEqual([{ stream: ['direct'], event: 'delete', payload: status.id }]);
  });
});
