import sharp from 'sharp';
import { handler as avatarMissing } from '../../functions/system/avatar_missing';
import { handler as headerMissing } from '../../functions/system/header_missing';
import { handler as notFound } from '../../functions/system/not_found';
import { buildEvent, call, lambdaContext } from '../support/http';

describe('routes the API does not know', () => {
  it.each([
    ['GET', '/api/v1/nothing_here'],
    ['GET', '/api/v9/instance'],
    ['POST', '/api/v1/statuses/1/unknown_action'],
    ['DELETE', '/some/arbitrary/path'],
    ['GET', '/'],
  ])('%s %s answers 404 {"error": "Not found"}', async (method, path) => {
    const res = await call(notFound, { method, path });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'Not found' });
  });

  it.each([
    ['malformed JSON', { body: { data: '{"a":', contentType: 'application/json' } }],
    ['an unsupported content type', { body: { data: 'x', contentType: 'text/plain' } }],
    ['a broken multipart body', { body: { data: 'garbage', contentType: 'multipart/form-data; boundary=zzz' } }],
    ['a bad token', { token: 'nope' }],
    ['an odd query string', { query: 'a[b][c][d][e][f][g]=1&%%%' }],
  ])('still answers 404, never 4xx or 5xx of another kind, for %s', async (_name, extra) => {
    const res = await call(notFound, { method: 'POST', path: '/api/v1/whatever', ...extra });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });

  it('answers cross-origin API requests with the CORS header', async () => {
    const res = await call(notFound, { path: '/api/v1/nope' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('default images', () => {
  const fetchImage = async (handler: typeof avatarMissing, path: string) => {
    const out = await handler(buildEvent({ path }), lambdaContext());
    expect(out.statusCode).toBe(200);
    expect(out.isBase64Encoded).toBe(true);
    expect(out.headers?.['Content-Type']).toBe('image/png');
    expect(out.headers?.['Cache-Control']).toBe('public, max-age=86400');
    return Buffer.from(out.body ?? '', 'base64');
  };

  it('serves a square PNG avatar at /avatars/original/missing.png', async () => {
    const png = await fetchImage(avatarMissing, '/avatars/original/missing.png');
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 400, height: 400 });
  });

  it('serves a wide PNG header at /headers/original/missing.png', async () => {
    const png = await fetchImage(headerMissing, '/headers/original/missing.png');
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 1500, height: 500 });
  });

  it('draws each image once per container', async () => {
    const [a, b] = await Promise.all([
      fetchImage(avatarMissing, '/avatars/original/missing.png'),
      fetchImage(avatarMissing, '/avatars/original/missing.png'),
    ]);
    expect(a.equals(b)).toBe(true);
    const { defaultImage } = await import('../../lib/instance/images');
    expect(defaultImage('avatar')).toBe(defaultImage('avatar'));
  });
});
