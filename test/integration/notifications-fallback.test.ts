// Fallback notifications (Mastodon 4.6, `supported_types[]`): a client that lists the types it shows gets, on a
// notification of another type outside Mastodon's baseline, a `fallback` { text, summary, description } in HTML it
// can show instead; a client that lists nothing gets nothing new. Tried on the collection notifications, through the
// collections API, in v1 (list and one), grouped (list and one).
import { handler as createCollection } from '../../functions/collections/create';
import { handler as updateCollection } from '../../functions/collections/update';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as showNotification } from '../../functions/notifications/show';
import { handler as groupedHandler } from '../../functions/notifications/v2_index';
import { handler as groupHandler } from '../../functions/notifications/v2_show';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { updateAccount } from '../../lib/db/accounts';
import { registerInlineWorker } from '../../lib/queue';
import { BASELINE_TYPES } from '../../lib/render/notification_fallback';
import { aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('notify', notifyWorker);

let owner: UserFixture;
let featured: UserFixture;
beforeAll(async () => {
  [owner, featured] = await Promise.all([aUser({ username: 'curator_fb' }), aUser()]);
  await updateAccount(featured.account.id, { discoverable: true });
  const made = await call(createCollection, {
    method: 'POST',
    path: '/api/v1/collections',
    json: { name: 'Kind <people>', description: 'Worth following', sensitive: false, discoverable: true, account_ids: [featured.account.id] },
    token: owner.token,
  });
  expect(made.status).toBe(200);
  const id = made.body.collection.id as string;
  const renamed = await call(updateCollection, { method: 'PATCH', path: `/api/v1/collections/${id}`, pathParameters: { id }, json: { name: 'Kind folk' }, token: owner.token });
  expect(renamed.status).toBe(200);
});

const list = (query: Record<string, string | string[]> = {}) => call(notificationsHandler, { path: '/api/v1/notifications', query, token: featured.token });
const grouped = (query: Record<string, string | string[]> = {}) => call(groupedHandler, { path: '/api/v2/notifications', query, token: featured.token });
const HCARD = '<span class="h-card" translate="no"><a href="https://social.example/@curator_fb" class="u-url mention">@<span>curator_fb</span></a></span>';

describe('supported_types[]', () => {
  it('adds a fallback to the notifications of types the client does not list, outside the baseline', async () => {
    const res = await list({ 'supported_types[]': ['mention', 'follow'] });
    expect(res.status).toBe(200);
    const added = res.body.find((n: { type: string }) => n.type === 'added_to_collection');
    const updated = res.body.find((n: { type: string }) => n.type === 'collection_update');
    // Added under its first name; the update names the collection as it is now.
    expect(added.fallback).toEqual({ text: `<p>${HCARD} added you to the collection “Kind folk”</p>`, summary: 'Added to a collection', description: null });
    expect(updated.fallback).toEqual({ text: `<p>${HCARD} updated the collection “Kind folk” you are in</p>`, summary: 'Collection updated', description: null });
    // The types it shows stay as they are.
    const shown = await list({ 'supported_types[]': ['added_to_collection', 'collection_update'] });
    expect(shown.body.every((n: Record<string, unknown>) => !('fallback' in n))).toBe(true);
  });

  it('adds nothing for a client that lists no types, nor to a baseline type it does not list', async () => {
    const res = await list();
    expect(res.body.length).toBeGreaterThanOrEqual(2);
    expect(res.body.every((n: Record<string, unknown>) => !('fallback' in n))).toBe(true);
    expect(BASELINE_TYPES).toEqual(expect.arrayContaining(['mention', 'quote', 'quoted_update', 'status', 'update']));
  });

  it('escapes what the notification names, and is the same for one notification and in the grouped API', async () => {
    const all = (await list({ 'supported_types[]': 'mention' })).body as { id: string; type: string; group_key: string; fallback?: { text: string } }[];
    const added = all.find((n) => n.type === 'added_to_collection')!;
    expect(added.fallback!.text).not.toContain('<people>');

    const one = await call(showNotification, { path: `/api/v1/notifications/${added.id}`, pathParameters: { id: added.id }, query: { 'supported_types[]': 'mention' }, token: featured.token });
    expect(one.body.fallback).toEqual(added.fallback);
    expect((await call(showNotification, { path: `/api/v1/notifications/${added.id}`, pathParameters: { id: added.id }, token: featured.token })).body).not.toHaveProperty('fallback');

    const groups = (await grouped({ 'supported_types[]': 'mention' })).body.notification_groups as { type: string; group_key: string; fallback?: unknown }[];
    const group = groups.find((g) => g.type === 'added_to_collection')!;
    expect(group.fallback).toEqual(added.fallback);
    expect(((await grouped()).body.notification_groups as Record<string, unknown>[]).every((g) => !('fallback' in g))).toBe(true);
    const single = await call(groupHandler, { path: `/api/v2/notifications/${group.group_key}`, pathParameters: { group_key: group.group_key }, query: { 'supported_types[]': 'mention' }, token: featured.token });
    expect(single.body.notification_groups[0].fallback).toEqual(added.fallback);
  });

  it('refuses a list that is not one, naming the parameter', async () => {
    const res = await list({ 'supported_types[]': 'x'.repeat(100) });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('supported_types');
  });
});
