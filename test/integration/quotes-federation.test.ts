// Quote posts over ActivityPub (FEP-044f as Mastodon 4.5 speaks it): our Notes carry the quoted status
// (`quote`, `quoteUri`, `_misskey_quote`, a FEP-e232 Link tag) and who may quote them
// (`interactionPolicy.canQuote`); a received Note's quote is read from any of those names and stored with the
// status, pending until its quoted author approves it, accepted at once when it quotes its own author.
import { handler as create } from '../../functions/statuses/create';
import { handler as show } from '../../functions/statuses/show';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { quoteOf } from '../../lib/db/quotes';
import { statusById } from '../../lib/db/statuses';
import { storeRemoteNote } from '../../lib/federation/notes';
import { renderNote } from '../../lib/federation/render';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { registerInlineWorker } from '../../lib/queue';
import { aRemoteAccount, aUser, type RemoteAccountFixture, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { activity, collectDeliveries, receive } from '../support/activities';
import { handler as quoteAuthorization } from '../../functions/activitypub/quote_authorization';
import { handler as notificationsIndex } from '../../functions/notifications/index';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { handler as revoke } from '../../functions/statuses/revoke_quote';
import { handler as interactionPolicy } from '../../functions/statuses/interaction_policy';
import { instanceSigner } from '../../lib/federation/keys';
import { remoteServer, type RemoteServer } from '../support/remote-server';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);
const delivered = collectDeliveries();

const post = async (user: UserFixture, form: Record<string, string>) => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', token: user.token, form });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const stored = async (id: string) => (await statusById(id, true))!;

let local: UserFixture;
let remote: RemoteAccountFixture;
beforeAll(async () => {
  [local, remote] = await Promise.all([aUser(), aRemoteAccount({ domain: 'quotes.example' })]);
});

/** A public Note of the remote account, with `extra` fields. */
const noteOf = (extra: Record<string, unknown>) => {
  const id = `${remote.account.uri}/statuses/${Math.floor(Math.random() * 1e12)}`;
  return {
    id,
    type: 'Note',
    attributedTo: remote.account.uri,
    to: [AS_PUBLIC],
    cc: [remote.account.followersUrl],
    content: '<p>quoting</p>',
    published: new Date().toISOString(),
    ...extra,
  };
};

