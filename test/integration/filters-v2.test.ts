// Filters v2 (issue 14): /api/v2/filters with keywords and statuses, v1 filters as views
// of the same data (both ways, and items stored before v2), `status.filtered`
// (FilterResult) on the reads of each context, and `hide` dropping a status for the
// viewer on home (fan-out and read), public, threads, accounts and notifications.
import { z } from 'zod';
import { handler as v1Create } from '../../functions/filters/create';
import { handler as v1Index } from '../../functions/filters/index';
import { handler as v1Update } from '../../functions/filters/update';
import { handler as v1Delete } from '../../functions/filters/delete';
import { handler as v2Index } from '../../functions/filters/v2_index';
import { handler as v2Create } from '../../functions/filters/v2_create';
import { handler as v2Show } from '../../functions/filters/v2_show';
import { handler as v2Update } from '../../functions/filters/v2_update';
import { handler as v2Delete } from '../../functions/filters/v2_delete';
import { handler as keywordsIndex } from '../../functions/filters/keywords_index';
import { handler as keywordsCreate } from '../../functions/filters/keywords_create';
import { handler as keywordShow } from '../../functions/filters/keyword_show';
import { handler as keywordUpdate } from '../../functions/filters/keyword_update';
import { handler as keywordDelete } from '../../functions/filters/keyword_delete';
import { handler as statusesIndex } from '../../functions/filters/statuses_index';
import { handler as statusesCreate } from '../../functions/filters/statuses_create';
import { handler as statusShow } from '../../functions/filters/status_show';
import { handler as statusDelete } from '../../functions/filters/status_delete';
import { handler as homeHandler } from '../../functions/timelines/home';
import { handler as publicHandler } from '../../functions/timelines/public';
import { handler as contextHandler } from '../../functions/statuses/context';
import { handler as accountStatusesHandler } from '../../functions/accounts/statuses';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { hideFiltersOf } from '../../lib/db/filters';
import * as keys from '../../lib/db/keys';
import { putItem, queryAll, updateItem } from '../../lib/db/table';
import { registerInlineWorker } from '../../lib/queue';
import { aFollow, anAppToken, aPostedReblog, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

// X-Db-Calls on every answer: the cost of the reads is part of what is tested.
process.env.EXPOSE_METRICS = '1';
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

type Json = Record<string, unknown>;
const at = (path: string, id?: string) => ({ path, ...(id === undefined ? {} : { pathParameters: { id } }) });

const api = {
  list: (t: string | undefined) => call(v2Index, { method: 'GET', ...at('/api/v2/filters'), token: t }),
  create: (t: string | undefined, json: unknown) => call(v2Create, { method: 'POST', ...at('/api/v2/filters'), json, token: t }),
  show: (t: string | undefined, id: string) => call(v2Show, { method: 'GET', ...at(`/api/v2/filters/${id}`, id), token: t }),
  update: (t: string | undefined, id: string, json: unknown) => call(v2Update, { method: 'PUT', ...at(`/api/v2/filters/${id}`, id), json, token: t }),
  remove: (t: string | undefined, id: string) => call(v2Delete, { method: 'DELETE', ...at(`/api/v2/filters/${id}`, id), token: t }),
  keywords: (t: string | undefined, id: string) => call(keywordsIndex, { method: 'GET', ...at(`/api/v2/filters/${id}/keywords`, id), token: t }),
  addKeyword: (t: string | undefined, id: string, json: unknown) => call(keywordsCreate, { method: 'POST', ...at(`/api/v2/filters/${id}/keywords`, id), json, token: t }),
  keyword: (t: string | undefined, id: string) => call(keywordShow, { method: 'GET', ...at(`/api/v2/filters/keywords/${id}`, id), token: t }),
  changeKeyword: (t: string | undefined, id: string, json: unknown) => call(keywordUpdate, { method: 'PUT', ...at(`/api/v2/filters/keywords/${id}`, id), json, token: t }),
  removeKeyword: (t: string | undefined, id: string) => call(keywordDelete, { method: 'DELETE', ...at(`/api/v2/filters/keywords/${id}`, id), token: t }),
  statuses: (t: string | undefined, id: string) => call(statusesIndex, { method: 'GET', ...at(`/api/v2/filters/${id}/statuses`, id), token: t }),
  addStatus: (t: string | undefined, id: string, json: unknown) => call(statusesCreate, { method: 'POST', ...at(`/api/v2/filters/${id}/statuses`, id), json, token: t }),
  status: (t: string | undefined, id: string) => call(statusShow, { method: 'GET', ...at(`/api/v2/filters/statuses/${id}`, id), token: t }),
  removeStatus: (t: string | undefined, id: string) => call(statusDelete, { method: 'DELETE', ...at(`/api/v2/filters/statuses/${id}`, id), token: t }),
  v1List: (t: string | undefined) => call(v1Index, { method: 'GET', ...at('/api/v1/filters'), token: t }),
  v1Create: (t: string | undefined, json: unknown) => call(v1Create, { method: 'POST', ...at('/api/v1/filters'), json, token: t }),
  v1Update: (t: string | undefined, id: string, json: unknown) => call(v1Update, { method: 'PUT', ...at(`/api/v1/filters/${id}`, id), json, token: t }),
  v1Remove: (t: string | undefined, id: string) => call(v1Delete, { method: 'DELETE', ...at(`/api/v1/filters/${id}`, id), token: t }),
};

const ok = (res: Answer): Json => {
  expect([res.status, res.body?.error]).toEqual([200, undefined]);
  return res.body as Json;
};

/** Every item of the account's filter partition (filters, keywords, statuses), raw. */
const partition = (accountId: string) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.filtersPartition(accountId) } }, z.record(z.unknown()));

