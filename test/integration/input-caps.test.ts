// Bounded work per request (issue 9): every text field has a raw cap
// (lib/text/limits.ts) checked by the endpoint's schema before any counting or
// parsing, so no input costs more than a normal one, nothing oversized reaches
// DynamoDB, and every entity stays far below the response and stream frame
// limits (Lambda 6 MB per response, API Gateway 128 KB per WebSocket frame).
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as createFilter } from '../../functions/filters/create';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as createList } from '../../functions/lists/create';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById } from '../../lib/db/accounts';
import { registerInlineWorker } from '../../lib/queue';
import { COUNTED_LIMITS, RAW_CAPS } from '../../lib/text/limits';
import { aMediaAttachment, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = (user: UserFixture, json: Record<string, unknown>) => call(createStatus, { method: 'POST', path: '/api/v1/statuses', json, token: user.token });
const patch = (user: UserFixture, json: Record<string, unknown>) =>
  call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', json, token: user.token });

const STATUS_TOO_LONG = `Validation failed: status is too long (maximum is 500 characters, ${RAW_CAPS.statusText} as typed)`;
const NOTE_TOO_LONG = `Validation failed: note is too long (maximum is 500 characters, ${RAW_CAPS.note} as typed)`;

describe('a status is refused by its raw length before it is counted', () => {
  it('a 40 KB status: 422 with the limit in the message, nothing posted', async () => {
    const user = await aUser();
    const res = await post(user, { status: 'hello world '.repeat(3_400) });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: STATUS_TOO_LONG });
    expect((await accountById(user.account.id))?.statusesCount).toBe(0);
  });

  it('a 40 KB status of two-byte characters and a huge content warning: 422', async () => {
    const user = await aUser();
    expect(await post(user, { status: 'é'.repeat(20_000) })).toMatchObject({ status: 422, body: { error: STATUS_TOO_LONG } });
    const cw = await post(user, { status: 'hi', spoiler_text: 'a '.repeat(10_000) });
    expect(cw).toMatchObject({ status: 422, body: { error: `Validation failed: spoiler_text is too long (maximum is 500 characters, ${RAW_CAPS.spoilerText} as typed)` } });
  });

  it('a huge poll option: 422', async () => {
    const user = await aUser();
    const res = await post(user, { status: 'pick one', poll: { options: ['a', 'b'.repeat(10_000)], expires_in: 3600 } });
    expect(res).toMatchObject({ status: 422, body: { error: `Validation failed: poll.options.1 is too long (maximum is 50 characters, ${RAW_CAPS.pollOption} as typed)` } });
  });

  it('still takes a status whose long link counts as 23 characters, up to the raw cap', async () => {
    const user = await aUser();
    const link = `https://example.com/${'p'.repeat(RAW_CAPS.statusText - 401 - 20)}`;
    const text = `${'w'.repeat(400)} ${link}`;
    expect(text.length).toBeLessThanOrEqual(RAW_CAPS.statusText);
    const res = await post(user, { status: text });
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('href="https://example.com/ppp');
  });

  it('counts as before under the cap: 501 counted characters are refused with Mastodon\'s message', async () => {
    const user = await aUser();
    expect(await post(user, { status: 'x'.repeat(501) })).toMatchObject({ status: 422, body: { error: 'Validation failed: Text character limit of 500 exceeded' } });
  });
});

describe('a profile is refused by its raw length before it is counted', () => {
  it('a 100 KB note that is one link (23 counted characters): 422, the account unchanged', async () => {
    const user = await aUser();
    const res = await patch(user, { note: `https://example.com/${'a'.repeat(100_000 - 20)}` });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: NOTE_TOO_LONG });
    expect(await accountById(user.account.id)).toEqual(user.account);
  });

  it('a note of a link and 99,990 é: 422, not a 500 from the item size', async () => {
    const user = await aUser();
    const res = await patch(user, { note: `https://e.co ${'é'.repeat(99_990)}` });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: NOTE_TOO_LONG });
    expect(await accountById(user.account.id)).toEqual(user.account);
  });

  it.each([
    ['display name', { display_name: '😀'.repeat(200) }, `display_name is too long (maximum is 30 characters, ${RAW_CAPS.displayName} as typed)`],
    ['field name', { fields_attributes: [{ name: 'n'.repeat(5_000), value: 'v' }] }, `fields_attributes.0.name is too long (maximum is 255 characters, ${RAW_CAPS.fieldText} as typed)`],
    ['field value', { fields_attributes: [{ name: 'n', value: 'v'.repeat(5_000) }] }, `fields_attributes.0.value is too long (maximum is 255 characters, ${RAW_CAPS.fieldText} as typed)`],
  ])('an oversized %s: 422', async (_name, json, message) => {
    const user = await aUser();
    expect(await patch(user, json)).toMatchObject({ status: 422, body: { error: `Validation failed: ${message}` } });
  });
});