describe('our Notes', () => {
  it('carry the quoted status under every name and as a Link tag, and who may quote them', async () => {
    const quotedBody = await post(local, { status: 'original', quote_approval_policy: 'followers' });
    const quotingBody = await post(local, { status: 'quoting myself', quoted_status_id: quotedBody.id });
    const quotedUri = apUrls.status(local.account.username, quotedBody.id);

    const note = await renderNote(await stored(quotingBody.id), local.account);
    expect(note).toMatchObject({ quote: quotedUri, quoteUri: quotedUri, _misskey_quote: quotedUri, interactionPolicy: { canQuote: { automaticApproval: [AS_PUBLIC] } } });
    // Our account's stamp of the quote, served where it names it.
    const stampUri = `${apUrls.actor(local.account.username)}/quote_authorizations/${quotingBody.id}`;
    expect(note.quoteAuthorization).toBe(stampUri);
    const stamp = await call(quoteAuthorization, { path: new URL(stampUri).pathname, pathParameters: { username: local.account.username, id: quotingBody.id }, headers: { accept: 'application/activity+json' } });
    expect(stamp.status).toBe(200);
    expect(stamp.body).toMatchObject({ id: stampUri, type: 'QuoteAuthorization', attributedTo: apUrls.actor(local.account.username), interactingObject: apUrls.status(local.account.username, quotingBody.id), interactionTarget: quotedUri });
    expect((await call(quoteAuthorization, { pathParameters: { username: local.account.username, id: quotedBody.id } })).status).toBe(404);
    expect(note.tag).toContainEqual({ type: 'Link', mediaType: 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"', href: quotedUri, name: `RE: ${quotedUri}` });

    const quotedNote = await renderNote(await stored(quotedBody.id), local.account);
    expect(quotedNote).not.toHaveProperty('quote');
    expect(quotedNote.interactionPolicy).toEqual({ canQuote: { automaticApproval: [apUrls.followers(local.account.username)] } });
    const nobody = await post(local, { status: 'mine', quote_approval_policy: 'nobody' });
    expect((await renderNote(await stored(nobody.id), local.account)).interactionPolicy).toEqual({ canQuote: { automaticApproval: [apUrls.actor(local.account.username)] } });
  });
});

describe('received Notes', () => {
  it.each([
    ['quote', (uri: string) => ({ quote: uri })],
    ['_misskey_quote', (uri: string) => ({ _misskey_quote: uri })],
    ['quoteUri', (uri: string) => ({ quoteUri: uri })],
    ['a FEP-e232 Link tag', (uri: string) => ({ tag: [{ type: 'Link', mediaType: 'application/activity+json', href: uri, name: `RE: ${uri}` }] })],
  ])('read the quote of one of our statuses from %s, pending until its author approves it', async (_name, fields) => {
    const ours = await post(local, { status: 'quotable' });
    const uri = apUrls.status(local.account.username, ours.id);
    const status = await storeRemoteNote(noteOf(fields(uri)), remote.account, { distribute: false });
    expect(status?.quote).toEqual({ quotedStatusId: ours.id, quotedAccountId: local.account.id, state: 'pending' });
    expect(await quoteOf(ours.id, status!.id)).toMatchObject({ accountId: remote.account.id, state: 'pending' });
    expect((await stored(ours.id)).quotesCount ?? 0).toBe(0);
    const shown = await call(show, { path: `/api/v1/statuses/${status!.id}`, pathParameters: { id: status!.id }, token: local.token });
    expect(shown.body.quote).toEqual({ state: 'pending', quoted_status: null });
  });

  it('accept a quote of its author\'s own status at once, and read the quote policy from interactionPolicy', async () => {
    const first = await storeRemoteNote(noteOf({ interactionPolicy: { canQuote: { automaticApproval: [remote.account.followersUrl] } } }), remote.account, { distribute: false });
    expect(first?.quoteApprovalPolicy).toBe('followers');
    const second = await storeRemoteNote(noteOf({ quote: first!.uri, interactionPolicy: { canQuote: { automaticApproval: ['https://www.w3.org/ns/activitystreams#Public'] } } }), remote.account, { distribute: false });
    expect(second?.quote).toMatchObject({ quotedStatusId: first!.id, state: 'accepted' });
    expect(second?.quoteApprovalPolicy).toBe('public');
    expect((await stored(first!.id)).quotesCount).toBe(1);
    // No policy sent: nobody may quote it, as Mastodon reads a Note without one.
    const bare = await storeRemoteNote(noteOf({}), remote.account, { distribute: false });
    expect(bare?.quoteApprovalPolicy).toBe('nobody');
    expect(bare?.quote).toBeUndefined();
  });
});

describe('quote approval over ActivityPub', () => {
  it('approves a QuoteRequest for one of our statuses: accepted with our stamp, counted, notified, answered with Accept', async () => {
    const ours = await post(local, { status: 'ask me' });
    const uri = apUrls.status(local.account.username, ours.id);
    const note = noteOf({ quote: uri });
    const request = activity(remote.account as { uri: string }, 'QuoteRequest', uri, { instrument: note });
    expect(await receive(request)).toBe('applied');
    const quotingId = (await remoteStatusIdByUri(note.id))!;
    const stampUri = `${apUrls.actor(local.account.username)}/quote_authorizations/${quotingId}`;
    expect(await quoteOf(ours.id, quotingId)).toMatchObject({ state: 'accepted', approvalUri: stampUri, activityUri: request.id });
    expect((await stored(ours.id)).quotesCount).toBe(1);
    const accept = delivered.find((d) => d.activity.type === 'Accept');
    expect(accept).toMatchObject({ inbox: remote.account.inboxUrl, activity: { actor: apUrls.actor(local.account.username), object: { id: request.id, type: 'QuoteRequest' }, result: stampUri } });
    const told = await call(notificationsIndex, { path: '/api/v1/notifications', token: local.token, query: { 'types[]': 'quote' } });
    expect(told.body).toEqual([expect.objectContaining({ type: 'quote', status: expect.objectContaining({ id: quotingId }) })]);
  });

  it('leaves unanswered a QuoteRequest whose Note does not quote the status', async () => {
    const ours = await post(local, { status: 'ask me too' });
    const uri = apUrls.status(local.account.username, ours.id);
    expect(await receive(activity(remote.account as { uri: string }, 'QuoteRequest', uri, { instrument: noteOf({}) }))).toBe('ignored');
    expect(delivered).toEqual([]);
    expect((await stored(ours.id)).quotesCount ?? 0).toBe(0);
  });

  it('rejects a QuoteRequest the policy refuses, and the quote stays unapproved', async () => {
    const ours = await post(local, { status: 'no quotes', quote_approval_policy: 'nobody' });
    const uri = apUrls.status(local.account.username, ours.id);
    const note = noteOf({ quote: uri });
    const request = activity(remote.account as { uri: string }, 'QuoteRequest', uri, { instrument: note });
    expect(await receive(request)).toBe('applied');
    const quotingId = (await remoteStatusIdByUri(note.id))!;
    expect((await quoteOf(ours.id, quotingId))?.state).toBe('rejected');
    expect(delivered.map((d) => d.activity.type)).toEqual(['Reject']);
    expect((await stored(ours.id)).quotesCount ?? 0).toBe(0);
  });

  it('asks a remote author to approve our quote, and takes its Accept (with the stamp) or Reject', async () => {
    const theirs = await storeRemoteNote(noteOf({ interactionPolicy: { canQuote: { automaticApproval: [AS_PUBLIC] } } }), remote.account, { distribute: false });
    const quoting = await post(local, { status: 'quoting afar', quoted_status_id: theirs!.id });
    const requestId = `${apUrls.actor(local.account.username)}/quote_requests/${quoting.id}`;
    expect((await stored(quoting.id)).quote).toMatchObject({ state: 'pending' });
    const sent = delivered.find((d) => d.activity.type === 'QuoteRequest');
    expect(sent?.activity).toMatchObject({ id: requestId, actor: apUrls.actor(local.account.username), object: theirs!.uri, instrument: { id: apUrls.status(local.account.username, quoting.id), quote: theirs!.uri } });

    // Someone else's Accept, or one whose stamp is not on the author's server, changes nothing.
    const stamp = `${remote.account.uri}/quote_authorizations/1`;
    const other = await aRemoteAccount({ domain: 'elsewhere.example' });
    expect(await receive(activity(other.account as { uri: string }, 'Accept', requestId, { result: `${other.account.uri}/stamp` }))).toBe('ignored');
    expect(await receive(activity(remote.account as { uri: string }, 'Accept', requestId, { result: 'https://elsewhere.example/stamp' }))).toBe('ignored');
    expect(await receive(activity(remote.account as { uri: string }, 'Accept', { id: requestId, type: 'QuoteRequest' }, { result: stamp }))).toBe('applied');
    expect((await stored(quoting.id)).quote).toMatchObject({ state: 'accepted', approvalUri: stamp });
    expect((await stored(theirs!.id)).quotesCount).toBe(1);
    expect((await renderNote(await stored(quoting.id), local.account)).quoteAuthorization).toBe(stamp);

    // A later Reject revokes it.
    expect(await receive(activity(remote.account as { uri: string }, 'Reject', requestId))).toBe('applied');
    expect((await stored(quoting.id)).quote?.state).toBe('revoked');
    expect((await stored(theirs!.id)).quotesCount).toBe(0);
  });
});

describe('a quoted remote status deleted', () => {
  it('turns our quotes of it into `deleted` when its author deletes it', async () => {
    const theirs = await storeRemoteNote(noteOf({ interactionPolicy: { canQuote: { automaticApproval: [AS_PUBLIC] } } }), remote.account, { distribute: false });
    const quoting = await post(local, { status: 'quoting what goes', quoted_status_id: theirs!.id });
    expect(await receive(activity(remote.account as { uri: string }, 'Delete', { id: theirs!.uri, type: 'Tombstone' }))).toBe('applied');
    expect(await statusById(theirs!.id)).toBeUndefined();
    expect((await quoteOf(theirs!.id, quoting.id))?.state).toBe('deleted');
    expect((await stored(quoting.id)).quote?.state).toBe('deleted');
  });
});

describe('an approval withdrawn', () => {
  it('revokes our quote when the quoted author deletes its stamp; another actor\'s Delete of it changes nothing', async () => {
    const theirs = await storeRemoteNote(noteOf({ interactionPolicy: { canQuote: { automaticApproval: [AS_PUBLIC] } } }), remote.account, { distribute: false });
    const quoting = await post(local, { status: 'approved then not', quoted_status_id: theirs!.id });
    const requestId = `${apUrls.actor(local.account.username)}/quote_requests/${quoting.id}`;
    const stamp = `${remote.account.uri}/quote_authorizations/${quoting.id}`;
    expect(await receive(activity(remote.account as { uri: string }, 'Accept', requestId, { result: stamp }))).toBe('applied');
    expect((await stored(theirs!.id)).quotesCount).toBe(1);

    const other = await aRemoteAccount({ domain: 'quotes.example' });
    expect(await receive(activity(other.account as { uri: string }, 'Delete', stamp))).toBe('ignored');
    expect((await stored(quoting.id)).quote?.state).toBe('accepted');

    // As Mastodon sends it: the stamp's bare id, under `#delete`.
    expect(await receive({ ...activity(remote.account as { uri: string }, 'Delete', stamp), id: `${stamp}#delete` })).toBe('applied');
    expect((await stored(quoting.id)).quote?.state).toBe('revoked');
    expect((await quoteOf(theirs!.id, quoting.id))?.state).toBe('revoked');
    expect((await stored(theirs!.id)).quotesCount).toBe(0);
    expect(await statusById(quoting.id)).toBeDefined();
  });

  it('sends the Delete of our stamp to the quoting server when our author revokes a remote quote', async () => {
    const ours = await post(local, { status: 'approve, then regret' });
    const uri = apUrls.status(local.account.username, ours.id);
    const note = noteOf({ quote: uri });
    expect(await receive(activity(remote.account as { uri: string }, 'QuoteRequest', uri, { instrument: note }))).toBe('applied');
    const quotingId = (await remoteStatusIdByUri(note.id))!;
    const stampUri = `${apUrls.actor(local.account.username)}/quote_authorizations/${quotingId}`;
    delivered.length = 0;

    const res = await call(revoke, { method: 'POST', path: `/api/v1/statuses/${ours.id}/quotes/${quotingId}/revoke`, pathParameters: { id: ours.id, quoting_status_id: quotingId }, token: local.token });
    expect(res.status).toBe(200);
    expect(res.body.quote.state).toBe('revoked');
    const sent = delivered.filter((d) => d.activity.type === 'Delete');
    expect(sent).toEqual([expect.objectContaining({ inbox: remote.account.sharedInboxUrl ?? remote.account.inboxUrl, activity: expect.objectContaining({ id: `${stampUri}#delete`, actor: apUrls.actor(local.account.username), object: stampUri }) })]);
    // Revoked once: a second revocation sends nothing more.
    delivered.length = 0;
    expect((await call(revoke, { method: 'POST', path: `/api/v1/statuses/${ours.id}/quotes/${quotingId}/revoke`, pathParameters: { id: ours.id, quoting_status_id: quotingId }, token: local.token })).status).toBe(200);
    expect(delivered).toEqual([]);
  });
});

describe('our Note sent again when its quote state or policy changes', () => {
  let follower: RemoteAccountFixture;
  beforeAll(async () => {
    follower = await aRemoteAccount({ domain: 'followers-of-quotes.example' });
    expect(await receive(activity(follower.account as { uri: string }, 'Follow', apUrls.actor(local.account.username)))).toBe('applied');
  });
  const updatesTo = (inbox: string | null | undefined) => delivered.filter((d) => d.activity.type === 'Update' && d.inbox === inbox);

  it('after the Accept of our QuoteRequest: the Update carries the stamp', async () => {
    const theirs = await storeRemoteNote(noteOf({ interactionPolicy: { canQuote: { automaticApproval: [AS_PUBLIC] } } }), remote.account, { distribute: false });
    const quoting = await post(local, { status: 'approved soon', quoted_status_id: theirs!.id });
    const requestId = `${apUrls.actor(local.account.username)}/quote_requests/${quoting.id}`;
    const stamp = `${remote.account.uri}/quote_authorizations/${quoting.id}`;
    delivered.length = 0;
    expect(await receive(activity(remote.account as { uri: string }, 'Accept', requestId, { result: stamp }))).toBe('applied');
    const [update] = updatesTo(follower.account.sharedInboxUrl ?? follower.account.inboxUrl);
    expect(update?.activity).toMatchObject({ actor: apUrls.actor(local.account.username), object: { id: apUrls.status(local.account.username, quoting.id), quote: theirs!.uri, quoteAuthorization: stamp } });
    expect(String(update?.activity.id)).toContain(`${apUrls.status(local.account.username, quoting.id)}#updates/`);
    // A repeated Accept changes nothing and sends nothing.
    delivered.length = 0;
    expect(await receive(activity(remote.account as { uri: string }, 'Accept', requestId, { result: stamp }))).toBe('ignored');
    expect(delivered).toEqual([]);
  });

  it('after an interaction policy change: the Update carries the new policy; an unchanged policy sends nothing', async () => {
    const ours = await post(local, { status: 'policy moves' });
    const setPolicy = (policy: string) =>
      call(interactionPolicy, { method: 'PUT', path: `/api/v1/statuses/${ours.id}/interaction_policy`, pathParameters: { id: ours.id }, token: local.token, form: { quote_approval_policy: policy } });
    delivered.length = 0;
    expect((await setPolicy('followers')).status).toBe(200);
    const [update] = updatesTo(follower.account.sharedInboxUrl ?? follower.account.inboxUrl);
    expect(update?.activity).toMatchObject({ type: 'Update', object: { id: apUrls.status(local.account.username, ours.id), interactionPolicy: { canQuote: { automaticApproval: [apUrls.followers(local.account.username)] } } } });
    delivered.length = 0;
    expect((await setPolicy('followers')).status).toBe(200);
    expect(delivered).toEqual([]);
  });
});

describe('a quote between two other servers, approved by a stamp (VerifyQuoteService)', () => {
  // The quoted author lives on a real server on loopback, which serves its stamps; the quoting author's Notes arrive in Create and Update.
  let server: RemoteServer;
  let elsewhere: RemoteServer;
  let quotedAuthor: RemoteAccountFixture;
  let otherAuthor: RemoteAccountFixture;
  beforeAll(async () => {
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    await instanceSigner();
    [server, elsewhere] = await Promise.all([remoteServer(), remoteServer()]);
    [quotedAuthor, otherAuthor] = await Promise.all([
      aRemoteAccount({ domain: server.host, uri: `${server.origin}/users/quoted` }),
      aRemoteAccount({ domain: server.host, uri: `${server.origin}/users/bystander` }),
    ]);
  });
  afterAll(async () => {
    process.env.STAGE = 'test';
    delete process.env.FEDERATION_ALLOW_PRIVATE;
    await Promise.all([server.close(), elsewhere.close()]);
  });

  let n = 0;
  /** A public status of the quoted author, stored here, and the path of a stamp of it on its server. */
  const aQuotedStatus = async () => {
    n++;
    const doc = { id: `${server.origin}/users/quoted/statuses/${Date.now()}${n}`, type: 'Note', attributedTo: quotedAuthor.account.uri, to: [AS_PUBLIC], content: '<p>quote me</p>', published: new Date().toISOString(), interactionPolicy: { canQuote: { automaticApproval: [AS_PUBLIC] } } };
    const status = (await storeRemoteNote(doc, quotedAuthor.account, { distribute: false }))!;
    return { status, stampId: `${server.origin}/users/quoted/quote_authorizations/${Date.now()}${n}` };
  };
  const aStamp = (id: string, quoting: string, quoted: string, overrides: Record<string, unknown> = {}) => ({
    '@context': ['https://www.w3.org/ns/activitystreams', { QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization', gts: 'https://gotosocial.org/ns#', interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' }, interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' } }],
    id,
    type: 'QuoteAuthorization',
    attributedTo: quotedAuthor.account.uri,
    interactingObject: quoting,
    interactionTarget: quoted,
    ...overrides,
  });
  const fetchesOf = (on: RemoteServer, id: string) => on.received.filter((r) => r.method === 'GET' && r.path === new URL(id).pathname);
  const quotingStatus = async (noteId: string) => stored((await remoteStatusIdByUri(noteId))!);

  it('accepts the quote once its stamp checks out: one signed fetch, counted, and the stamp remembered for its Delete', async () => {
    const { status: quoted, stampId } = await aQuotedStatus();
    const note = noteOf({ quote: quoted.uri, quoteAuthorization: stampId });
    server.serve(aStamp(stampId, note.id, quoted.uri!));
    expect(await receive(activity(remote.account as { uri: string }, 'Create', note))).toBe('applied');

    const quoting = await quotingStatus(note.id);
    expect(quoting.quote).toMatchObject({ quotedStatusId: quoted.id, state: 'accepted', approvalUri: stampId });
    expect(await quoteOf(quoted.id, quoting.id)).toMatchObject({ state: 'accepted', approvalUri: stampId });
    expect((await stored(quoted.id)).quotesCount).toBe(1);
    const fetches = fetchesOf(server, stampId);
    expect(fetches).toHaveLength(1);
    expect(fetches[0]!.headers.signature).toBeDefined();
    const shown = await call(show, { path: `/api/v1/statuses/${quoting.id}`, pathParameters: { id: quoting.id }, token: local.token });
    expect(shown.body.quote).toMatchObject({ state: 'accepted', quoted_status: { id: quoted.id } });

    // Redelivered: already accepted, nothing fetched again, nothing counted twice.
    expect(await receive(activity(remote.account as { uri: string }, 'Create', note))).toBe('applied');
    expect(fetchesOf(server, stampId)).toHaveLength(1);
    expect((await stored(quoted.id)).quotesCount).toBe(1);

    // The quoted author withdraws it: the Delete of its stamp finds the quote.
    expect(await receive({ ...activity(quotedAuthor.account as { uri: string }, 'Delete', stampId), id: `${stampId}#delete` })).toBe('applied');
    expect((await quotingStatus(note.id)).quote?.state).toBe('revoked');
    expect((await stored(quoted.id)).quotesCount).toBe(0);
  });

  it.each([
    ['attributed to another actor of that server', (id: string, quoting: string, quoted: string) => aStamp(id, quoting, quoted, { attributedTo: `${server.origin}/users/bystander` })],
    ['for another quoting Note', (id: string, _quoting: string, quoted: string) => aStamp(id, `${remote.account.uri}/statuses/other`, quoted)],
    ['for another quoted status', (id: string, quoting: string, _quoted: string) => aStamp(id, quoting, `${server.origin}/users/quoted/statuses/other`)],
    ['of another type', (id: string, quoting: string, quoted: string) => aStamp(id, quoting, quoted, { type: 'Note' })],
    ['without the ActivityStreams context', (id: string, quoting: string, quoted: string) => aStamp(id, quoting, quoted, { '@context': 'https://example.org/other' })],
    ['under another id than the one named', (id: string, quoting: string, quoted: string) => aStamp(`${id}-other`, quoting, quoted)],
  ])('leaves the quote pending for a stamp %s (one fetch, nothing counted)', async (_name, stampOf) => {
    const { status: quoted, stampId } = await aQuotedStatus();
    const note = noteOf({ quote: quoted.uri, quoteAuthorization: stampId });
    server.route('GET', new URL(stampId).pathname, { body: stampOf(stampId, note.id, quoted.uri!) });
    expect(await receive(activity(remote.account as { uri: string }, 'Create', note))).toBe('applied');
    expect((await quotingStatus(note.id)).quote?.state).toBe('pending');
    expect((await stored(quoted.id)).quotesCount ?? 0).toBe(0);
    expect(fetchesOf(server, stampId)).toHaveLength(1);
  });

  it('fetches nothing for a stamp on another server than the quoted author\'s, nor one that is not served, and the quote stays pending', async () => {
    const { status: quoted, stampId } = await aQuotedStatus();
    const forged = `${elsewhere.origin}/users/quoted/quote_authorizations/1`;
    const note = noteOf({ quote: quoted.uri, quoteAuthorization: forged });
    elsewhere.serve(aStamp(forged, note.id, quoted.uri!, { attributedTo: `${elsewhere.origin}/users/quoted` }));
    expect(await receive(activity(remote.account as { uri: string }, 'Create', note))).toBe('applied');
    expect((await quotingStatus(note.id)).quote?.state).toBe('pending');
    expect(elsewhere.received).toEqual([]);

    // Named on the right server but gone there (404): pending too.
    const missing = noteOf({ quote: quoted.uri, quoteAuthorization: stampId });
    expect(await receive(activity(remote.account as { uri: string }, 'Create', missing))).toBe('applied');
    expect((await quotingStatus(missing.id)).quote?.state).toBe('pending');
    expect(fetchesOf(server, stampId)).toHaveLength(1);
    expect((await stored(quoted.id)).quotesCount ?? 0).toBe(0);
  });

  it('accepts the quote when an Update of the quoting Note adds the stamp (not an edit), once', async () => {
    const { status: quoted, stampId } = await aQuotedStatus();
    const note = noteOf({ quote: quoted.uri });
    expect(await receive(activity(remote.account as { uri: string }, 'Create', note))).toBe('applied');
    expect((await quotingStatus(note.id)).quote?.state).toBe('pending');

    server.serve(aStamp(stampId, note.id, quoted.uri!));
    const stamped = { ...note, quoteAuthorization: stampId };
    expect(await receive(activity(remote.account as { uri: string }, 'Update', stamped))).toBe('applied');
    expect((await quotingStatus(note.id)).quote).toMatchObject({ state: 'accepted', approvalUri: stampId });
    expect((await stored(quoted.id)).quotesCount).toBe(1);
    expect(await receive(activity(remote.account as { uri: string }, 'Update', stamped))).toBe('ignored');
    expect(fetchesOf(server, stampId)).toHaveLength(1);

    // Another actor's Update naming the Note changes nothing (it is not theirs).
    const { status: quoted2, stampId: stamp2 } = await aQuotedStatus();
    const note2 = noteOf({ quote: quoted2.uri });
    expect(await receive(activity(remote.account as { uri: string }, 'Create', note2))).toBe('applied');
    server.serve(aStamp(stamp2, note2.id, quoted2.uri!));
    expect(await receive(activity(otherAuthor.account as { uri: string }, 'Update', { ...note2, quoteAuthorization: stamp2 }))).toBe('ignored');
    expect((await quotingStatus(note2.id)).quote?.state).toBe('pending');
    expect(fetchesOf(server, stamp2)).toHaveLength(0);
  });

  it('never fetches a stamp for a quote of one of our statuses (our author answers its QuoteRequest)', async () => {
    const ours = await post(local, { status: 'ours to approve' });
    const stampId = `${server.origin}/users/quoted/quote_authorizations/ours`;
    const note = noteOf({ quote: apUrls.status(local.account.username, ours.id), quoteAuthorization: stampId });
    expect(await receive(activity(remote.account as { uri: string }, 'Create', note))).toBe('applied');
    expect((await quotingStatus(note.id)).quote?.state).toBe('pending');
    expect(fetchesOf(server, stampId)).toHaveLength(0);
  });
});
