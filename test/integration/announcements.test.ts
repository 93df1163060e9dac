// Announcements: the operator writes them with the CLI; users list them (read per user), dismiss them and
// react to them (each emoji counted once per account), and online users' `user` streams hear of changes.
import { readFileSync } from 'node:fs';
import { handler as index } from '../../functions/announcements/index';
import { handler as dismissHandler } from '../../functions/announcements/dismiss';
import { handler as reactHandler } from '../../functions/announcements/react';
import { handler as unreactHandler } from '../../functions/announcements/unreact';
import { main } from '../../lib/admin/cli';
import { createAnnouncement } from '../../lib/announcements/operator';
import { announcementById, type Announcement } from '../../lib/db/announcements';
import { saveConnection, saveSseListener } from '../../lib/db/connections';
import { putEmoji } from '../../lib/db/emojis';
import { streamEventsAfter } from '../../lib/db/stream_log';
import { newId } from '../../lib/ids';
import { bindingFor, channels } from '../../lib/streaming/connections';
import { call } from '../support/http';
import { aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { useManagementApi } from '../support/management-api';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema; $ref?: string };
const openapi: { components: { schemas: Record<string, Schema> } } = JSON.parse(
  readFileSync(new URL('../fixtures/mastodon-openapi/schemas.json', import.meta.url), 'utf8'),
);

/** Mastodon's own entity schema, checked: required fields present, JSON types as declared, null only where allowed. */
function violations(value: unknown, schema: Schema, path = '$'): string[] {
  if (schema.$ref) return violations(value, openapi.components.schemas[schema.$ref.split('/').pop() ?? ''] ?? {}, path);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (value === null) return types.includes('null') ? [] : [`${path}: null`];
  const jsonType = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length > 0 && !types.includes(jsonType) && !(jsonType === 'integer' && types.includes('number'))) return [`${path}: ${jsonType}`];
  const out: string[] = [];
  if (jsonType === 'object' && value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) out.push(`${path}.${key}: missing`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) if (key in record) out.push(...violations(record[key], sub, `${path}.${key}`));
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => out.push(...violations(item, schema.items!, `${path}[${i}]`)));
  return out;
}

// X-Db-Calls on every answer: what each endpoint costs is part of what is tested.
process.env.EXPOSE_METRICS = '1';

const frames: { connectionId: string | undefined; frame: { stream: string[]; event: string; payload: string } }[] = [];
useManagementApi((req, res) => {
  if (req.connectionId) frames.push({ connectionId: req.connectionId, frame: JSON.parse(req.body.toString('utf8')) });
  res.writeHead(200).end();
});

const list = (token: string | undefined, query?: Record<string, string>) => call(index, { path: '/api/v1/announcements', token, query });
const dismiss = (token: string | undefined, id: string) =>
  call(dismissHandler, { method: 'POST', path: `/api/v1/announcements/${id}/dismiss`, pathParameters: { id }, token });
const react = (token: string | undefined, id: string, name: string) =>
  call(reactHandler, { method: 'PUT', path: `/api/v1/announcements/${id}/reactions/${encodeURIComponent(name)}`, pathParameters: { id, name: encodeURIComponent(name) }, token });
const unreact = (token: string | undefined, id: string, name: string) =>
  call(unreactHandler, { method: 'DELETE', path: `/api/v1/announcements/${id}/reactions/${encodeURIComponent(name)}`, pathParameters: { id, name: encodeURIComponent(name) }, token });

const cli = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  // The line naming the stage and table every command starts with is admin-cli.test.ts's concern.
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => void (/^Stage \S+, table /.test(t) || err.push(t)) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};
const createdId = (out: string) => /announcement (\d+)/.exec(out)?.[1] ?? '';
const announce = (text: string, extra: Partial<Parameters<typeof createAnnouncement>[0]> = {}) =>
  createAnnouncement({ text, startsAt: null, endsAt: null, allDay: false, publish: true, ...extra });

type Rendered = { id: string; read: boolean; reactions: { name: string; count: number; me: boolean; url?: string; static_url?: string }[] } & Record<string, unknown>;
const shown = async (token: string, id: string): Promise<Rendered | undefined> => ((await list(token)).body as Rendered[]).find((a) => a.id === id);

