// Federation as two new users meet it: two stacks of ours, alpha.test and beta.test,
// each on its own loopback address and port 80 under an /etc/hosts name, as two
// servers on the internet would be, both driven with masto. a@alpha.test finds
// @b@beta.test, follows (b is locked and approves), sees b's posts where Mastodon
// shows them, replies, sees b's deletion and new name, unfollows; every step is
// its own test, so a failure names the step. Everything between the two servers
// (WebFinger, signed fetches, deliveries, inbox workers) is asynchronous: each
// check waits, bounded, for what it expects (test/support/masto.ts `eventually`).
import sharp from 'sharp';
import { createStreamingAPIClient, type mastodon } from 'masto';
import { arrival } from '../support/arrival';
import { collectEvents, eventually, newUser, type MastoUser } from '../support/masto';
import type { Stack } from '../support/stack';
import { HOP_MS, STEP_MS, need, pairFromEnv, startBoth } from './federation/pair';

/** The two servers: the addresses .ci/run names in /etc/hosts. */
const [ALPHA, BETA] = pairFromEnv([
  { host: '127.0.0.2', port: 80, publicHost: 'alpha.test' },
  { host: '127.0.0.3', port: 80, publicHost: 'beta.test' },
]);

/** The status (as this server renders it) whose ActivityPub id is `uri`. */
const byUri = (list: mastodon.v1.Status[], uri: string) => list.find((s) => s.uri === uri);

/** What a stream carried, reduced to what the assertions compare. */
type Seen = { event: string; id: string; uri?: string; type?: string; visibility?: string };

function seenOf(event: string, payload: unknown): Seen {
  if (event === 'delete') return { event, id: String(payload) };
  const p = (payload ?? {}) as { id?: string; uri?: string; type?: string; visibility?: string; status?: { id: string; uri: string } };
  if (event === 'notification') return { event, id: p.status?.id ?? '', uri: p.status?.uri, type: p.type };
  return { event, id: p.id ?? '', uri: p.uri, visibility: p.visibility };
}

const collect = (subscription: mastodon.streaming.Subscription) => collectEvents(subscription, seenOf);

/** Repeats `trigger` until `probe` holds: a WebSocket subscription has no answer but the events it brings. */
async function subscribed(trigger: () => Promise<unknown>, probe: () => boolean, what: string, attempts = 15): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    await trigger();
    try {
      await arrival(probe, what, 4_000);
      return;
    } catch {
      // not subscribed yet (or not arrived yet): publish again
    }
  }
  throw new Error(`never subscribed: ${what}`);
}

const notFound = (err: unknown) => typeof err === 'object' && err !== null && 'statusCode' in err && err.statusCode === 404;

