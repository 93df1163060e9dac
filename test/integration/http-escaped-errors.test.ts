// The last line of defence in the HTTP stack (lib/http/guard.ts), and the
// multipart body that used to end the process (an unheard stream error of the parser it once used).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { handler as createMedia } from '../../functions/media/create';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { call } from '../support/http';
import { aUser } from '../support/factories';

// The stack reports each request's DynamoDB writes (X-Db-Writes) when metrics are on, as on the local stack.
process.env.EXPOSE_METRICS = '1';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('an error that escapes a handler', () => {
  it('fails only its own request with a JSON 500, and the process goes on answering', async () => {
    // In a process of its own: jest replaces the process-level listeners while a test runs.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/children/escaping-handler.ts'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      timeout: 90_000,
    });
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { name: 'emitter', status: 500, body: JSON.stringify({ error: 'Internal server error' }) },
      { name: 'rejection', status: 500, body: JSON.stringify({ error: 'Internal server error' }) },
      { name: 'healthy', status: 200, body: JSON.stringify({ ok: true }) },
    ]);
  }, 120_000);
});

// Each child loads the stack through tsx: on a loaded machine that alone has taken more than 20 s.
describe('an error that escapes outside any request, in the Lambda runtime', () => {
  it.each([
    ['throw', 'uncaughtException', 'outside any request'],
    ['rejection', 'unhandledRejection', 'rejected outside any request'],
  ])('(%s) reaches the runtime\'s own listener, which ends the container; errors inside requests still settle only theirs', async (mode, event, message) => {
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/children/escaping-in-runtime.ts', mode], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001' },
      timeout: 90_000,
    });
    const failed = await run.then(() => undefined, (err: { code?: number; stdout?: string }) => err);
    expect(failed?.code).toBe(3);
    const lines = String(failed?.stdout ?? '').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { name: 'emitter', status: 500 },
      { name: 'rejection', status: 500 },
      { name: 'healthy', status: 200 },
      { runtime: event, message },
    ]);
  }, 120_000);
});

const boundary = '----tootless-test-boundary';
const truncatedFilePart = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\nhalf a file`,
  'binary',
);

describe('a multipart body that ends inside a file part', () => {
  it('is answered 400 without a token, and the next request is served', async () => {
    const res = await call(createMedia, {
      method: 'POST',
      path: '/api/v1/media',
      body: { data: truncatedFilePart, contentType: `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Error occurred while parsing request parameters' });
    const after = await call(createMedia, { method: 'POST', path: '/api/v1/media' });
    expect(after.status).toBe(401);
  });

  it('is answered 400 on an authenticated upload endpoint and changes nothing', async () => {
    const { token } = await aUser();
    await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token, json: { display_name: 'Before' } });
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="display_name"\r\n\r\nAfter\r\n`),
      truncatedFilePart,
    ]);
    const res = await call(updateCredentials, {
      method: 'PATCH',
      path: '/api/v1/accounts/update_credentials',
      token,
      body: { data: body, contentType: `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status).toBe(400);
    expect(res.headers['x-db-writes']).toBe('0');
    const me = await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token, json: {} });
    expect(me.body.display_name).toBe('Before');
  });

  it('with no boundary, a wrong boundary, or an oversized field, is refused with a 4xx JSON error', async () => {
    const cases: { contentType: string; data: Buffer; status: number }[] = [
      { contentType: 'multipart/form-data', data: Buffer.from('--x\r\n\r\n'), status: 400 },
      { contentType: 'multipart/form-data; boundary=other', data: truncatedFilePart, status: 400 },
      {
        contentType: `multipart/form-data; boundary=${boundary}`,
        data: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="description"\r\n\r\n${'x'.repeat(1024 * 1024 + 10)}\r\n--${boundary}--\r\n`),
        status: 413,
      },
    ];
    for (const c of cases) {
      const res = await call(createMedia, { method: 'POST', path: '/api/v1/media', body: { data: c.data, contentType: c.contentType } });
      expect({ status: res.status, hasError: typeof res.body.error === 'string' }).toEqual({ status: c.status, hasError: true });
    }
  });
});