const removeAll = async (user: UserFixture) => {
  for (const f of ok(await api.list(user.token)) as unknown as Json[]) ok(await api.remove(user.token, String(f.id)));
};

describe('filters v2: CRUD', () => {
  let user: UserFixture;
  let other: UserFixture;
  beforeAll(async () => {
    [user, other] = await Promise.all([aUser(), aUser()]);
  });
  afterEach(() => removeAll(user));

  it('creates a filter with keywords, shows and lists it, changes it through keywords_attributes, and deletes it with its items', async () => {
    const created = ok(
      await api.create(user.token, {
        title: ' Spoilers ',
        context: ['home', 'public'],
        filter_action: 'hide',
        expires_in: 3600,
        keywords_attributes: [{ keyword: 'ending', whole_word: false }, { keyword: 'plot twist' }, { keyword: '', whole_word: false }],
      }),
    );
    expect(created).toEqual({
      id: expect.stringMatching(/^\d+$/),
      title: 'Spoilers',
      context: ['home', 'public'],
      expires_at: expect.any(String),
      filter_action: 'hide',
      keywords: [
        { id: expect.stringMatching(/^\d+$/), keyword: 'ending', whole_word: false },
        { id: expect.stringMatching(/^\d+$/), keyword: 'plot twist', whole_word: true },
      ],
      statuses: [],
    });
    const id = String(created.id);
    expect(ok(await api.show(user.token, id))).toEqual(created);
    expect(ok(await api.list(user.token))).toEqual([created]);
    expect(ok(await api.list(other.token))).toEqual([]);

    const [ending, twist] = created.keywords as Json[];
    const changed = ok(
      await api.update(user.token, id, {
        title: 'Show spoilers',
        context: ['thread'],
        filter_action: 'warn',
        expires_in: '',
        keywords_attributes: [{ id: ending!.id, keyword: 'finale' }, { id: twist!.id, _destroy: true }, { keyword: 'reveal', whole_word: 'false' }],
      }),
    );
    expect(changed).toEqual({
      id,
      title: 'Show spoilers',
      context: ['thread'],
      expires_at: null,
      filter_action: 'warn',
      keywords: [{ id: ending!.id, keyword: 'finale', whole_word: false }, { id: expect.stringMatching(/^\d+$/), keyword: 'reveal', whole_word: false }],
      statuses: [],
    });
    expect(ok(await api.show(user.token, id))).toEqual(changed);
    // A filter item and two keyword items: the destroyed keyword is gone from the table.
    expect(await partition(user.account.id)).toHaveLength(3);

    expect(ok(await api.remove(user.token, id))).toEqual({});
    expect((await api.show(user.token, id)).status).toBe(404);
    expect(await partition(user.account.id)).toEqual([]);
  });

  it('takes keywords_attributes as a form (Rails bracket notation) too', async () => {
    const res = await call(v2Create, {
      method: 'POST',
      path: '/api/v2/filters',
      body: { data: 'title=Cats&context[]=notifications&keywords_attributes[][keyword]=cat&keywords_attributes[][whole_word]=false', contentType: 'application/x-www-form-urlencoded' },
      token: user.token,
    });
    expect(ok(res)).toMatchObject({ title: 'Cats', context: ['notifications'], filter_action: 'warn', expires_at: null, keywords: [{ keyword: 'cat', whole_word: false }] });
  });

  it('manages keywords and statuses through their own endpoints', async () => {
    const filter = ok(await api.create(user.token, { title: 'Noise', context: ['home'] }));
    const id = String(filter.id);
    expect(filter.keywords).toEqual([]);

    const added = ok(await api.addKeyword(user.token, id, { keyword: ' crypto ' }));
    expect(added).toEqual({ id: expect.stringMatching(/^\d+$/), keyword: 'crypto', whole_word: true });
    const kid = String(added.id);
    expect(ok(await api.keyword(user.token, kid))).toEqual(added);
    expect(ok(await api.keywords(user.token, id))).toEqual([added]);
    const renamed = ok(await api.changeKeyword(user.token, kid, { keyword: 'nft', whole_word: false }));
    expect(renamed).toEqual({ id: kid, keyword: 'nft', whole_word: false });
    expect((ok(await api.show(user.token, id)).keywords as Json[])).toEqual([renamed]);

    const post = await aPostedStatus(other.account, { text: 'buy my thing' });
    const statusFilter = ok(await api.addStatus(user.token, id, { status_id: post.id }));
    expect(statusFilter).toEqual({ id: expect.stringMatching(/^\d+$/), status_id: post.id });
    const sid = String(statusFilter.id);
    expect(ok(await api.status(user.token, sid))).toEqual(statusFilter);
    expect(ok(await api.statuses(user.token, id))).toEqual([statusFilter]);
    expect(ok(await api.show(user.token, id)).statuses).toEqual([statusFilter]);

    expect(ok(await api.removeKeyword(user.token, kid))).toEqual({});
    expect((await api.keyword(user.token, kid)).status).toBe(404);
    expect(ok(await api.removeStatus(user.token, sid))).toEqual({});
    expect((await api.status(user.token, sid)).status).toBe(404);
    expect(ok(await api.show(user.token, id))).toMatchObject({ keywords: [], statuses: [] });
    expect(await partition(user.account.id)).toHaveLength(1);
  });
});

