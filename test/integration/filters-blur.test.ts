// Mastodon 4.4's filter action `blur`: accepted by POST/PUT /api/v2/filters, stored and rendered as
// `filter_action: "blur"`, and applied as `warn` is (Mastodon's server acts only on `hide`): the status stays in
// every context the filter names, carrying its FilterResult, so that the client blurs it.
import { handler as v1Index } from '../../functions/filters/index';
import { handler as v1Update } from '../../functions/filters/update';
import { handler as v2Create } from '../../functions/filters/v2_create';
import { handler as v2Index } from '../../functions/filters/v2_index';
import { handler as v2Show } from '../../functions/filters/v2_show';
import { handler as v2Update } from '../../functions/filters/v2_update';
import { handler as homeHandler } from '../../functions/timelines/home';
import { handler as publicHandler } from '../../functions/timelines/public';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { filtersOfAccount } from '../../lib/db/filters';
import { registerInlineWorker } from '../../lib/queue';
import { hiddenByFilter } from '../../lib/streaming/render';
import { aFollow, anAppToken, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

type Json = Record<string, unknown>;
const create = (t: string | undefined, json: unknown) => call(v2Create, { method: 'POST', path: '/api/v2/filters', json, token: t });
const update = (t: string | undefined, id: string, json: unknown) => call(v2Update, { method: 'PUT', path: `/api/v2/filters/${id}`, pathParameters: { id }, json, token: t });
const show = (t: string, id: string) => call(v2Show, { path: `/api/v2/filters/${id}`, pathParameters: { id }, token: t });
const list = (t: string) => call(v2Index, { path: '/api/v2/filters', token: t });
const ok = (res: Answer): Json => {
  expect([res.status, res.body?.error]).toEqual([200, undefined]);
  return res.body as Json;
};

describe('filter_action blur', () => {
  let user: UserFixture;
  beforeAll(async () => {
    user = await aUser();
  });

  it('is accepted on create (JSON and form), stored, and rendered by show, the list and v1 (not irreversible)', async () => {
    const made = ok(await create(user.token, { title: 'Spiders', context: ['home', 'public'], filter_action: 'blur', keywords_attributes: [{ keyword: 'spider' }] }));
    expect(made).toMatchObject({ title: 'Spiders', filter_action: 'blur', context: ['home', 'public'] });
    expect((await filtersOfAccount(user.account.id)).find((f) => f.id === made.id)?.action).toBe('blur');
    expect(ok(await show(user.token, String(made.id)))).toMatchObject({ filter_action: 'blur' });
    expect((ok(await list(user.token)) as unknown as Json[]).find((f) => f.id === made.id)).toMatchObject({ filter_action: 'blur' });
    const form = await call(v2Create, {
      method: 'POST',
      path: '/api/v2/filters',
      body: { data: 'title=Wasps&context[]=thread&filter_action=blur&keywords_attributes[][keyword]=wasp', contentType: 'application/x-www-form-urlencoded' },
      token: user.token,
    });
    expect(ok(form)).toMatchObject({ title: 'Wasps', filter_action: 'blur' });
    // v1 sees a blur filter as a reversible one (Mastodon's irreversible is hide alone).
    const v1 = (ok(await call(v1Index, { path: '/api/v1/filters', token: user.token })) as unknown as Json[]).find((f) => f.phrase === 'spider');
    expect(v1).toMatchObject({ phrase: 'spider', irreversible: false });
    // A v1 change that does not name irreversible keeps the blur.
    ok(await call(v1Update, { method: 'PUT', path: `/api/v1/filters/${String(v1!.id)}`, pathParameters: { id: String(v1!.id) }, json: { phrase: 'spiders' }, token: user.token }));
    expect(ok(await show(user.token, String(made.id)))).toMatchObject({ filter_action: 'blur', keywords: [expect.objectContaining({ keyword: 'spiders' })] });
  });

  it('is accepted on update, from warn to blur, to hide and back', async () => {
    const made = ok(await create(user.token, { title: 'Moths', context: ['home'], keywords_attributes: [{ keyword: 'moth' }] }));
    expect(made.filter_action).toBe('warn');
    for (const action of ['blur', 'hide', 'blur']) expect(ok(await update(user.token, String(made.id), { filter_action: action })).filter_action).toBe(action);
    // Leaving filter_action out keeps it.
    expect(ok(await update(user.token, String(made.id), { title: 'Moths!' }))).toMatchObject({ title: 'Moths!', filter_action: 'blur' });
  });

  it('an action Mastodon does not know is 422 naming filter_action, on create and update, and changes nothing', async () => {
    const bad = await create(user.token, { title: 'Bad', context: ['home'], filter_action: 'shout' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/filter_action/);
    expect(bad.body.error).toMatch(/warn, hide, blur/);
    const made = ok(await create(user.token, { title: 'Kept', context: ['home'], filter_action: 'blur' }));
    const refused = await update(user.token, String(made.id), { filter_action: 'Blur ' });
    expect([refused.status, refused.body.error]).toEqual([422, expect.stringMatching(/filter_action/)]);
    expect(ok(await show(user.token, String(made.id))).filter_action).toBe('blur');
  });

  it('an unknown or someone else’s filter is 404 on update, and the wrong scope 403', async () => {
    const made = ok(await create(user.token, { title: 'Mine', context: ['home'], filter_action: 'blur' }));
    const other = await aUser();
    expect((await update(other.token, String(made.id), { filter_action: 'hide' })).status).toBe(404);
    expect((await update(user.token, '99999999999', { filter_action: 'blur' })).status).toBe(404);
    expect(ok(await show(user.token, String(made.id))).filter_action).toBe('blur');
    const readOnly = await aUser({ scopes: ['read'] });
    const app = await anAppToken(['read', 'write']);
    const answers = [await create(undefined, { title: 'x', context: ['home'], filter_action: 'blur' }), await create(app.token, { title: 'x', context: ['home'], filter_action: 'blur' }), await create(readOnly.token, { title: 'x', context: ['home'], filter_action: 'blur' })];
    expect(answers.map((r) => r.status)).toEqual([401, 422, 403]);
    expect(await filtersOfAccount(readOnly.account.id)).toEqual([]);
  });
});

describe('a blur filter applied', () => {
  let reader: UserFixture;
  let author: UserFixture;
  beforeAll(async () => {
    [reader, author] = await Promise.all([aUser({ username: 'blurreader' }), aUser()]);
    await aFollow(reader.account, author.account);
  });

  const post = async (status: string) => String(ok(await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status }, token: author.token })).id);
  const byId = (list: Json[], id: string) => list.find((s) => s.id === id);

  it('keeps the matching status on home, public and notifications, carrying its FilterResult, as warn does', async () => {
    const filter = ok(await create(reader.token, { title: 'Storms', context: ['home', 'public', 'notifications'], filter_action: 'blur', keywords_attributes: [{ keyword: 'storm' }] }));
    const stormy = await post('A STORM is coming @blurreader');
    const calm = await post('calm seas');
    const expected = [{ filter: { id: filter.id, title: 'Storms', context: ['home', 'public', 'notifications'], expires_at: null, filter_action: 'blur' }, keyword_matches: ['STORM'], status_matches: null }];

    const home = ok(await call(homeHandler, { path: '/api/v1/timelines/home', token: reader.token })) as unknown as Json[];
    expect(byId(home, stormy)?.filtered).toEqual(expected);
    expect(byId(home, calm)?.filtered).toEqual([]);
    const pub = ok(await call(publicHandler, { path: '/api/v1/timelines/public', query: { limit: '40' }, token: reader.token })) as unknown as Json[];
    expect(byId(pub, stormy)?.filtered).toEqual(expected);
    const notifications = ok(await call(notificationsHandler, { path: '/api/v1/notifications', token: reader.token })) as unknown as { type: string; status?: Json }[];
    const mention = notifications.find((n) => n.type === 'mention' && n.status?.id === stormy);
    expect(mention?.status?.filtered).toEqual(expected);

    // The same filter with hide drops it instead: blur and warn are the ones that keep it.
    ok(await update(reader.token, String(filter.id), { filter_action: 'hide' }));
    const hidden = ok(await call(homeHandler, { path: '/api/v1/timelines/home', token: reader.token })) as unknown as Json[];
    expect(byId(hidden, stormy)).toBeUndefined();
    expect(byId(hidden, calm)).toBeDefined();
  });

  it('streams a status a blur filter matches (only a hide match is withheld)', () => {
    const result = (action: string) => ({ id: '1', filtered: [{ filter: { id: '2', filter_action: action }, keyword_matches: ['x'], status_matches: null }] });
    expect(hiddenByFilter(result('blur'))).toBe(false);
    expect(hiddenByFilter(result('warn'))).toBe(false);
    expect(hiddenByFilter(result('hide'))).toBe(true);
  });
});
