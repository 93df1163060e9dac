// GET /api/v1/media/:id and PUT /api/v1/media/:id: the owner's unattached attachments only.
import sharp from 'sharp';
import { handler as createV1 } from '../../functions/media/create';
import { handler as show } from '../../functions/media/show';
import { handler as update } from '../../functions/media/update';
import { attachMediaItems, createMedia, mediaById } from '../../lib/db/media';
import { transact } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { call } from '../support/http';
import { multipart, type Part } from '../support/multipart';
import { anAppToken, aUser } from '../support/factories';


/** An attachment uploaded through the endpoint, as a client would. */
async function anAttachment(token: string, parts: Record<string, string> = {}) {
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 0, b: 0 } } }).png().toBuffer();
  const res = await call(createV1, {
    method: 'POST',
    path: '/api/v1/media',
    token,
    body: await multipart({ file: { data: png, filename: 'red.png', type: 'image/png' }, ...parts }),
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; url: string; description: string | null; meta: Record<string, unknown> };
}

const get = (token: string | undefined, id: string) =>
  call(show, { method: 'GET', path: `/api/v1/media/${id}`, pathParameters: { id }, ...(token ? { token } : {}) });

const put = (token: string | undefined, id: string, body: { json?: unknown; form?: Record<string, string> }) =>
  call(update, { method: 'PUT', path: `/api/v1/media/${id}`, pathParameters: { id }, ...(token ? { token } : {}), ...body });

