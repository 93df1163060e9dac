import { handler as create } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { dynamo } from '../../lib/aws';
import { accountById } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { mediaById } from '../../lib/db/media';
import { pollById } from '../../lib/db/polls';
import { statusById } from '../../lib/db/statuses';
import { getItem } from '../../lib/db/table';
import { registerInlineWorker, type QueueName } from '../../lib/queue';
import { z } from 'zod';
import { call } from '../support/http';
import { aFollow, aMediaAttachment, anAppToken, aStoredStatus, aUser } from '../support/factories';

const sent: { queue: QueueName; body: Record<string, unknown> }[] = [];
const recording = (queue: QueueName, worker: typeof fanoutWorker) =>
  registerInlineWorker(queue, async (event) => {
    for (const r of event.Records) sent.push({ queue, body: JSON.parse(r.body) });
    return worker(event);
  });
recording('fanout', fanoutWorker);
recording('notify', notifyWorker);
beforeEach(() => {
  sent.length = 0;
});

const post = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(create, { method: 'POST', path: '/api/v1/statuses', json: body, token, headers });
const postForm = (token: string, form: Record<string, string | string[]>) => call(create, { method: 'POST', path: '/api/v1/statuses', form, token });

/** Items of kinds a post writes (statuses, polls, home/public entries, replies, idempotency keys). */
async function writtenCount(): Promise<number> {
  const out = await dynamo().scan({
      TableName: process.env.TABLE_NAME!,
      FilterExpression: 'begins_with(PK, :s) OR begins_with(PK, :p) OR begins_with(PK, :h) OR begins_with(PK, :pub) OR begins_with(PK, :r) OR begins_with(PK, :i) OR begins_with(PK, :t)',
      ExpressionAttributeValues: { ':s': 'STATUS#', ':p': 'POLL', ':h': 'HOME#', ':pub': 'PUBLIC#', ':r': 'REPLIES#', ':i': 'IDEMPOTENCY#', ':t': 'TAG#' },
      Select: 'COUNT',
    });
  return out.Count ?? 0;
}