describe('announcements', () => {
  let alice: UserFixture;
  let bob: UserFixture;

  beforeAll(async () => {
    [alice, bob] = await Promise.all([aUser(), aUser()]);
    await putEmoji({ shortcode: 'blobcat', key: 'custom_emojis/t/blobcat.png', staticKey: 'custom_emojis/t/blobcat-static.png', category: null, visibleInPicker: true, createdAt: new Date().toISOString() });
  });

  describe('written with the CLI', () => {
    it('creates, lists, updates, unpublishes, publishes and deletes an announcement', async () => {
      const created = await cli('announcements', 'create', '--text', 'Maintenance <tonight>', '--starts-at', '2030-05-01', '--ends-at', '2030-05-02', '--all-day');
      expect(created).toMatchObject({ code: 0, err: '' });
      expect(created.out).toMatch(/^Published announcement \d+\.$/);
      const id = createdId(created.out);

      const listed = await cli('announcements', 'list');
      expect(listed.out).toContain(`${id}  published  2030-05-01T00:00:00.000Z – 2030-05-02T00:00:00.000Z (all day)  no reactions  Maintenance <tonight>`);
      const seen = await shown(alice.token, id);
      expect(seen).toMatchObject({ content: '<p>Maintenance &lt;tonight&gt;</p>', starts_at: '2030-05-01T00:00:00.000Z', ends_at: '2030-05-02T00:00:00.000Z', all_day: true });

      expect((await cli('announcements', 'update', id, '--text', 'Maintenance moved', '--timed')).out).toBe(`Updated announcement ${id}.`);
      expect(await shown(alice.token, id)).toMatchObject({ content: '<p>Maintenance moved</p>', all_day: false });

      expect((await cli('announcements', 'unpublish', id)).out).toBe(`Unpublished announcement ${id}.`);
      expect(await shown(alice.token, id)).toBeUndefined();
      expect((await cli('announcements', 'list')).out).toContain(`${id}  draft`);
      expect((await dismiss(alice.token, id)).status).toBe(404);

      const before = (await announcementById(id))?.publishedAt;
      expect((await cli('announcements', 'publish', id)).out).toBe(`Published announcement ${id}.`);
      const republished = await announcementById(id);
      expect(republished?.published).toBe(true);
      expect(republished?.publishedAt && before && republished.publishedAt >= before).toBe(true);
      expect(await shown(alice.token, id)).toBeDefined();

      expect((await cli('announcements', 'delete', id)).out).toBe(`Deleted announcement ${id}.`);
      expect(await announcementById(id)).toBeUndefined();
      expect(await shown(alice.token, id)).toBeUndefined();
      expect((await cli('announcements', 'delete', id))).toMatchObject({ code: 1, err: `No announcement with id ${id}` });
    });

    it('keeps a draft from users until it is published, which sets published_at', async () => {
      const res = await cli('announcements', 'create', '--text', 'Not yet', '--draft');
      expect(res.out).toMatch(/^Saved draft announcement \d+\.$/);
      const id = createdId(res.out);
      expect((await announcementById(id))?.publishedAt).toBeNull();
      expect(await shown(alice.token, id)).toBeUndefined();
      await cli('announcements', 'publish', id);
      const published = await shown(alice.token, id);
      expect(published?.published_at).toEqual((await announcementById(id))?.publishedAt);
    });

    it.each([
      ['no text', ['announcements', 'create'], /Missing --text/],
      ['blank text', ['announcements', 'create', '--text', '   '], /Text can't be blank/],
      ['oversized text', ['announcements', 'create', '--text', 'a'.repeat(5001)], /too long/],
      ['a start without an end', ['announcements', 'create', '--text', 'x', '--starts-at', '2030-01-01'], /starts_at and ends_at must be given together/],
      ['an end before the start', ['announcements', 'create', '--text', 'x', '--starts-at', '2030-01-02', '--ends-at', '2030-01-01'], /ends_at must not be before/],
      ['a date that is no date', ['announcements', 'create', '--text', 'x', '--starts-at', 'tomorrow', '--ends-at', '2030-01-01'], /--starts-at must be an ISO 8601 date/],
      ['an unknown id', ['announcements', 'update', '12345', '--text', 'x'], /No announcement with id 12345/],
      ['an id that is no id', ['announcements', 'delete', 'abc'], /No announcement with id abc/],
      ['nothing to change', ['announcements', 'update', '12345'], /Nothing to change/],
      ['a missing id', ['announcements', 'publish'], /Missing the announcement id/],
      ['an unknown command', ['announcements', 'archive'], /Unknown command "announcements archive"/],
    ])('refuses %s and writes nothing', async (_, argv, message) => {
      const before = (await cli('announcements', 'list')).out;
      const res = await cli(...argv);
      expect(res.code).toBe(1);
      expect(res.err).toMatch(message);
      expect((await cli('announcements', 'list')).out).toBe(before);
    });

    it('a good twin of the refused ones is accepted', async () => {
      const res = await cli('announcements', 'create', '--text', 'x', '--starts-at', '2030-01-01', '--ends-at', '2030-01-02');
      expect(res.code).toBe(0);
      await cli('announcements', 'delete', createdId(res.out));
    });
  });

  describe('GET /api/v1/announcements', () => {
    it('renders the Announcement entity: escaped text with links, tags, mentions, linked statuses, emoji', async () => {
      const status = await aPostedStatus(bob.account, { visibility: 'public' });
      const privateStatus = await aPostedStatus(bob.account, { visibility: 'private' });
      // Links are found on known top-level domains only (twitter-text): `.example` is none, so this test's instance is on `.com`.
      const testBase = process.env.BASE_URL;
      process.env.BASE_URL = 'https://social.example.com';
      let a: Announcement;
      try {
        a = await announce(
          `Hello @${alice.account.username} <script> #Welcome :blobcat: see https://social.example.com/@${bob.account.username}/${status.id} and https://social.example.com/@${bob.account.username}/${privateStatus.id}`,
        );
      } finally {
        process.env.BASE_URL = testBase;
      }
      const res = await list(alice.token);
      expect(res.status).toBe(200);
      const rendered = (res.body as Rendered[]).find((x) => x.id === a.id)!;
      expect(rendered).toMatchObject({
        id: a.id,
        starts_at: null,
        ends_at: null,
        all_day: false,
        published_at: a.publishedAt,
        updated_at: a.updatedAt,
        read: false,
        mentions: [{ id: alice.account.id, username: alice.account.username, acct: alice.account.username, url: `https://social.example.com/@${alice.account.username}` }],
        statuses: [{ id: status.id, url: `https://social.example.com/@${bob.account.username}/${status.id}` }],
        tags: [{ name: 'welcome', url: 'https://social.example/tags/welcome' }],
        emojis: [expect.objectContaining({ shortcode: 'blobcat' })],
        reactions: [],
      });
      expect(rendered.content).toContain('&lt;script&gt;');
      expect(rendered.content).not.toContain('<script>');
      expect(rendered.content).toContain(`href="https://social.example.com/@${bob.account.username}/${status.id}"`);
      expect(rendered.content).toContain('class="mention hashtag"');
      expect(violations(rendered, openapi.components.schemas.Announcement!)).toEqual([]);
      expect(violations({ ...rendered, content: null }, openapi.components.schemas.Announcement!)).toEqual(['$.content: null']);
    });

    it('lists published announcements that have not ended, by start then publication, oldest first', async () => {
      const now = Date.now();
      const later = await announce('starts later', { startsAt: new Date(now + 86_400_000).toISOString(), endsAt: new Date(now + 2 * 86_400_000).toISOString() });
      const plain = await announce('no dates');
      const ended = await announce('ended', { startsAt: new Date(now - 2 * 86_400_000).toISOString(), endsAt: new Date(now - 86_400_000).toISOString() });
      const draft = await announce('draft', { publish: false });
      const ids = ((await list(bob.token)).body as Rendered[]).map((a) => a.id);
      expect(ids).not.toContain(ended.id);
      expect(ids).not.toContain(draft.id);
      expect(ids.filter((id) => id === later.id || id === plain.id)).toEqual([plain.id, later.id]);
    });

    it('costs the same few calls however many announcements, reactions and emoji there are', async () => {
      const costOf = async () => Number((await list(alice.token)).headers['x-db-calls']);
      const first = await announce('cost :blobcat:');
      await react(bob.token, first.id, 'blobcat');
      const before = await costOf();
      for (let i = 0; i < 5; i++) {
        const more = await announce(`cost ${i} :blobcat:`);
        await react(bob.token, more.id, '🎉');
        await react(alice.token, more.id, 'blobcat');
      }
      expect(await costOf()).toBe(before);
      // The token and its account, the rate-limit counter, the announcements Query, the marks BatchGet, the emoji BatchGet.
      expect(before).toBeLessThanOrEqual(6);
    });

    it('needs a user token of any scope', async () => {
      const writeOnly = await aUser({ scopes: ['write'] });
      expect((await list(writeOnly.token)).status).toBe(200);
      const anonymous = await list(undefined);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ error: expect.any(String) });
      expect((await list('not-a-token')).status).toBe(401);
    });
  });

  describe('dismissing', () => {
    it('marks an announcement read for that user only; dismissing twice is the same', async () => {
      const a = await announce('read me');
      const first = await dismiss(alice.token, a.id);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({});
      expect((await dismiss(alice.token, a.id)).status).toBe(200);
      expect((await shown(alice.token, a.id))?.read).toBe(true);
      expect((await shown(bob.token, a.id))?.read).toBe(false);
      const unread = ((await list(alice.token, { with_dismissed: 'false' })).body as Rendered[]).map((x) => x.id);
      expect(unread).not.toContain(a.id);
      expect(((await list(bob.token, { with_dismissed: 'false' })).body as Rendered[]).map((x) => x.id)).toContain(a.id);
    });

    it.each([
      ['an unknown id', () => newId(), 'write:accounts', 404],
      ['an id that is no id', () => 'abc', 'write:accounts', 404],
      ['an oversized id', () => '9'.repeat(40), 'write:accounts', 404],
      ['a draft', async () => (await announce('draft', { publish: false })).id, 'write:accounts', 404],
      ['a token without write:accounts', async () => (await announce('scoped')).id, 'read', 403],
      ['a good twin', async () => (await announce('fine')).id, 'write:accounts', 200],
    ] as [string, () => string | Promise<string>, string, number][])('%s', async (_, idOf, scope, status) => {
      const user = await aUser({ scopes: [scope] });
      const id = await idOf();
      const res = await dismiss(user.token, id);
      expect(res.status).toBe(status);
      if (status !== 200) expect(res.body).toEqual({ error: expect.any(String) });
      const stored = /^\d+$/.test(id) && id.length <= 20 ? await announcementById(id) : undefined;
      if (stored?.published) expect((await shown(user.token, id))?.read ?? false).toBe(status === 200);
    });
  });

  describe('reactions', () => {
    let a: Announcement;
    beforeAll(async () => {
      a = await announce('react to me');
    });

    it('counts a reaction once per account, with `me` per viewer', async () => {
      expect((await react(alice.token, a.id, '👍')).status).toBe(200);
      expect((await react(alice.token, a.id, '👍')).status).toBe(200);
      expect((await shown(alice.token, a.id))?.reactions).toEqual([{ name: '👍', count: 1, me: true }]);
      expect((await react(bob.token, a.id, '👍')).status).toBe(200);
      expect((await shown(alice.token, a.id))?.reactions).toEqual([{ name: '👍', count: 2, me: true }]);
      expect((await shown(bob.token, a.id))?.reactions).toEqual([{ name: '👍', count: 2, me: true }]);
      const carol = await aUser();
      expect((await shown(carol.token, a.id))?.reactions).toEqual([{ name: '👍', count: 2, me: false }]);
    });

    it('takes a custom emoji by shortcode, with its images, listed after earlier names', async () => {
      expect((await react(bob.token, a.id, 'blobcat')).status).toBe(200);
      const reactions = (await shown(bob.token, a.id))?.reactions ?? [];
      expect(reactions.map((r) => r.name)).toEqual(['👍', 'blobcat']);
      expect(reactions[1]).toEqual({
        name: 'blobcat',
        count: 1,
        me: true,
        url: expect.stringMatching(/custom_emojis\/t\/blobcat\.png$/),
        static_url: expect.stringMatching(/custom_emojis\/t\/blobcat-static\.png$/),
      });
    });

    it('takes a reaction back; one never made is 404; a name nobody uses any more leaves', async () => {
      expect((await unreact(bob.token, a.id, 'blobcat')).status).toBe(200);
      expect((await unreact(bob.token, a.id, 'blobcat')).status).toBe(404);
      expect((await shown(bob.token, a.id))?.reactions.map((r) => r.name)).toEqual(['👍']);
      expect((await announcementById(a.id))?.reactionCounts).toEqual({ '👍': 2 });
      expect((await unreact(bob.token, a.id, '👍')).status).toBe(200);
      expect((await shown(bob.token, a.id))?.reactions).toEqual([{ name: '👍', count: 1, me: false }]);
    });

    it('allows at most 8 different emoji on one announcement', async () => {
      const full = await announce('popular');
      const names = ['😀', '😂', '🎉', '❤️', '🔥', '👀', '🙏', '✨'];
      for (const name of names) expect((await react(alice.token, full.id, name)).status).toBe(200);
      const ninth = await react(bob.token, full.id, '🚀');
      expect(ninth.status).toBe(422);
      expect(ninth.body).toEqual({ error: expect.stringMatching(/Maximum number of different reactions/) });
      // An existing name still counts another account.
      expect((await react(bob.token, full.id, '🎉')).status).toBe(200);
      expect((await announcementById(full.id))?.reactionCounts).toMatchObject({ '🎉': 2 });
      expect(Object.keys((await announcementById(full.id))?.reactionCounts ?? {})).toHaveLength(8);
    });

    it.each([
      ['a word that is no emoji', 'hello', 422],
      ['an unknown custom emoji', 'nosuchemoji', 422],
      ['two emoji at once', '👍👍', 422],
      ['an oversized name', 'a'.repeat(300), 422],
      ['HTML', '<b>', 422],
      ['a unicode emoji without its presentation selector (good twin)', '❤', 200],
      ['a skin-toned emoji (good twin)', '👍🏽', 200],
    ])('%s', async (_, name, status) => {
      const target = await announce(`bad names ${name.slice(0, 10)}`);
      const res = await react(alice.token, target.id, name);
      expect(res.status).toBe(status);
      if (status !== 200) expect(res.body).toEqual({ error: 'Validation failed: Name is not a recognized emoji' });
      expect(Object.keys((await announcementById(target.id))?.reactionCounts ?? {})).toEqual(status === 200 ? [name] : []);
    });

    it.each([
      ['PUT to an unknown announcement', () => react(alice.token, newId(), '👍'), 404],
      ['PUT to an id that is no id', () => react(alice.token, 'abc', '👍'), 404],
      ['PUT to a draft', async () => react(alice.token, (await announce('d', { publish: false })).id, '👍'), 404],
      ['PUT without write:favourites', async () => react((await aUser({ scopes: ['write:accounts'] })).token, a.id, '🎈'), 403],
      ['PUT without a token', () => react(undefined, a.id, '🎈'), 401],
      ['DELETE from an unknown announcement', () => unreact(alice.token, newId(), '👍'), 404],
      ['DELETE someone else’s reaction', async () => unreact((await aUser()).token, a.id, '👍'), 404],
      ['DELETE without write:favourites', async () => unreact((await aUser({ scopes: ['read'] })).token, a.id, '👍'), 403],
    ])('%s', async (_, attempt, status) => {
      const before = (await announcementById(a.id))?.reactionCounts;
      const res = await attempt();
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await announcementById(a.id))?.reactionCounts).toEqual(before);
    });
  });

  describe('streaming', () => {
    it('tells every online user stream of a new announcement, a reaction and a deletion', async () => {
      const listener = await aUser();
      const connectionId = `ann-${newId()}`;
      const principal = { accountId: listener.account.id, scopes: ['read'] };
      expect((await saveConnection({ connectionId, accountId: listener.account.id, tokenId: null, scopes: ['read'] }, bindingFor({ stream: 'user' }, principal))).ok).toBe(true);
      const sseListener = await aUser();
      const sseId = `sse-${newId()}`;
      await saveSseListener({ listenerId: sseId, accountId: sseListener.account.id }, [bindingFor({ stream: 'user' }, { accountId: sseListener.account.id, scopes: ['read'] })]);
      const since = newId();
      frames.length = 0;

      const created = await cli('announcements', 'create', '--text', 'Streamed news');
      const id = createdId(created.out);
      await react(alice.token, id, '🎉');
      await cli('announcements', 'delete', id);

      const mine = frames.filter((f) => f.connectionId === connectionId).map((f) => f.frame);
      expect(mine.map((f) => [f.stream, f.event])).toEqual([
        [['user'], 'announcement'],
        [['user'], 'announcement.reaction'],
        [['user'], 'announcement.delete'],
      ]);
      const announcement = JSON.parse(mine[0]!.payload);
      expect(announcement).toMatchObject({ id, content: '<p>Streamed news</p>', reactions: [] });
      expect(announcement).not.toHaveProperty('read');
      expect(JSON.parse(mine[1]!.payload)).toEqual({ name: '🎉', count: 1, announcement_id: id });
      expect(mine[2]!.payload).toBe(id);

      const logged = await streamEventsAfter(channels.home(sseListener.account.id), since);
      expect(logged.map((e) => e.event)).toEqual(['announcement', 'announcement.reaction', 'announcement.delete']);
    });
  });
});