describe('filters v1 and v2 are views of the same data', () => {
  let user: UserFixture;
  beforeAll(async () => {
    user = await aUser();
  });
  afterEach(() => removeAll(user));

  it('a v1 filter is a v2 filter of one keyword with the same id, and v2 keywords are v1 filters', async () => {
    const v1 = ok(await api.v1Create(user.token, { phrase: 'dune', context: ['home', 'thread'], irreversible: true, whole_word: false }));
    const v2 = ok(await api.list(user.token)) as unknown as Json[];
    expect(v2).toEqual([
      { id: v1.id, title: 'dune', context: ['home', 'thread'], expires_at: null, filter_action: 'hide', keywords: [{ id: v1.id, keyword: 'dune', whole_word: false }], statuses: [] },
    ]);

    const multi = ok(await api.create(user.token, { title: 'Films', context: ['public'], keywords_attributes: [{ keyword: 'alien' }, { keyword: 'heat', whole_word: false }] }));
    const [alien, heat] = multi.keywords as Json[];
    const v1s = ok(await api.v1List(user.token)) as unknown as Json[];
    expect(v1s).toEqual([
      v1,
      { id: alien!.id, phrase: 'alien', context: ['public'], whole_word: true, expires_at: null, irreversible: false },
      { id: heat!.id, phrase: 'heat', context: ['public'], whole_word: false, expires_at: null, irreversible: false },
    ]);

    // v1 may change a keyword of a shared filter, not the filter's settings (Mastodon's deprecated_api_multiple_keywords).
    expect(ok(await api.v1Update(user.token, String(heat!.id), { phrase: 'ronin' }))).toMatchObject({ id: heat!.id, phrase: 'ronin', context: ['public'] });
    const refused = await api.v1Update(user.token, String(heat!.id), { context: ['home'] });
    expect([refused.status, refused.body]).toEqual([422, { error: expect.stringMatching(/more than one filter keyword/) }]);
    expect(ok(await api.show(user.token, String(multi.id))).keywords).toEqual([alien, { ...heat, keyword: 'ronin' }]);

    // A v2 change shows through v1; deleting one v1 filter leaves the filter's other keyword.
    ok(await api.update(user.token, String(multi.id), { filter_action: 'hide', context: ['home'] }));
    expect(ok(await api.v1List(user.token))).toContainEqual({ id: alien!.id, phrase: 'alien', context: ['home'], whole_word: true, expires_at: null, irreversible: true });
    ok(await api.v1Remove(user.token, String(alien!.id)));
    expect(ok(await api.show(user.token, String(multi.id))).keywords).toEqual([{ ...heat, keyword: 'ronin' }]);
    // The filter's last keyword deleted through v1 takes the filter with it.
    ok(await api.v1Remove(user.token, String(v1.id)));
    expect((await api.show(user.token, String(v1.id))).status).toBe(404);
  });

  it('reads a filter stored before v2 as one keyword, and rewrites it in the v2 shape on its first change', async () => {
    const id = '1099511627776001';
    await putItem({
      ...keys.filter(user.account.id, id),
      id,
      accountId: user.account.id,
      phrase: 'Legacy',
      context: ['home'],
      wholeWord: true,
      irreversible: true,
      expiresAt: null,
      createdAt: new Date().toISOString(),
    });
    const legacySummary = { accountId: user.account.id, readAt: 1, filters: [{ id, accountId: user.account.id, phrase: 'Legacy', context: ['home'], wholeWord: true, irreversible: true, expiresAt: null, createdAt: '' }] };
    await putItem({ ...keys.irreversibleFilters(user.account.id), ...legacySummary });
    expect((await hideFiltersOf([user.account.id])).get(user.account.id)).toEqual([{ id, context: ['home'], expiresAt: null, keywords: [{ keyword: 'Legacy', wholeWord: true }], statusIds: [] }]);

    expect(ok(await api.v1List(user.token))).toEqual([{ id, phrase: 'Legacy', context: ['home'], whole_word: true, expires_at: null, irreversible: true }]);
    expect(ok(await api.show(user.token, id))).toEqual({ id, title: 'Legacy', context: ['home'], expires_at: null, filter_action: 'hide', keywords: [{ id, keyword: 'Legacy', whole_word: true }], statuses: [] });

    const changed = ok(await api.update(user.token, id, { title: 'Old one', keywords_attributes: [{ keyword: 'older' }] }));
    expect(changed).toMatchObject({ id, title: 'Old one', keywords: [{ id, keyword: 'Legacy', whole_word: true }, { keyword: 'older' }] });
    const items = await partition(user.account.id);
    expect(items.map((i) => i.kind).sort()).toEqual(['filter', 'keyword', 'keyword']);
    expect(items.find((i) => i.kind === 'filter')).not.toHaveProperty('phrase');
    expect((await hideFiltersOf([user.account.id])).get(user.account.id)?.[0]?.keywords).toEqual([{ keyword: 'Legacy', wholeWord: true }, { keyword: 'older', wholeWord: true }]);
  });
});