describe('two servers of ours: a@alpha.test and b@beta.test', () => {
  let alpha: Stack | undefined;
  let beta: Stack | undefined;
  let a: MastoUser;
  let b: MastoUser;
  /** b as alpha knows it, and a as beta knows it. */
  let bOnAlpha: mastodon.v1.Account | undefined;
  let aOnBeta: mastodon.v1.Account | undefined;
  let streaming: mastodon.streaming.Client | undefined;
  let userStream: Seen[] = [];
  let remoteStream: Seen[] = [];
  /** b's posts, as beta answered them. */
  const posts: Partial<Record<'public' | 'unlisted' | 'private' | 'image', mastodon.v1.Status>> = {};
  const tag = `fedtest${Date.now().toString(36)}`;
  /** b's public post as alpha shows it (a replies to it, b deletes it). */
  let publicOnAlpha: mastodon.v1.Status | undefined;

  const bAcct = () => `${b.me.username}@${BETA.publicHost}`;
  const aAcct = () => `${a.me.username}@${ALPHA.publicHost}`;
  const home = () => a.client.v1.timelines.home.list({ limit: 40 });

  beforeAll(async () => {
    // A thread's missing replies are fetched when it is opened (Mastodon 4.5), here without waiting the 5 minutes.
    [alpha, beta] = await startBoth([ALPHA, BETA], { FETCH_REPLIES_INITIAL_WAIT_MINUTES: '0' });
    process.stdout.write(`alpha.test answered in ${(alpha.startupMs / 1000).toFixed(1)} s, beta.test in ${(beta.startupMs / 1000).toFixed(1)} s\n`);
    [a, b] = await Promise.all([newUser(alpha.baseUrl, 'a'), newUser(beta.baseUrl, 'b')]);
  }, 240_000);

  afterAll(async () => {
    streaming?.close();
    await Promise.all([alpha?.stop(), beta?.stop()]);
  }, 60_000);

  it('serves each stack under its own name', async () => {
    expect([need(alpha, 'alpha.test').baseUrl, need(beta, 'beta.test').baseUrl]).toEqual(['http://alpha.test', 'http://beta.test']);
    const instance = await a.client.v2.instance.fetch();
    expect(instance.domain).toBe('alpha.test');
    expect(a.me.acct).toBe(a.me.username);
    expect(a.me.url).toBe(`http://alpha.test/@${a.me.username}`);
  });

  it('b locks the account', async () => {
    const locked = await b.client.v1.accounts.updateCredentials({ locked: true, displayName: 'Bee' });
    expect(locked.locked).toBe(true);
  });

  it('a finds @b@beta.test by search (resolve=true)', async () => {
    const found = await a.client.v2.search.list({ q: `@${bAcct()}`, resolve: true, type: 'accounts' });
    expect(found.accounts).toHaveLength(1);
    bOnAlpha = found.accounts[0]!;
    expect(bOnAlpha).toMatchObject({ username: b.me.username, acct: bAcct(), url: `http://beta.test/@${b.me.username}`, displayName: 'Bee', locked: true });
    // Known now: found by lookup without resolving, and by the bare user@domain form.
    expect((await a.client.v1.accounts.lookup({ acct: bAcct() })).id).toBe(bOnAlpha.id);
    const bare = await a.client.v2.search.list({ q: bAcct(), resolve: true, type: 'accounts' });
    expect(bare.accounts.map((x) => x.id)).toEqual([bOnAlpha.id]);
  }, STEP_MS);

  it('a follows b: requested until b approves', async () => {
    const target = need(bOnAlpha, 'b found on alpha');
    const rel = await a.client.v1.accounts.$select(target.id).follow();
    expect(rel).toMatchObject({ following: false, requested: true });

    const requests = await eventually(async () => {
      const list = await b.client.v1.followRequests.list();
      return list.some((x) => x.acct === aAcct()) && list;
    }, 'a\'s follow request on beta', HOP_MS);
    aOnBeta = requests.find((x) => x.acct === aAcct())!;
    expect(aOnBeta).toMatchObject({ username: a.me.username, url: `http://alpha.test/@${a.me.username}` });

    const approved = await b.client.v1.followRequests.$select(aOnBeta.id).authorize();
    expect(approved.followedBy).toBe(true);

    const [now] = await eventually(async () => {
      const rels = await a.client.v1.accounts.relationships.fetch({ id: [target.id] });
      return rels[0]?.following === true && rels;
    }, 'the Accept on alpha (a following b)', HOP_MS);
    expect(now).toMatchObject({ following: true, requested: false });
  }, STEP_MS);

  it('a listens on the user and public:remote streams', async () => {
    const instance = await a.client.v1.instance.fetch();
    // One origin, as a deployed stage: the WebSocket API is at the instance's own host.
    expect(instance.urls.streamingApi).toBe('ws://alpha.test');
    streaming = createStreamingAPIClient({ streamingApiUrl: instance.urls.streamingApi, accessToken: a.token, retry: 3 });
    userStream = collect(streaming.user.subscribe());
    remoteStream = collect(streaming.public.remote.subscribe());
    await subscribed(() => a.client.v1.filters.create({ phrase: 'never used', context: ['home'] }), () => userStream.some((e) => e.event === 'filters_changed'), 'user');
    // Only a remote public post shows on public:remote: b posts until one comes through.
    const warmups: string[] = [];
    await subscribed(
      async () => warmups.push((await b.client.v1.statuses.create({ status: `tuning in ${warmups.length}`, visibility: 'public' })).uri),
      () => remoteStream.some((e) => e.event === 'update' && warmups.includes(e.uri ?? '')),
      'public:remote',
    );
  }, STEP_MS * 2);

  it('b posts public, unlisted, followers-only mentioning a, and an image with a hashtag', async () => {
    posts.public = await b.client.v1.statuses.create({ status: 'Hello, fediverse', visibility: 'public' });
    posts.unlisted = await b.client.v1.statuses.create({ status: 'A quiet one', visibility: 'unlisted' });
    posts.private = await b.client.v1.statuses.create({ status: `Just for followers, @${aAcct()}`, visibility: 'private' });
    const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3d5a80' } }).png().toBuffer();
    const media = await b.client.v2.media.create({ file: new Blob([png], { type: 'image/png' }), description: 'a blue square' });
    posts.image = await b.client.v1.statuses.create({ status: `Blue hour #${tag}`, mediaIds: [media.id], visibility: 'public' });
    // All four are posted before any check, so that a failure here leaves the later steps something to look for.
    for (const post of Object.values(posts)) expect(post.uri).toMatch(new RegExp(`^http://beta\\.test/users/${b.me.username}/statuses/`));
    expect(posts.private.mentions.map((m) => m.acct)).toEqual([aAcct()]);
    expect(posts.image.tags.map((t) => t.name)).toEqual([tag]);
  });

  it('a\'s home shows all four, as b\'s, with their visibility', async () => {
    const want = Object.values(posts).map((p) => p.uri);
    expect(want).toHaveLength(4);
    const page = await eventually(async () => {
      const list = await home();
      return want.every((uri) => byUri(list, uri)) && list;
    }, 'b\'s four posts in a\'s home', HOP_MS);
    for (const [visibility, post] of Object.entries(posts)) {
      const seen = byUri(page, post.uri)!;
      expect(seen.account).toMatchObject({ id: need(bOnAlpha, 'b on alpha').id, acct: bAcct() });
      expect(seen.visibility).toBe(visibility === 'image' ? 'public' : visibility);
    }
    publicOnAlpha = byUri(page, posts.public!.uri);
    expect(publicOnAlpha!.content).toContain('Hello, fediverse');
  }, STEP_MS);

  it('the federated timeline shows the public ones only; the local one none of them', async () => {
    const remote = await eventually(async () => {
      const list = await a.client.v1.timelines.public.list({ remote: true, limit: 40 });
      return byUri(list, posts.image!.uri) && list;
    }, 'b\'s public posts on the federated timeline', HOP_MS);
    expect(byUri(remote, posts.public!.uri)).toBeDefined();
    expect(byUri(remote, posts.unlisted!.uri)).toBeUndefined();
    expect(byUri(remote, posts.private!.uri)).toBeUndefined();
    const all = await a.client.v1.timelines.public.list({ limit: 40 });
    expect(byUri(all, posts.public!.uri)).toBeDefined();
    expect(byUri(all, posts.unlisted!.uri)).toBeUndefined();
    const local = await a.client.v1.timelines.public.list({ local: true, limit: 40 });
    expect(local.filter((s) => s.account.acct.includes('@'))).toEqual([]);
  }, STEP_MS);

  it('the hashtag timeline shows the image post, with b\'s image', async () => {
    const tagged = await eventually(async () => {
      const list = await a.client.v1.timelines.tag.$select(tag).list();
      return list.length > 0 && list;
    }, `#${tag} on alpha`, HOP_MS);
    expect(tagged.map((s) => s.uri)).toEqual([posts.image!.uri]);
    const [attachment] = tagged[0]!.mediaAttachments;
    expect(attachment).toMatchObject({ type: 'image', description: 'a blue square' });
    // Served from beta's media, by its public name.
    const src = attachment!.remoteUrl ?? attachment!.url!;
    expect(src).toMatch(/^http:\/\/beta\.test\/system\//);
    const res = await fetch(src);
    await res.body?.cancel();
    // With the URL, so that a failure says which one.
    expect({ src, status: res.status, type: res.headers.get('content-type') }).toEqual({ src, status: 200, type: 'image/png' });
    expect(src).toBe(posts.image!.mediaAttachments[0]!.url);
  }, STEP_MS);

  it('a is notified of the mention in the followers-only post', async () => {
    const mentions = await eventually(async () => {
      const list = await a.client.v1.notifications.list({ types: ['mention'] });
      return list.some((n) => n.status?.uri === posts.private!.uri) && list;
    }, 'the mention notification on alpha', HOP_MS);
    const mention = mentions.find((n) => n.status?.uri === posts.private!.uri)!;
    expect(mention.account.acct).toBe(bAcct());
    expect(mention.status!.visibility).toBe('private');
    expect(mention.status!.mentions.map((m) => m.id)).toEqual([a.me.id]);
  }, STEP_MS);

  it('the user stream carried all four and the mention; public:remote the public two only', async () => {
    const want = Object.values(posts).map((p) => p.uri);
    await arrival(() => want.every((uri) => userStream.some((e) => e.event === 'update' && e.uri === uri)), 'b\'s four posts on the user stream', HOP_MS);
    await arrival(
      () => userStream.some((e) => e.event === 'notification' && e.type === 'mention' && e.uri === posts.private!.uri),
      'the mention on the user stream',
      HOP_MS,
    );
    await arrival(
      () => [posts.public!.uri, posts.image!.uri].every((uri) => remoteStream.some((e) => e.event === 'update' && e.uri === uri)),
      'the public posts on public:remote',
      HOP_MS,
    );
    expect(remoteStream.filter((e) => e.uri === posts.unlisted!.uri || e.uri === posts.private!.uri)).toEqual([]);
    expect(userStream.filter((e) => e.event === 'update' && e.uri === posts.public!.uri)).toHaveLength(1);
  }, STEP_MS);

  it('a replies; b sees the reply in the thread and is notified', async () => {
    const parent = need(publicOnAlpha, 'b\'s public post on alpha');
    const reply = await a.client.v1.statuses.create({ status: `@${bAcct()} Hello back!`, inReplyToId: parent.id, visibility: 'public' });
    expect(reply.inReplyToAccountId).toBe(need(bOnAlpha, 'b on alpha').id);
    expect(reply.uri).toMatch(new RegExp(`^http://alpha\\.test/users/${a.me.username}/statuses/`));

    const context = await eventually(async () => {
      const c = await b.client.v1.statuses.$select(posts.public!.id).context.fetch();
      return c.descendants.length > 0 && c;
    }, 'a\'s reply in the thread on beta', HOP_MS);
    expect(context.descendants.map((s) => s.uri)).toEqual([reply.uri]);
    expect(context.descendants[0]!.account.acct).toBe(aAcct());
    expect(context.descendants[0]!.inReplyToId).toBe(posts.public!.id);

    const notified = await eventually(async () => {
      const list = await b.client.v1.notifications.list({ types: ['mention'] });
      return list.find((n) => n.status?.uri === reply.uri);
    }, 'b\'s mention notification on beta', HOP_MS);
    expect(notified.account.acct).toBe(aAcct());
  }, STEP_MS);

  it('a reply alpha never received reaches a when a opens the thread: alpha asks beta for it (Mastodon-Async-Refresh)', async () => {
    const parent = need(publicOnAlpha, 'b\'s public post on alpha');
    // Nobody on alpha follows c, so c's reply is never delivered there.
    const c = await newUser(need(beta, 'beta').baseUrl, 'c');
    const unseen = await c.client.v1.statuses.create({ status: 'A reply from someone alpha does not know', inReplyToId: posts.public!.id, visibility: 'public' });
    const contextOnAlpha = () => fetch(`${need(alpha, 'alpha').baseUrl}/api/v1/statuses/${parent.id}/context`, { headers: { authorization: `Bearer ${a.token}` } });

    const opened = await contextOnAlpha();
    expect(opened.status).toBe(200);
    expect(((await opened.json()) as { descendants: { uri: string }[] }).descendants.map((s) => s.uri)).not.toContain(unseen.uri);
    const header = opened.headers.get('mastodon-async-refresh') ?? '';
    const refreshId = /^id="([^"]+)", retry=3, result_count=0$/.exec(header)?.[1];
    expect(refreshId).toBeDefined();

    const finished = await eventually(async () => {
      const res = await fetch(`${need(alpha, 'alpha').baseUrl}/api/v1_alpha/async_refreshes/${refreshId}`, { headers: { authorization: `Bearer ${a.token}` } });
      const body = (await res.json()) as { async_refresh: { status: string; result_count: number } };
      return body.async_refresh.status === 'finished' && body.async_refresh;
    }, 'the refresh finished on alpha', HOP_MS);
    expect(finished.result_count).toBeGreaterThanOrEqual(1);

    const context = await a.client.v1.statuses.$select(parent.id).context.fetch();
    const fetched = byUri(context.descendants, unseen.uri);
    expect(fetched?.account.acct).toBe(`${c.me.username}@${BETA.publicHost}`);
    expect(fetched?.inReplyToId).toBe(parent.id);
  }, STEP_MS);

  it('a quotes b\'s public post: beta approves it (FEP-044f), the quote shows accepted on alpha, b is notified', async () => {
    const quoted = need(publicOnAlpha, 'b\'s public post on alpha');
    expect(quoted.quoteApproval).toMatchObject({ automatic: ['public'], currentUser: 'automatic' });
    const quoting = await a.client.v1.statuses.create({ status: 'Worth reading', quotedStatusId: quoted.id, visibility: 'public' });
    // A quote of another server's status waits for its approval.
    expect(quoting.quote).toMatchObject({ state: 'pending' });

    const accepted = await eventually(async () => {
      const s = await a.client.v1.statuses.$select(quoting.id).fetch();
      return s.quote?.state === 'accepted' && s;
    }, 'the quote accepted on alpha', HOP_MS);
    expect(accepted.quote).toMatchObject({ state: 'accepted', quotedStatus: { id: quoted.id, uri: posts.public!.uri } });

    const notified = await eventually(async () => {
      const list = await b.client.v1.notifications.list({ types: ['quote' as never] });
      return list.find((n) => n.status?.uri === quoting.uri);
    }, 'b\'s quote notification on beta', HOP_MS);
    expect(notified.account.acct).toBe(aAcct());
    const original = await b.client.v1.statuses.$select(posts.public!.id).fetch();
    expect(original.quotesCount).toBe(1);
  }, STEP_MS);

  it('b creates a collection featuring d of beta; a sees it among b\'s collections on alpha (Mastodon 4.6)', async () => {
    const betaUrl = need(beta, 'beta').baseUrl;
    const d = await newUser(betaUrl, 'd');
    await d.client.v1.accounts.updateCredentials({ discoverable: true });
    // masto has no collections API yet: the routes as Mastodon 4.6 has them.
    const created = await fetch(`${betaUrl}/api/v1/collections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'People worth following', description: 'My favourites', sensitive: false, discoverable: true, account_ids: [d.me.id] }),
    });
    expect(created.status).toBe(200);
    const { collection } = (await created.json()) as { collection: { uri: string } };

    type Listed = { uri: string; name: string; description: string; local: boolean; items: { account_id?: string; state: string }[] };
    const onAlpha = await eventually(async () => {
      const res = await fetch(`${need(alpha, 'alpha').baseUrl}/api/v1/accounts/${need(bOnAlpha, 'b on alpha').id}/collections`, { headers: { authorization: `Bearer ${a.token}` } });
      const body = (await res.json()) as { collections: Listed[] };
      return body.collections.find((c) => c.uri === collection.uri);
    }, 'b\'s collection on alpha', HOP_MS);
    expect(onAlpha).toMatchObject({ name: 'People worth following', description: 'My favourites', local: false });
    expect(onAlpha.items).toHaveLength(1);
    const featured = await a.client.v1.accounts.$select(onAlpha.items[0]!.account_id!).fetch();
    expect(featured.acct).toBe(`${d.me.username}@${BETA.publicHost}`);
  }, STEP_MS);

  it('b deletes a post; it disappears for a', async () => {
    const gone = need(publicOnAlpha, 'b\'s public post on alpha');
    await b.client.v1.statuses.$select(posts.public!.id).remove();
    await eventually(
      () => a.client.v1.statuses.$select(gone.id).fetch().then(() => false, (err: unknown) => notFound(err)),
      'the status gone on alpha',
      HOP_MS,
    );
    expect(byUri(await home(), posts.public!.uri)).toBeUndefined();
    expect(byUri(await a.client.v1.timelines.public.list({ remote: true, limit: 40 }), posts.public!.uri)).toBeUndefined();
    await arrival(() => userStream.some((e) => e.event === 'delete' && e.id === gone.id), 'the delete on the user stream', HOP_MS);
    await arrival(() => remoteStream.some((e) => e.event === 'delete' && e.id === gone.id), 'the delete on public:remote', HOP_MS);
  }, STEP_MS);

  it('b changes the display name; a sees the new one', async () => {
    const target = need(bOnAlpha, 'b on alpha');
    await b.client.v1.accounts.updateCredentials({ displayName: 'Bee Renamed' });
    const renamed = await eventually(async () => {
      const account = await a.client.v1.accounts.$select(target.id).fetch();
      return account.displayName === 'Bee Renamed' && account;
    }, 'the new display name on alpha', HOP_MS);
    expect(renamed).toMatchObject({ id: target.id, acct: bAcct() });
  }, STEP_MS);

  it('a unfollows; b\'s next post does not reach a', async () => {
    const target = need(bOnAlpha, 'b on alpha');
    const follower = need(aOnBeta, 'a on beta');
    const rel = await a.client.v1.accounts.$select(target.id).unfollow();
    expect(rel.following).toBe(false);
    await eventually(async () => {
      const [r] = await b.client.v1.accounts.relationships.fetch({ id: [follower.id] });
      return r?.followedBy === false;
    }, 'the Undo(Follow) on beta', HOP_MS);

    const after = await b.client.v1.statuses.create({ status: 'After the unfollow', visibility: 'public' });
    // A direct mention still reaches a: once it has arrived, the public post would have too.
    const control = await b.client.v1.statuses.create({ status: `@${aAcct()} one more thing`, visibility: 'direct' });
    await eventually(async () => {
      const list = await a.client.v1.notifications.list({ types: ['mention'] });
      return list.some((n) => n.status?.uri === control.uri);
    }, 'the direct mention on alpha (the control)', HOP_MS);
    expect(byUri(await home(), after.uri)).toBeUndefined();
    expect(byUri(await a.client.v1.timelines.public.list({ remote: true, limit: 40 }), after.uri)).toBeUndefined();
    expect(userStream.some((e) => e.uri === after.uri)).toBe(false);
  }, STEP_MS);
});