describe('GET /api/v1/media/:id', () => {
  it('answers 200 with the owner’s processed attachment, as POST rendered it', async () => {
    const { token } = await aUser();
    const created = await anAttachment(token, { description: 'red', focus: '0,0.5' });
    const res = await get(token, created.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it('answers 206 with a null url while an attachment is still processing', async () => {
    const { account, token } = await aUser();
    const id = newId();
    await createMedia({
      id, accountId: account.id, type: 'image', fileKey: null, previewKey: null, contentType: null, fileSize: 0,
      original: null, small: null, focus: null, description: null, blurhash: null, statusId: null, remoteUrl: null, state: 'processing',
      createdAt: new Date().toISOString(),
    });
    const res = await get(token, id);
    expect(res.status).toBe(206);
    expect(res.body).toMatchObject({ id, url: null, preview_url: null });
  });

  it('answers 422 for an attachment whose processing failed', async () => {
    const { account, token } = await aUser();
    const id = newId();
    await createMedia({
      id, accountId: account.id, type: 'image', fileKey: null, previewKey: null, contentType: null, fileSize: 0,
      original: null, small: null, focus: null, description: null, blurhash: null, statusId: null, remoteUrl: null, state: 'failed',
      createdAt: new Date().toISOString(),
    });
    const res = await get(token, id);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Error processing thumbnail for uploaded media' });
  });

  it.each([
    ['another user’s attachment', async (owner: string) => (await anAttachment(owner)).id],
    ['an unknown id', async () => newId()],
    ['a malformed id', async () => 'abc'],
    ['an id too long to be one', async () => '1'.repeat(40)],
  ])('answers 404 Record not found for %s', async (_name, idFor) => {
    const { token: owner } = await aUser();
    const { token } = await aUser();
    const res = await get(token, await idFor(owner));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it('answers 404 once the attachment is attached to a status (Mastodon only shows unattached ones)', async () => {
    const { account, token } = await aUser();
    const { id } = await anAttachment(token);
    expect(await transact(attachMediaItems(newId(), account.id, [id]))).toEqual({ ok: true });
    const res = await get(token, id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['a read-only token', async () => (await aUser({ scopes: ['read'] })).token, 403],
    ['an app token', async () => (await anAppToken(['read', 'write'])).token, 422],
  ])('refuses %s', async (_name, tokenFor, status) => {
    const { token: owner } = await aUser();
    const { id } = await anAttachment(owner);
    const res = await get(await tokenFor(), id);
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe('PUT /api/v1/media/:id', () => {
  it('changes description and focus (form body) and keeps the files', async () => {
    const { token } = await aUser();
    const created = await anAttachment(token);
    const res = await put(token, created.id, { form: { description: 'A red rectangle', focus: '-0.5,1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, url: created.url, description: 'A red rectangle', meta: { focus: { x: -0.5, y: 1 } } });
    expect((await get(token, created.id)).body).toEqual(res.body);
  });

  it('accepts JSON and multipart bodies, changing only the fields given', async () => {
    const { token } = await aUser();
    const created = await anAttachment(token, { description: 'first', focus: '0.1,0.2' });
    const viaJson = await put(token, created.id, { json: { focus: '0.3,0.4' } });
    expect(viaJson.status).toBe(200);
    expect(viaJson.body).toMatchObject({ description: 'first', meta: { focus: { x: 0.3, y: 0.4 } } });
    const viaMultipart = await call(update, {
      method: 'PUT', path: `/api/v1/media/${created.id}`, pathParameters: { id: created.id }, token,
      body: await multipart({ description: 'second' }),
    });
    expect(viaMultipart.status).toBe(200);
    expect(viaMultipart.body).toMatchObject({ description: 'second', meta: { focus: { x: 0.3, y: 0.4 } } });
  });

  it('clears the description when it is sent empty', async () => {
    const { token } = await aUser();
    const created = await anAttachment(token, { description: 'to be removed' });
    const res = await put(token, created.id, { form: { description: '' } });
    expect(res.status).toBe(200);
    expect(res.body.description).toBeNull();
  });

  it('answers the attachment unchanged when no field is given', async () => {
    const { token } = await aUser();
    const created = await anAttachment(token, { description: 'kept' });
    const res = await put(token, created.id, { json: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  type Case = [string, (ctx: { owner: string; mine: string; accountId: string }) => Promise<{ token?: string; id: string; json?: unknown; form?: Record<string, string> }>, number, string | RegExp];
  const cases: Case[] = [
    ['another user’s attachment', async ({ mine }) => ({ token: (await aUser()).token, id: mine, form: { description: 'stolen' } }), 404, 'Record not found'],
    ['an unknown id', async ({ owner }) => ({ token: owner, id: newId(), form: { description: 'x' } }), 404, 'Record not found'],
    ['a malformed id', async ({ owner }) => ({ token: owner, id: 'not-an-id', form: { description: 'x' } }), 404, 'Record not found'],
    ['an attachment already attached to a status', async ({ owner, mine, accountId }) => {
      expect(await transact(attachMediaItems(newId(), accountId, [mine]))).toEqual({ ok: true });
      return { token: owner, id: mine, form: { description: 'too late' } };
    }, 404, 'Record not found'],
    ['a description over 1500 characters', async ({ owner, mine }) => ({ token: owner, id: mine, form: { description: 'x'.repeat(1501) } }), 422, 'Validation failed: description is too long (maximum is 1500 characters)'],
    ['a description of the wrong type', async ({ owner, mine }) => ({ token: owner, id: mine, json: { description: ['a'] } }), 422, 'Validation failed: description must be a string'],
    ['a focus out of range', async ({ owner, mine }) => ({ token: owner, id: mine, form: { focus: '0,-1.01' } }), 422, /^Validation failed: focus must be two numbers from -1.0 to 1.0/],
    ['a focus that is not a string', async ({ owner, mine }) => ({ token: owner, id: mine, json: { focus: { x: 0, y: 0 } } }), 422, /^Validation failed: focus must be two numbers/],
    ['a malformed JSON body', async ({ owner, mine }) => ({ token: owner, id: mine, json: '{"description": ' }), 400, 'Error occurred while parsing request parameters'],
    ['a read-only token', async ({ mine, accountId }) => ({ token: (await aUser({ scopes: ['read'] })).token, id: mine, form: { description: String(accountId) } }), 403, 'This action is outside the authorized scopes'],
    ['no token', async ({ mine }) => ({ id: mine, form: { description: 'anonymous' } }), 401, 'The access token is invalid'],
  ];

  it.each(cases)('refuses %s and changes nothing', async (_name, build, status, error) => {
    const { account, token: owner } = await aUser();
    const created = await anAttachment(owner, { description: 'original', focus: '0.5,0.5' });
    const { token, id, json, form } = await build({ owner, mine: created.id, accountId: account.id });
    const res = await put(token, id, json !== undefined ? { json } : { form: form ?? {} });
    expect(res.status).toBe(status);
    if (typeof error === 'string') expect(res.body).toEqual({ error });
    else expect(res.body.error).toMatch(error);
    expect(await mediaById(created.id)).toMatchObject({ description: 'original', focus: { x: 0.5, y: 0.5 } });
  });
});