describe('other texts at Mastodon\'s limits', () => {
  it('a filter phrase of 513 characters is refused, 512 taken (CustomFilterKeyword)', async () => {
    const user = await aUser();
    const make = (phrase: string) => call(createFilter, { method: 'POST', path: '/api/v1/filters', json: { phrase, context: ['home'] }, token: user.token });
    expect(await make('p'.repeat(513))).toMatchObject({ status: 422, body: { error: 'Validation failed: phrase is too long (maximum is 512 characters)' } });
    expect((await make('p'.repeat(512))).status).toBe(200);
  });

  it('a list title of 257 characters is refused, 256 taken (List)', async () => {
    const user = await aUser();
    const make = (title: string) => call(createList, { method: 'POST', path: '/api/v1/lists', json: { title }, token: user.token });
    expect((await make('t'.repeat(257))).status).toBe(422);
    expect((await make('t'.repeat(256))).status).toBe(200);
  });
});

describe('a maximal status stays below the WebSocket frame limit', () => {
  // Production-length media URLs (an S3 bucket host), so that attachment URLs weigh what they would.
  const mediaUrl = process.env.MEDIA_URL;
  beforeAll(() => {
    process.env.MEDIA_URL = 'https://tootless-production-media-123456789012.s3.eu-west-1.amazonaws.com';
  });
  afterAll(() => {
    process.env.MEDIA_URL = mediaUrl;
  });

  /**
   * A link that counts as 23 characters and renders at its worst (every `&` escaped, in href and text), at most
   * 4,000 characters long (twitter-text takes links up to about 4 KB; a longer one is not a link and counts in full).
   */
  const heavyLink = (length: number) => `https://example.com/?${'&'.repeat(Math.min(length, 4000) - 21)}`;
  /** The heaviest character per counted character: four bytes of UTF-8, one code point, one grapheme. */
  const heavy = (n: number) => '😀'.repeat(n);

  // Custom emoji are left out: each one the texts name adds about 280 bytes per entity (see the README note on
  // emoji), which the raw caps do not bound below Mastodon's own limit of one per four counted characters.
  it('renders a self-reblog of a status at every limit, by an account at every limit, well under 128 KB, frame included', async () => {
    const user = await aUser();
    const note = `${heavy(COUNTED_LIMITS.note - 24)} ${heavyLink(RAW_CAPS.note - 2 * (COUNTED_LIMITS.note - 24) - 1)}`;
    const profile = await patch(user, {
      display_name: heavy(COUNTED_LIMITS.displayName),
      note,
      fields_attributes: Array.from({ length: COUNTED_LIMITS.fields }, () => ({ name: heavy(COUNTED_LIMITS.fieldText), value: heavyLink(COUNTED_LIMITS.fieldText) })),
    });
    expect([profile.status, profile.status === 200 ? '' : profile.body.error]).toEqual([200, '']);

    // 4 attachments with the longest descriptions (three bytes a character), a content warning, and a link.
    const media = await Promise.all(Array.from({ length: 4 }, () => aMediaAttachment(user.account, { description: '€'.repeat(COUNTED_LIMITS.mediaDescription) })));
    const posted = await post(user, {
      status: heavyLink(RAW_CAPS.statusText),
      spoiler_text: heavy(COUNTED_LIMITS.statusCharacters - 23),
      media_ids: media.map((m) => m.id),
    });
    expect([posted.status, posted.status === 200 ? '' : posted.body.error]).toEqual([200, '']);
    const boosted = await call(reblog, { method: 'POST', path: `/api/v1/statuses/${posted.body.id}/reblog`, pathParameters: { id: posted.body.id }, token: user.token });
    expect(boosted.status).toBe(200);

    const shown = await call(showStatus, { path: `/api/v1/statuses/${boosted.body.id}`, pathParameters: { id: boosted.body.id }, token: user.token });
    expect(shown.status).toBe(200);
    expect(shown.body.reblog.media_attachments).toHaveLength(4);
    const bytes = Buffer.byteLength(shown.text);
    // The WebSocket frame carries the status as a JSON string inside Mastodon's envelope (escaped once more).
    const frame = Buffer.byteLength(JSON.stringify({ stream: ['user'], event: 'update', payload: shown.text }));
    expect(frame).toBeGreaterThan(bytes);
    expect(frame).toBeLessThan(96 * 1024);
  });
});