describe('POST /api/v1/statuses', () => {
  it('answers with the status rendered from what the post wrote: no read after the transaction', async () => {
    const author = await aUser();
    await post(author.token, { status: 'a first one, so that the counters move from 1 to 2' });
    const ops: string[] = [];
    // The fan-out runs inline in these tests: held back here, so that only the handler's own calls are seen.
    registerInlineWorker('fanout', async () => undefined);
    const stop = dynamo().observe((op) => ops.push(op));
    const res = await post(author.token, { status: 'Ten words, a #tag, and a poll', poll: { options: ['yes', 'no'], expires_in: 3600 } }).finally(() => {
      stop();
      recording('fanout', fanoutWorker);
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ favourited: false, reblogged: false, bookmarked: false, muted: false, pinned: false });
    expect(res.body.account).toMatchObject({ id: author.account.id, statuses_count: 2, last_status_at: expect.any(String) });
    // As Mastodon's Poll#voted?: the poll's author counts as having voted.
    expect(res.body.poll).toMatchObject({ options: [{ title: 'yes' }, { title: 'no' }], voted: true, own_votes: [] });
    // The token, its rate budget and the account; the transaction; then side by side the author's and the
    // instance's counters and the search index. Nothing is read to render the answer.
    const afterCommit = ops.slice(ops.indexOf('TransactWriteItems') + 1);
    expect(afterCommit.sort()).toEqual(['BatchWriteItem', 'UpdateItem', 'UpdateItem']);
  });

  it('posts a status rendered as Mastodon renders it, and counts it', async () => {
    const author = await aUser();
    const res = await post(author.token, { status: 'Hello <world> & friends\n\nsecond https://example.com/path line' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      in_reply_to_id: null,
      in_reply_to_account_id: null,
      sensitive: false,
      spoiler_text: '',
      visibility: 'public',
      replies_count: 0,
      reblogs_count: 0,
      favourites_count: 0,
      favourited: false,
      reblogged: false,
      muted: false,
      bookmarked: false,
      pinned: false,
      reblog: null,
      edited_at: null,
      card: null,
      poll: null,
      media_attachments: [],
      mentions: [],
      tags: [],
      emojis: [],
      application: { name: 'Test app', website: null },
      account: { id: author.account.id, username: author.account.username },
    });
    expect(res.body.uri).toBe(`https://social.example/users/${author.account.username}/statuses/${res.body.id}`);
    expect(res.body.url).toBe(`https://social.example/@${author.account.username}/${res.body.id}`);
    expect(res.body.content).toBe(
      '<p>Hello &lt;world&gt; &amp; friends</p><p>second <a href="https://example.com/path" target="_blank" rel="nofollow noopener noreferrer"><span class="invisible">https://</span><span class="">example.com/path</span><span class="invisible"></span></a> line</p>',
    );
    const account = await accountById(author.account.id);
    expect(account?.statusesCount).toBe(1);
    expect(account?.lastStatusAt).not.toBeNull();
    expect(await getItem(keys.homeEntry(author.account.id, res.body.id), z.unknown())).toBeDefined();
    expect(await getItem(keys.publicEntry('local', res.body.id), z.unknown())).toBeDefined();
    expect(sent).toEqual([{ queue: 'fanout', body: { type: 'create', statusId: res.body.id, owed: true } }]);
  });

  it('links local mentions and hashtags, records them, and notifies the mentioned', async () => {
    const author = await aUser();
    const friend = await aUser();
    const res = await post(author.token, { status: `hi @${friend.account.username} and @nobody and @bob@remote.example #Café #café\nbye` });
    expect(res.status).toBe(200);
    const friendUrl = `https://social.example/@${friend.account.username}`;
    expect(res.body.content).toBe(
      `<p>hi <span class="h-card"><a href="${friendUrl}" class="u-url mention">@<span>${friend.account.username}</span></a></span> and @nobody and @bob@remote.example ` +
        '<a href="https://social.example/tags/Caf%C3%A9" class="mention hashtag" rel="tag">#<span>Café</span></a> ' +
        '<a href="https://social.example/tags/caf%C3%A9" class="mention hashtag" rel="tag">#<span>café</span></a><br />bye</p>',
    );
    expect(res.body.mentions).toEqual([{ id: friend.account.id, username: friend.account.username, acct: friend.account.username, url: friendUrl }]);
    expect(res.body.tags).toEqual([{ name: 'café', url: 'https://social.example/tags/caf%C3%A9' }]);
    expect(await getItem(keys.tagEntry('café', res.body.id), z.unknown())).toBeDefined();
    expect(sent).toContainEqual({ queue: 'notify', body: { type: 'mention', accountId: friend.account.id, fromAccountId: author.account.id, statusId: res.body.id } });
  });

  it('does not notify the author of a self-mention', async () => {
    const author = await aUser();
    const res = await post(author.token, { status: `note to @${author.account.username}` });
    expect(res.body.mentions).toHaveLength(1);
    expect(sent.filter((m) => m.queue === 'notify')).toEqual([]);
  });

  it('takes form bodies with bracket notation: a poll with its options', async () => {
    const author = await aUser();
    const res = await postForm(author.token, {
      status: 'Which?',
      'poll[options][]': ['tea', 'coffee', 'water'],
      'poll[expires_in]': '3600',
      'poll[multiple]': 'true',
      'poll[hide_totals]': 'true',
    });
    expect(res.status).toBe(200);
    expect(res.body.poll).toMatchObject({
      expired: false,
      multiple: true,
      votes_count: 0,
      voters_count: 0,
      voted: true, // the author counts as having voted, as Mastodon
      own_votes: [],
      options: [{ title: 'tea', votes_count: null }, { title: 'coffee', votes_count: null }, { title: 'water', votes_count: null }],
      emojis: [],
    });
    const expiresAt = Date.parse(res.body.poll.expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 3600_000))).toBeLessThan(10_000);
    const poll = await pollById(res.body.poll.id);
    expect(poll?.statusId).toBe(res.body.id);
    const minute = new Date(expiresAt).toISOString().slice(0, 16);
    expect(await getItem(keys.pollExpiry(minute, res.body.poll.id), z.unknown())).toBeDefined();
  });

  it('attaches own ready media and marks them attached', async () => {
    const author = await aUser();
    const a = await aMediaAttachment(author.account, { description: 'a cat' });
    const b = await aMediaAttachment(author.account);
    const res = await post(author.token, { media_ids: [a.id, b.id] });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('');
    expect(res.body.media_attachments.map((m: { id: string }) => m.id)).toEqual([a.id, b.id]);
    expect(res.body.media_attachments[0]).toMatchObject({ type: 'image', description: 'a cat' });
    expect((await mediaById(a.id))?.statusId).toBe(res.body.id);
  });

  it('uses the account defaults and the given options', async () => {
    const author = await aUser();
    const res = await post(author.token, { status: 'psst', visibility: 'private', spoiler_text: 'cw', language: 'de' });
    expect(res.body).toMatchObject({ visibility: 'private', spoiler_text: 'cw', sensitive: true, language: 'de' });
    expect(await getItem(keys.publicEntry('all', res.body.id), z.unknown())).toBeUndefined();
  });

  it('replies to a visible status: counts the reply and indexes it', async () => {
    const author = await aUser();
    const other = await aUser();
    const parent = await aStoredStatus(other.account);
    const res = await post(author.token, { status: 'reply', in_reply_to_id: parent.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ in_reply_to_id: parent.id, in_reply_to_account_id: other.account.id });
    expect((await statusById(parent.id))?.repliesCount).toBe(1);
    expect((await statusById(res.body.id))?.conversationId).toBe(parent.conversationId);
    expect(await getItem(keys.reply(parent.id, res.body.id), z.unknown())).toBeDefined();
    // Replies to others stay off the public timelines (Mastodon).
    expect(await getItem(keys.publicEntry('all', res.body.id), z.unknown())).toBeUndefined();
  });

  it('replies to a followed private status', async () => {
    const author = await aUser();
    const other = await aUser();
    await aFollow(author.account, other.account);
    const parent = await aStoredStatus(other.account, { visibility: 'private' });
    const res = await post(author.token, { status: 'reply', in_reply_to_id: parent.id });
    expect(res.status).toBe(200);
  });

  it('answers the first status again for a repeated Idempotency-Key, per account', async () => {
    const author = await aUser();
    const other = await aUser();
    const first = await post(author.token, { status: 'once' }, { 'Idempotency-Key': 'abc' });
    const again = await post(author.token, { status: 'once more' }, { 'Idempotency-Key': 'abc' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.content).toBe('<p>once</p>');
    expect((await accountById(author.account.id))?.statusesCount).toBe(1);
    const theirs = await post(other.token, { status: 'once' }, { 'Idempotency-Key': 'abc' });
    expect(theirs.body.id).not.toBe(first.body.id);
    const concurrent = await Promise.all([1, 2, 3].map(() => post(author.token, { status: 'race' }, { 'Idempotency-Key': 'race' })));
    expect(new Set(concurrent.map((r) => r.body.id)).size).toBe(1);
    expect((await accountById(author.account.id))?.statusesCount).toBe(2);
  });

  it('counts text as Mastodon: URLs as 23 characters, remote mentions by their username', async () => {
    const author = await aUser();
    const longUrl = `https://example.com/${'a'.repeat(600)}`;
    expect((await post(author.token, { status: `${'x'.repeat(476)} ${longUrl}` })).status).toBe(200);
    expect((await post(author.token, { status: `${'x'.repeat(477)} ${longUrl}` })).status).toBe(422);
    expect((await post(author.token, { status: `${'x'.repeat(494)} @bob@a-very-long-domain.example` })).status).toBe(200);
    expect((await post(author.token, { status: 'é'.repeat(500) })).status).toBe(200);
    expect((await post(author.token, { status: 'x'.repeat(490), spoiler_text: 'y'.repeat(11) })).status).toBe(422);
  });

  describe('rejects bad input with 4xx and writes nothing', () => {
    let author: Awaited<ReturnType<typeof aUser>>;
    let stranger: Awaited<ReturnType<typeof aUser>>;
    beforeAll(async () => {
      author = await aUser();
      stranger = await aUser();
    });

    const cases: [string, () => Promise<Record<string, unknown>>, number, RegExp][] = [
      ['no text and no media', async () => ({ status: '  ' }), 422, /Text can't be blank/],
      ['text over 500', async () => ({ status: 'x'.repeat(501) }), 422, /character limit of 500/],
      ['a number as text', async () => ({ status: 42 }), 422, /status must be a string/],
      ['an unknown visibility', async () => ({ status: 'x', visibility: 'friends' }), 422, /visibility/],
      ['an unknown language', async () => ({ status: 'x', language: 'xx' }), 422, /Language/],
      ['a boolean that is not one', async () => ({ status: 'x', sensitive: 'maybe' }), 422, /sensitive must be a boolean/],
      ['scheduled_at less than five minutes ahead', async () => ({ status: 'x', scheduled_at: new Date(Date.now() + 240_000).toISOString() }), 422, /Scheduled at The scheduled date must be in the future/],
      ['media and a poll together', async () => ({ status: 'x', media_ids: [(await aMediaAttachment(author.account)).id], poll: { options: ['a', 'b'], expires_in: 600 } }), 422, /both files and a poll/],
      ['five attachments', async () => ({ media_ids: await Promise.all([1, 2, 3, 4, 5].map(async () => (await aMediaAttachment(author.account)).id)) }), 422, /more than 4 files/],
      ['another user\'s attachment', async () => ({ media_ids: [(await aMediaAttachment(stranger.account)).id] }), 422, /media_ids/],
      ['an attached attachment', async () => ({ media_ids: [(await aMediaAttachment(author.account, { statusId: '1' })).id] }), 422, /media_ids/],
      ['an unknown attachment', async () => ({ media_ids: ['12345'] }), 422, /media_ids/],
      ['a malformed attachment id', async () => ({ media_ids: ['abc'] }), 422, /media_ids/],
      ['an attachment still processing', async () => ({ media_ids: [(await aMediaAttachment(author.account, { state: 'processing' })).id] }), 422, /not finished processing/],
      ['media_ids not an array', async () => ({ media_ids: { a: 1 } }), 422, /media_ids/],
      ['poll options without expiry', async () => ({ status: 'x', poll: { options: ['a', 'b'] } }), 422, /expires_in can't be blank/],
      ['poll expiry without options', async () => ({ status: 'x', poll: { expires_in: 600 } }), 422, /options can't be blank/],
      ['one poll option', async () => ({ status: 'x', poll: { options: ['a'], expires_in: 600 } }), 422, /more than one item/],
      ['five poll options', async () => ({ status: 'x', poll: { options: ['a', 'b', 'c', 'd', 'e'], expires_in: 600 } }), 422, /more than 4 items/],
      ['a poll option over 50 characters', async () => ({ status: 'x', poll: { options: ['a', 'b'.repeat(51)], expires_in: 600 } }), 422, /longer than 50/],
      ['duplicate poll options', async () => ({ status: 'x', poll: { options: ['a', 'a'], expires_in: 600 } }), 422, /duplicate/],
      ['a poll ending too soon', async () => ({ status: 'x', poll: { options: ['a', 'b'], expires_in: 299 } }), 422, /too soon/],
      ['a poll ending too late', async () => ({ status: 'x', poll: { options: ['a', 'b'], expires_in: 2629747 } }), 422, /too far/],
      ['a poll expiry that is not a number', async () => ({ status: 'x', poll: { options: ['a', 'b'], expires_in: 'soon' } }), 422, /expires_in must be a number/],
      ['a poll that is not an object', async () => ({ status: 'x', poll: 'yes' }), 422, /poll must be an object/],
      ['a reply to an unknown status', async () => ({ status: 'x', in_reply_to_id: '123456789' }), 404, /Record not found/],
      ['a reply to a malformed id', async () => ({ status: 'x', in_reply_to_id: 'abc' }), 404, /Record not found/],
      ['a reply to a private status not followed', async () => ({ status: 'x', in_reply_to_id: (await aStoredStatus(stranger.account, { visibility: 'private' })).id }), 404, /Record not found/],
      ['a reply to a direct status not addressed to the poster', async () => ({ status: 'x', in_reply_to_id: (await aStoredStatus(stranger.account, { visibility: 'direct' })).id }), 404, /Record not found/],
    ];

    it.each(cases)('%s', async (_name, body, status, message) => {
      const input = await body();
      const before = await writtenCount();
      const res = await post(author.token, input);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
      expect(await writtenCount()).toBe(before);
      expect((await accountById(author.account.id))?.statusesCount).toBe(0);
      expect(sent).toEqual([]);
    });

    it('malformed JSON answers 400', async () => {
      const res = await call(create, { method: 'POST', path: '/api/v1/statuses', body: { data: '{"status":', contentType: 'application/json' }, token: author.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it.each([
      ['no token', async () => undefined, 401],
      ['an app token', async () => (await anAppToken(['write'])).token, 422],
      ['a read-only token', async () => (await aUser({ scopes: ['read'] })).token, 403],
      ['a token with another write scope', async () => (await aUser({ scopes: ['write:media'] })).token, 403],
    ])('refuses %s', async (_name, token, status) => {
      const before = await writtenCount();
      const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: { status: 'x' }, token: await token() });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect(await writtenCount()).toBe(before);
    });
  });
});

describe('POST /api/v1/statuses with allowed_mentions', () => {
  it('refuses a post that would mention anyone outside the list with 422 naming them, writing nothing; posts one within it', async () => {
    const [author, allowed, surprise] = await Promise.all([aUser(), aUser(), aUser()]);
    const text = `@${allowed.account.username} @${surprise.account.username} hi ${Date.now()}`;
    const refused = await post(author.token, { status: text, allowed_mentions: [allowed.account.id] });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: expect.any(String), unexpected_accounts: [expect.objectContaining({ id: surprise.account.id, username: surprise.account.username })] });
    expect((await accountById(author.account.id))?.statusesCount ?? 0).toBe(0);

    const none = await post(author.token, { status: text, allowed_mentions: [] });
    expect(none.status).toBe(422);
    expect((none.body as { unexpected_accounts: { id: string }[] }).unexpected_accounts.map((a) => a.id).sort()).toEqual([allowed.account.id, surprise.account.id].sort());

    const ok = await post(author.token, { status: text, allowed_mentions: [allowed.account.id, surprise.account.id] });
    expect(ok.status).toBe(200);
    const form = await postForm(author.token, { status: `@${allowed.account.username} again`, 'allowed_mentions[]': [allowed.account.id] });
    expect(form.status).toBe(200);
    // Without the parameter, anyone may be mentioned, as before.
    expect((await post(author.token, { status: `@${surprise.account.username} free` })).status).toBe(200);
  });

  it('refuses allowed_mentions that is no list of ids with 422', async () => {
    const author = await aUser();
    expect(await post(author.token, { status: 'x', allowed_mentions: [{}] })).toMatchObject({ status: 422, body: { error: expect.stringMatching(/allowed_mentions/) } });
  });
});