describe('status.filtered and hide', () => {
  let reader: UserFixture;
  let author: UserFixture;
  let bystander: UserFixture;
  beforeAll(async () => {
    [reader, author, bystander] = await Promise.all([aUser({ username: 'fv2reader' }), aUser(), aUser()]);
    await aFollow(reader.account, author.account);
    await aFollow(bystander.account, author.account);
  });
  afterEach(() => removeAll(reader));

  const post = async (user: UserFixture, status: string, extra: Json = {}): Promise<string> => String(ok(await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status, ...extra }, token: user.token })).id);
  const home = async (user: UserFixture) => ok(await call(homeHandler, { method: 'GET', path: '/api/v1/timelines/home', query: { limit: '40' }, token: user.token })) as unknown as Json[];
  const publicTl = async (user: UserFixture) => ok(await call(publicHandler, { method: 'GET', path: '/api/v1/timelines/public', query: { limit: '40' }, token: user.token })) as unknown as Json[];
  const thread = async (user: UserFixture, id: string) => ok(await call(contextHandler, { method: 'GET', path: `/api/v1/statuses/${id}/context`, pathParameters: { id }, token: user.token })) as { ancestors: Json[]; descendants: Json[] };
  const profile = async (user: UserFixture, accountId: string) =>
    ok(await call(accountStatusesHandler, { method: 'GET', path: `/api/v1/accounts/${accountId}/statuses`, pathParameters: { id: accountId }, token: user.token })) as unknown as Json[];
  const notifiedStatuses = async (user: UserFixture) =>
    (ok(await call(notificationsHandler, { method: 'GET', path: '/api/v1/notifications', token: user.token })) as unknown as { status?: Json }[]).flatMap((n) => (n.status ? [n.status] : []));
  const byId = (list: Json[], id: string) => list.find((s) => s.id === id);

  it('a warn filter marks matching statuses with keyword_matches in every context it names, and nowhere else', async () => {
    const filter = ok(await api.create(reader.token, { title: 'Weather', context: ['home', 'public', 'thread', 'account'], keywords_attributes: [{ keyword: 'rain' }] }));
    const other = ok(await api.create(reader.token, { title: 'Only notifications', context: ['notifications'], keywords_attributes: [{ keyword: 'rain' }] }));
    const rainy = await post(author, 'Heavy RAIN today');
    const dry = await post(author, 'sunny today');
    const reply = await post(author, 'more rain here', { in_reply_to_id: dry });
    const own = await post(reader, 'my own rain');
    const expected = [{ filter: { id: filter.id, title: 'Weather', context: ['home', 'public', 'thread', 'account'], expires_at: null, filter_action: 'warn' }, keyword_matches: ['RAIN'], status_matches: null }];

    const h = await home(reader);
    expect(byId(h, rainy)?.filtered).toEqual(expected);
    expect(byId(h, dry)?.filtered).toEqual([]);
    expect(byId(h, own)?.filtered).toEqual([]);
    expect(byId(await publicTl(reader), rainy)?.filtered).toEqual(expected);
    expect(byId((await thread(reader, dry)).descendants, reply)?.filtered).toEqual([{ ...expected[0], keyword_matches: ['rain'] }]);
    expect(byId(await profile(reader, author.account.id), rainy)?.filtered).toEqual(expected);
    // Someone else's view is untouched.
    expect(byId(await publicTl(bystander), rainy)?.filtered).toEqual([]);
    expect(other.id).toBeDefined();

    // Expired: no longer marks.
    await updateItem({ Key: keys.filter(reader.account.id, String(filter.id)), UpdateExpression: 'SET expiresAt = :t', ExpressionAttributeValues: { ':t': new Date(Date.now() - 1000).toISOString() } }, z.unknown());
    expect(byId(await home(reader), rainy)?.filtered).toEqual([]);
  });

  it('a status filter marks that status and its reblogs with status_matches', async () => {
    const original = await aPostedStatus(bystander.account, { text: 'an ordinary post' });
    const reblog = await aPostedReblog(author.account, original);
    const filter = ok(await api.create(reader.token, { title: 'This one', context: ['public'] }));
    ok(await api.addStatus(reader.token, String(filter.id), { status_id: original.id }));
    const tl = await publicTl(reader);
    const result = { filter: expect.objectContaining({ id: filter.id, filter_action: 'warn' }), keyword_matches: null, status_matches: [original.id] };
    expect(byId(tl, original.id)?.filtered).toEqual([result]);
    // The account context is not one of the filter's yet.
    expect(byId(await profile(reader, author.account.id), reblog.id)?.filtered).toEqual([]);
    ok(await api.update(reader.token, String(filter.id), { context: ['public', 'account'] }));
    const shown = byId(await profile(reader, author.account.id), reblog.id)!;
    expect(shown.filtered).toEqual([{ ...result, status_matches: [original.id] }]);
    expect((shown.reblog as Json).filtered).toEqual([{ ...result, status_matches: [original.id] }]);
  });

  it('a hide filter keeps a matching status out of home at fan-out and drops it on read (home, public, thread, account)', async () => {
    const before = await post(author, 'the durian is ripe');
    expect(byId(await home(reader), before)).toBeDefined();
    const filter = ok(await api.create(reader.token, { title: 'Fruit', context: ['home', 'public', 'thread', 'account'], filter_action: 'hide', keywords_attributes: [{ keyword: 'durian' }] }));
    const after = await post(author, 'durian season again');
    const plain = await post(author, 'apples');
    const homeEntries = (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.homePartition(reader.account.id) } }, z.object({ statusId: z.string() }).passthrough())).map((e) => e.statusId);
    expect(homeEntries).not.toContain(after);
    expect(homeEntries).toContain(plain);
    const bystanderHome = await home(bystander);
    expect(bystanderHome.map((s) => s.id)).toEqual(expect.arrayContaining([before, after]));

    const h = (await home(reader)).map((s) => s.id);
    expect(h).toContain(plain);
    expect(h).not.toContain(before);
    const pub = (await publicTl(reader)).map((s) => s.id);
    expect(pub).toContain(plain);
    expect(pub).not.toContain(before);
    expect(pub).not.toContain(after);
    expect((await profile(reader, author.account.id)).map((s) => s.id)).not.toContain(after);
    const reply = await post(author, 'durian reply', { in_reply_to_id: plain });
    expect((await thread(reader, plain)).descendants.map((s) => s.id)).not.toContain(reply);
    expect((await thread(bystander, plain)).descendants.map((s) => s.id)).toContain(reply);

    // A status filter with hide drops that status too.
    ok(await api.update(reader.token, String(filter.id), { context: ['public'] }));
    ok(await api.addStatus(reader.token, String(filter.id), { status_id: plain }));
    expect((await publicTl(reader)).map((s) => s.id)).not.toContain(plain);
    expect((await home(reader)).map((s) => s.id)).toContain(plain);
  });

  it('a hide filter of notifications creates no notification about a match and drops older ones on read', async () => {
    const older = await post(author, '@fv2reader the kumquat question');
    expect((await notifiedStatuses(reader)).map((s) => s.id)).toContain(older);
    const filter = ok(await api.create(reader.token, { title: 'Kumquats', context: ['notifications'], filter_action: 'hide' }));
    ok(await api.addKeyword(reader.token, String(filter.id), { keyword: 'kumquat' }));
    const matching = await post(author, '@fv2reader kumquat again');
    const other = await post(author, '@fv2reader something else');
    const stored = (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.notificationsPartition(reader.account.id) } }, z.object({ statusId: z.string().nullable() }).passthrough())).map((n) => n.statusId);
    expect(stored).not.toContain(matching);
    expect(stored).toContain(other);
    const read = (await notifiedStatuses(reader)).map((s) => s.id);
    expect(read).toContain(other);
    expect(read).not.toContain(older);
    // warn instead: the notification comes back, marked.
    ok(await api.update(reader.token, String(filter.id), { filter_action: 'warn' }));
    const marked = (await notifiedStatuses(reader)).find((s) => s.id === older);
    expect(marked?.filtered).toEqual([expect.objectContaining({ keyword_matches: ['kumquat'], status_matches: null })]);
  });

  it('reads the viewer\'s filters with the same calls whether there are none or several (X-Db-Calls)', async () => {
    await post(author, 'cost probe');
    const without = await call(homeHandler, { method: 'GET', path: '/api/v1/timelines/home', token: reader.token });
    ok(await api.create(reader.token, { title: 'Probe', context: ['home'], keywords_attributes: [{ keyword: 'probe' }] }));
    ok(await api.create(reader.token, { title: 'Other', context: ['home', 'public'], filter_action: 'hide', keywords_attributes: [{ keyword: 'zzz' }, { keyword: 'yyy' }] }));
    const withFilters = await call(homeHandler, { method: 'GET', path: '/api/v1/timelines/home', token: reader.token });
    expect(without.headers['x-db-calls']).toMatch(/^\d+$/);
    expect(withFilters.headers['x-db-calls']).toBe(without.headers['x-db-calls']);
    expect(((withFilters.body as Json[])[0]!).filtered).toHaveLength(1);
    // The filter endpoints' reads: the token's checks, then one Query of the partition.
    const list = await api.list(reader.token);
    const one = await api.show(reader.token, String((list.body as Json[])[0]!.id));
    expect([list.headers['x-db-calls'], one.headers['x-db-calls']]).toEqual(['4', '4']);
  });
});

