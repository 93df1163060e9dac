// One CORS policy: the lists the functions answer with (lib/http/cors.ts) are the HTTP API's
// configuration in serverless.yml, from which API Gateway, the SSE function URLs and the local
// stack answer preflights; and a preflight that reaches the catch-all route still gets its answer.
import { readFileSync } from 'node:fs';
import { CORE_SCHEMA, defineScalarTag, defineSequenceTag, load } from 'js-yaml';
import { z } from 'zod';
import { handler as notFound } from '../../functions/system/not_found';
import { CORS_ALLOWED_HEADERS, CORS_ALLOWED_METHODS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE } from '../../lib/http/cors';
import { call } from '../support/http';

// CloudFormation's short tags (`!GetAtt`, `!Join`), read as plain values: only the CORS block matters here.
const schema = CORE_SCHEMA.withTags([
  defineScalarTag('!', { matchByTagPrefix: true, resolve: (s) => s, identify: () => false }),
  defineSequenceTag<unknown[]>('!', { matchByTagPrefix: true, create: () => [], addItem: (items, item) => void items.push(item), identify: () => false }),
]);
const service = z
  .object({ provider: z.object({ httpApi: z.object({ cors: z.record(z.unknown()) }).passthrough() }).passthrough() })
  .passthrough()
  .parse(load(readFileSync(new URL('../../serverless.yml', import.meta.url), 'utf8'), { schema }));

describe('the CORS policy', () => {
  it('is the same in serverless.yml as in the functions', () => {
    expect(service.provider.httpApi.cors).toEqual({
      allowedOrigins: ['*'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      allowedMethods: CORS_ALLOWED_METHODS,
      exposedResponseHeaders: CORS_EXPOSED_HEADERS,
      maxAge: CORS_MAX_AGE,
    });
  });

  it('names Authorization, Content-Type and Idempotency-Key, never *', () => {
    expect(CORS_ALLOWED_HEADERS).toEqual(expect.arrayContaining(['Authorization', 'Content-Type', 'Idempotency-Key']));
    expect(CORS_ALLOWED_HEADERS).not.toContain('*');
  });

  it('answers a preflight that reaches the catch-all route as the gateway would, not with a 404', async () => {
    const res = await call(notFound, {
      method: 'OPTIONS',
      path: '/api/v1/statuses',
      headers: { origin: 'https://elk.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toBe(CORS_ALLOWED_HEADERS.join(', '));
    expect(res.headers['access-control-allow-methods']).toBe(CORS_ALLOWED_METHODS.join(', '));
  });

  it('still answers 404 to any other request of an unknown path, OPTIONS without a preflight included', async () => {
    for (const method of ['GET', 'OPTIONS']) {
      const res = await call(notFound, { method, path: '/api/v1/nothing-here' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
    }
  });
});
