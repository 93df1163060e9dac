// The structured logger (lib/log.ts, Powertools' Logger): every line names the service and the stage, and once
// an entry point has seen its invocation, the request id and the function; no line carries a token, a password
// or an e-mail address, whether in a field named for it or inside another string.
import { jest } from '@jest/globals';
import { handler as verifyCredentials } from '../../functions/apps/verify_credentials';
import { log, logInvocation, redact, REDACTED } from '../../lib/log';
import { call, lambdaContext } from '../support/http';

/** The JSON lines written to stdout and stderr while `fn` runs, at LOG_LEVEL `level`. */
async function linesOf(level: string, fn: () => Promise<unknown> | void): Promise<Record<string, unknown>[]> {
  const saved = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = level;
  const written: string[] = [];
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
  try {
    await fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.env.LOG_LEVEL = saved;
  }
  return written.join('').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the log', () => {
  it('writes JSON lines with the level, message, time, service and stage, and the invocation once an entry point saw it', async () => {
    const context = { ...lambdaContext(), functionName: 'tootless-test-fanoutWorker', invokedFunctionArn: 'arn:aws:lambda:us-east-1:1:function:x', memoryLimitInMB: '1024' };
    const lines = await linesOf('info', () => {
      logInvocation(context);
      log.info('fanout: home entries written', { statusId: '1', written: 2 });
      log.debug('not at info');
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      message: 'fanout: home entries written',
      service: 'tootless',
      stage: process.env.STAGE,
      function_request_id: context.awsRequestId,
      function_name: 'tootless-test-fanoutWorker',
      statusId: '1',
      written: 2,
    });
    expect(Date.parse(String(lines[0]!.timestamp))).not.toBeNaN();
  });

  it('puts each HTTP request\'s own id on its lines', async () => {
    const lines = await linesOf('debug', async () => {
      await call(verifyCredentials, { path: '/api/v1/apps/verify_credentials', token: 'not-a-token-0123456789' });
    });
    const request = lines.find((l) => l.message === 'request');
    expect(request).toMatchObject({ status: 401, path: '/api/v1/apps/verify_credentials' });
    expect(request!.function_request_id).toEqual(expect.any(String));
    expect(JSON.stringify(lines)).not.toContain('not-a-token-0123456789');
  });

  it('never writes a token, password or e-mail address, by field name or inside any string', async () => {
    const err = new Error('delivery to ann@mail.example failed: Authorization: Bearer abc.DEF-123_xyz');
    const lines = await linesOf('error', () => {
      log.error('signup failed', {
        email: 'ann@mail.example',
        password: 'correct horse battery staple',
        accessToken: 'tok-123',
        refresh_token: 'tok-456',
        headers: { Authorization: 'Bearer tok-789', Cookie: '_session_id=s3cr3t', 'content-type': 'application/json' },
        url: 'https://social.example/api/v1/streaming?access_token=tok-000&stream=user',
        note: 'contact bob@other.example (token in the URL: /oauth/authorize?code=c0de)',
        err,
        count: 3,
      });
    });
    const text = JSON.stringify(lines);
    for (const secret of ['ann@mail.example', 'bob@other.example', 'correct horse', 'tok-123', 'tok-456', 'tok-789', 's3cr3t', 'tok-000', 'abc.DEF-123_xyz', 'c0de']) {
      expect([secret, text.includes(secret)]).toEqual([secret, false]);
    }
    expect(lines[0]).toMatchObject({
      level: 'ERROR',
      email: REDACTED,
      password: REDACTED,
      headers: { Authorization: REDACTED, Cookie: REDACTED, 'content-type': 'application/json' },
      url: `https://social.example/api/v1/streaming?access_token=${REDACTED}&stream=user`,
      count: 3,
      err: { name: 'Error', message: `delivery to ${REDACTED} failed: Authorization: Bearer ${REDACTED}` },
    });
  });

  it('keeps what is no secret as it is', () => {
    for (const [key, value] of [['statusId', '117696288'], ['emailDomain', 'mail.example'], ['tokens', 3], ['path', '/api/v1/timelines/home']] as const) {
      expect(redact(key, value)).toBe(value);
    }
  });
});
