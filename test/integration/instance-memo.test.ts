// What every request reads and rarely changes, kept per container (lib/memo.ts), through the real endpoints:
// a warm container answers the instance endpoints without reading the settings or the emoji list again; a
// write through our own code shows at once; one made elsewhere (another container, the operator's CLI: here
// the item written directly) shows once MEMO_TTL_MS has passed.
import { handler as customEmojis } from '../../functions/custom_emojis/index';
import { handler as extendedDescription } from '../../functions/instance/extended_description';
import { handler as rules } from '../../functions/instance/rules';
import { handler as v1 } from '../../functions/instance/show';
import { handler as v2 } from '../../functions/instance/show_v2';
import { handler as nodeinfo } from '../../functions/wellknown/nodeinfo_document';
import { putEmoji, type Emoji } from '../../lib/db/emojis';
import { instanceSettings, updateInstanceSettings } from '../../lib/db/instance';
import * as keys from '../../lib/db/keys';
import { putItem } from '../../lib/db/table';
import { MEMO_TTL_MS, forgetAllMemos } from '../../lib/memo';
import { call } from '../support/http';

// X-Db-Calls on every answer.
process.env.EXPOSE_METRICS = '1';

type Handler = Parameters<typeof call>[0];
const get = (handler: Handler, path: string) => call(handler, { path });
const calls = (res: { headers: Record<string, string> }) => Number(res.headers['x-db-calls']);

/** Moves this process's clock on (lib/memo.ts asks Date.now()). */
let skew = 0;
const realNow = Date.now.bind(Date);
beforeAll(() => {
  Date.now = () => realNow() + skew;
});
afterAll(() => {
  Date.now = realNow;
});
// Settings stored (with their updatedAt, which the extended description answers) before the first request.
beforeAll(() => updateInstanceSettings({ description: '<p>Kept a while</p>' }));
beforeEach(() => forgetAllMemos());

/** The settings item as another container or the CLI writes it: not through this process's updateInstanceSettings. */
async function writtenElsewhere(changes: Record<string, unknown>) {
  const current = await instanceSettings();
  await putItem({ ...keys.instanceSettings(), ...current, ...changes });
}

const emoji = (shortcode: string): Emoji => ({
  shortcode,
  key: `custom_emojis/m/${shortcode}.png`,
  staticKey: `custom_emojis/m/${shortcode}-static.png`,
  category: null,
  visibleInPicker: true,
  createdAt: new Date(realNow()).toISOString(),
});

describe('a warm container', () => {
  it.each([
    ['GET /api/v1/instance', v1, '/api/v1/instance'],
    ['GET /api/v2/instance', v2, '/api/v2/instance'],
    ['GET /api/v1/instance/rules', rules, '/api/v1/instance/rules'],
    ['GET /api/v1/instance/extended_description', extendedDescription, '/api/v1/instance/extended_description'],
    ['GET /api/v1/custom_emojis', customEmojis, '/api/v1/custom_emojis'],
  ] as const)('answers %s with one call fewer than a cold one (besides the IP rules), the same answer', async (_name, handler, path) => {
    const cold = await get(handler, path);
    const warm = await get(handler, path);
    expect(cold.status).toBe(200);
    expect(warm.body).toEqual(cold.body);
    // The endpoint's own kept read, and the operator's IP rules every request of a cold container reads (lib/policy/ip_blocks.ts).
    expect(calls(warm)).toBe(calls(cold) - 2);
  });

  it('answers the rules and the custom emoji reading only the caller’s rate-limit counter', async () => {
    await get(rules, '/api/v1/instance/rules');
    await get(customEmojis, '/api/v1/custom_emojis');
    expect(calls(await get(rules, '/api/v1/instance/rules'))).toBe(1);
    expect(calls(await get(customEmojis, '/api/v1/custom_emojis'))).toBe(1);
  });

  it('shares the settings among the instance endpoints and NodeInfo', async () => {
    const first = await get(nodeinfo, '/nodeinfo/2.0');
    expect(first.status).toBe(200);
    expect(calls(await get(rules, '/api/v1/instance/rules'))).toBe(1);
  });

  it('reads the settings once for concurrent first requests', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(rules, '/api/v1/instance/rules')));
    // Five rate-limit counters, one settings read and one read of the IP rules shared by all (counted in the request that began each).
    expect(answers.map(calls).reduce((a, b) => a + b, 0)).toBe(7);
  });
});

describe('a change of the settings', () => {
  afterEach(async () => {
    skew = 0;
    await updateInstanceSettings({ rules: [], title: 'Tootless' });
  });

  it('made here shows at once', async () => {
    expect((await get(rules, '/api/v1/instance/rules')).body).toEqual([]);
    await updateInstanceSettings({ rules: [{ id: '1', text: 'Be kind' }], title: 'Changed here' });
    const res = await get(rules, '/api/v1/instance/rules');
    expect(res.body).toEqual([{ id: '1', text: 'Be kind', hint: '' }]);
    expect((await get(v2, '/api/v2/instance')).body.title).toBe('Changed here');
  });

  it('made elsewhere shows within the TTL', async () => {
    expect((await get(v1, '/api/v1/instance')).body.title).toBe('Tootless');
    await writtenElsewhere({ title: 'Changed elsewhere', rules: [{ id: '7', text: 'No spam' }] });
    skew = MEMO_TTL_MS - 1_000;
    expect((await get(v1, '/api/v1/instance')).body.title).toBe('Tootless');
    expect((await get(rules, '/api/v1/instance/rules')).body).toEqual([]);
    skew = MEMO_TTL_MS + 1;
    expect((await get(v1, '/api/v1/instance')).body.title).toBe('Changed elsewhere');
    expect((await get(rules, '/api/v1/instance/rules')).body).toEqual([{ id: '7', text: 'No spam', hint: '' }]);
    // What must follow a change at once (the operator's commands, registration) reads the item itself.
    expect((await instanceSettings()).title).toBe('Changed elsewhere');
  });
});

describe('a new custom emoji', () => {
  afterEach(() => {
    skew = 0;
  });

  it('added here is listed at once', async () => {
    expect((await get(customEmojis, '/api/v1/custom_emojis')).body).toEqual([]);
    expect(await putEmoji(emoji('memo_here'))).toBe(true);
    expect((await get(customEmojis, '/api/v1/custom_emojis')).body.map((e: { shortcode: string }) => e.shortcode)).toEqual(['memo_here']);
  });

  it('added elsewhere is listed within the TTL', async () => {
    const before = (await get(customEmojis, '/api/v1/custom_emojis')).body;
    const other = emoji('memo_there');
    await putItem({ ...keys.emoji(other.shortcode), ...other });
    expect((await get(customEmojis, '/api/v1/custom_emojis')).body).toEqual(before);
    skew = MEMO_TTL_MS + 1;
    const after = (await get(customEmojis, '/api/v1/custom_emojis')).body.map((e: { shortcode: string }) => e.shortcode);
    expect(after).toContain('memo_there');
  });
});