describe('bad input on every v2 filter endpoint', () => {
  let owner: UserFixture;
  let stranger: UserFixture;
  let filterId: string;
  let keywordId: string;
  let statusFilterId: string;
  let postId: string;
  let snapshot: Json;
  beforeAll(async () => {
    [owner, stranger] = await Promise.all([aUser(), aUser()]);
    postId = (await aPostedStatus(stranger.account, { text: 'a post' })).id;
    const created = ok(await api.create(owner.token, { title: 'Audited', context: ['home'], keywords_attributes: [{ keyword: 'audit' }] }));
    filterId = String(created.id);
    keywordId = String((created.keywords as Json[])[0]!.id);
    statusFilterId = String(ok(await api.addStatus(owner.token, filterId, { status_id: postId })).id);
    snapshot = ok(await api.show(owner.token, filterId));
  });
  const unchanged = async () => expect(ok(await api.list(owner.token))).toEqual([snapshot]);

  const long = 'x'.repeat(513);
  type Case = [string, () => Promise<Answer>, number, RegExp?];
  const cases: Case[] = [
    ['create without title', () => api.create(owner.token, { context: ['home'] }), 422, /Title can't be blank/],
    ['create with a blank title', () => api.create(owner.token, { title: '  ', context: ['home'] }), 422, /Title can't be blank/],
    ['create without context', () => api.create(owner.token, { title: 't' }), 422, /Context can't be blank/],
    ['create with a bad context', () => api.create(owner.token, { title: 't', context: ['home', 'nowhere'] }), 422, /invalid context/],
    ['create with a bad filter_action', () => api.create(owner.token, { title: 't', context: ['home'], filter_action: 'explode' }), 422, /filter_action must be one of warn, hide/],
    ['create with a title too long', () => api.create(owner.token, { title: long, context: ['home'] }), 422, /too long/],
    ['create with a keyword too long', () => api.create(owner.token, { title: 't', context: ['home'], keywords_attributes: [{ keyword: long }] }), 422, /too long/],
    ['create with a blank keyword that is not all blank', () => api.create(owner.token, { title: 't', context: ['home'], keywords_attributes: [{ keyword: ' ', whole_word: true }] }), 422, /Keywords keyword can't be blank/],
    ['create with keywords_attributes not a list', () => api.create(owner.token, { title: 't', context: ['home'], keywords_attributes: 'cat' }), 422, /must be an array/],
    ['create with a negative expires_in', () => api.create(owner.token, { title: 't', context: ['home'], expires_in: -1 }), 422, /must be positive/],
    ['create with too many keyword entries', () => api.create(owner.token, { title: 't', context: ['home'], keywords_attributes: Array.from({ length: 51 }, (_, i) => ({ keyword: `k${i}` })) }), 422, /too long/],
    ['show of a stranger', () => api.show(stranger.token, filterId), 404],
    ['show of a malformed id', () => api.show(owner.token, 'abc'), 404],
    ['show of an unknown id', () => api.show(owner.token, '123456789'), 404],
    ['update of a stranger', () => api.update(stranger.token, filterId, { title: 'mine now' }), 404],
    ['update with a blank title', () => api.update(owner.token, filterId, { title: ' ' }), 422, /Title can't be blank/],
    ['update with an empty context', () => api.update(owner.token, filterId, { context: [] }), 422, /invalid context/],
    ['update of a keyword of another filter', () => api.update(owner.token, filterId, { keywords_attributes: [{ id: '123456789', keyword: 'x' }] }), 404],
    ['update with a keyword id that is an object', () => api.update(owner.token, filterId, { keywords_attributes: [{ id: { a: 1 }, keyword: 'x' }] }), 422],
    ['delete of a stranger', () => api.remove(stranger.token, filterId), 404],
    ['keywords of a stranger', () => api.keywords(stranger.token, filterId), 404],
    ['add a keyword to a stranger\'s filter', () => api.addKeyword(stranger.token, filterId, { keyword: 'x' }), 404],
    ['add a blank keyword', () => api.addKeyword(owner.token, filterId, { keyword: '' }), 422, /Keyword can't be blank/],
    ['add a keyword too long', () => api.addKeyword(owner.token, filterId, { keyword: long }), 422, /too long/],
    ['add a keyword with a bad whole_word', () => api.addKeyword(owner.token, filterId, { keyword: 'x', whole_word: 'perhaps' }), 422, /whole_word must be a boolean/],
    ['keyword of a stranger', () => api.keyword(stranger.token, keywordId), 404],
    ['keyword of a malformed id', () => api.keyword(owner.token, '-1'), 404],
    ['update a keyword of a stranger', () => api.changeKeyword(stranger.token, keywordId, { keyword: 'x' }), 404],
    ['update a keyword to blank', () => api.changeKeyword(owner.token, keywordId, { keyword: ' ' }), 422, /Keyword can't be blank/],
    ['delete a keyword of a stranger', () => api.removeKeyword(stranger.token, keywordId), 404],
    ['statuses of a stranger', () => api.statuses(stranger.token, filterId), 404],
    ['add a status to a stranger\'s filter', () => api.addStatus(stranger.token, filterId, { status_id: postId }), 404],
    ['add no status', () => api.addStatus(owner.token, filterId, {}), 422, /Status can't be blank/],
    ['add an unknown status', () => api.addStatus(owner.token, filterId, { status_id: '123456789' }), 422, /Status must exist/],
    ['add a malformed status id', () => api.addStatus(owner.token, filterId, { status_id: 'abc' }), 422, /Status must exist/],
    ['add the same status twice', () => api.addStatus(owner.token, filterId, { status_id: postId }), 422, /already been taken/],
    ['status filter of a stranger', () => api.status(stranger.token, statusFilterId), 404],
    ['delete a status filter of a stranger', () => api.removeStatus(stranger.token, statusFilterId), 404],
    ['delete an unknown status filter', () => api.removeStatus(owner.token, '123456789'), 404],
  ];

  // Every row has its four cells (jest would pass `done` in place of a missing one).
  it.each(cases.map(([name, run, status, message]) => [name, run, status, message ?? null] as const))('%s answers an error and changes nothing', async (_name, run, status, message) => {
    const res = await run();
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: message ? expect.stringMatching(message) : expect.any(String) });
    await unchanged();
  });

  // The good twins: the same requests, well formed, from the owner, succeed.
  it('the good twins of those requests succeed', async () => {
    const made = ok(await api.create(owner.token, { title: 't', context: ['home', 'account'], filter_action: 'hide', keywords_attributes: [{ keyword: 'x'.repeat(512) }] }));
    ok(await api.update(owner.token, String(made.id), { title: 'u', keywords_attributes: [{ id: (made.keywords as Json[])[0]!.id, keyword: 'y' }] }));
    const kw = ok(await api.addKeyword(owner.token, String(made.id), { keyword: 'x', whole_word: 'false' }));
    ok(await api.changeKeyword(owner.token, String(kw.id), { keyword: 'z' }));
    ok(await api.addStatus(owner.token, String(made.id), { status_id: postId }));
    ok(await api.show(owner.token, filterId));
    ok(await api.keyword(owner.token, keywordId));
    ok(await api.status(owner.token, statusFilterId));
    ok(await api.remove(owner.token, String(made.id)));
    await unchanged();
  });

  const endpoints: [string, 'read' | 'write', (t: string | undefined) => Promise<Answer>][] = [
    ['GET /api/v2/filters', 'read', (t) => api.list(t)],
    ['POST /api/v2/filters', 'write', (t) => api.create(t, { title: 'x', context: ['home'] })],
    ['GET /api/v2/filters/:id', 'read', (t) => api.show(t, filterId)],
    ['PUT /api/v2/filters/:id', 'write', (t) => api.update(t, filterId, { title: 'x' })],
    ['DELETE /api/v2/filters/:id', 'write', (t) => api.remove(t, filterId)],
    ['GET /api/v2/filters/:id/keywords', 'read', (t) => api.keywords(t, filterId)],
    ['POST /api/v2/filters/:id/keywords', 'write', (t) => api.addKeyword(t, filterId, { keyword: 'x' })],
    ['GET /api/v2/filters/keywords/:id', 'read', (t) => api.keyword(t, keywordId)],
    ['PUT /api/v2/filters/keywords/:id', 'write', (t) => api.changeKeyword(t, keywordId, { keyword: 'x' })],
    ['DELETE /api/v2/filters/keywords/:id', 'write', (t) => api.removeKeyword(t, keywordId)],
    ['GET /api/v2/filters/:id/statuses', 'read', (t) => api.statuses(t, filterId)],
    ['POST /api/v2/filters/:id/statuses', 'write', (t) => api.addStatus(t, filterId, { status_id: postId })],
    ['GET /api/v2/filters/statuses/:id', 'read', (t) => api.status(t, statusFilterId)],
    ['DELETE /api/v2/filters/statuses/:id', 'write', (t) => api.removeStatus(t, statusFilterId)],
  ];

  it.each(endpoints)('%s refuses no token (401), an app token (422) and the opposite scope (403); the right scope passes', async (_name, kind, run) => {
    const opposite = await aUser({ scopes: kind === 'read' ? ['write:filters', 'read:statuses'] : ['read:filters', 'write:statuses'] });
    const app = await anAppToken(['read', 'write']);
    const answers = [await run(undefined), await run('not-a-token'), await run(app.token), await run(opposite.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    await unchanged();
    // The right scope, parent or specific, gets past the check: a user without filters sees 404 on ids, 200 on lists and creates.
    const right = await aUser({ scopes: [kind] });
    expect([200, 404]).toContain((await run(right.token)).status);
    await unchanged();
  });
});
