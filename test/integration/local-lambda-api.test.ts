// The local stack's Lambda Invoke API (infra/local/lambda-api.ts), driven over HTTP as the AWS SDK drives it: the
// invocation types, the answers Lambda gives (results, function errors, refusals) as the SDK's LambdaClient reads
// them, and the queue adapter's delayed messages held as SQS holds them (what infra/local/queue-front.ts did).
import { InvokeCommand, LambdaClient, ResourceNotFoundException } from '@aws-sdk/client-lambda';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lambdaApi, requestedDelay, type LambdaApi } from '../../infra/local/lambda-api';
import { LocalFunctions, type LocalFunction, type Say, type Serverless } from '../../infra/local/local-functions';
import { sqsEvent } from '../../lib/queue';
import { eventually } from '../support/masto';

type Seen = { fn: string; event: unknown };
let seen: Seen[];
let said: { level: Parameters<Say>[0]; line: string }[];
/** What the recording runner does with an invocation; by default answers `{ answered: true }`. */
let behaviour: (fn: LocalFunction, event: unknown) => Promise<unknown>;
let api: LambdaApi;
let server: Server;
let url: string;

// The real lookup by name, key or ARN, over a service of two functions.
const serverless: Serverless = {
  config: {},
  service: {
    provider: { region: 'us-east-1' },
    getAllFunctions: () => ['sweeper', 'deliverWorker'],
    getFunction: (key: string) => ({ handler: `functions/${key}/index.handler`, name: `tootless-local-${key}` }),
  },
};
const functions = new LocalFunctions(serverless, '/nowhere');

beforeEach(async () => {
  seen = [];
  said = [];
  behaviour = async () => ({ answered: true });
  api = lambdaApi({
    find: (name) => functions.byName(name),
    invoke: (fn, event) => {
      seen.push({ fn: fn.key, event });
      return behaviour(fn, event);
    },
    say: (level, line) => said.push({ level, line }),
  });
  server = createServer((req, res) => api.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  api.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const invoke = (fn: string, payload: unknown, type: string | undefined = 'Event', query = '') =>
  fetch(`${url}/2015-03-31/functions/${fn}/invocations${query}`, {
    method: 'POST',
    headers: type === undefined ? {} : { 'x-amz-invocation-type': type },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

const sdk = () => new LambdaClient({ endpoint: url, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

describe('the Lambda invoke API, as the queue adapter uses it', () => {
  it('runs an Event invocation without a delay at once; answers a RequestResponse one with its result', async () => {
    const res = await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{ a: 1 }]));
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    await eventually(async () => seen.length === 1, 'the invocation');
    expect(seen[0]!.fn).toBe('deliverWorker');
    expect((seen[0]!.event as { Records: { body: string }[] }).Records[0]!.body).toBe('{"a":1}');
    const sync = await invoke('tootless-local-sweeper', { at: 1 }, 'RequestResponse');
    expect(sync.status).toBe(200);
    expect(sync.headers.get('x-amz-executed-version')).toBe('$LATEST');
    expect(sync.headers.get('content-type')).toBe('application/json');
    expect(await sync.json()).toEqual({ answered: true });
    expect(seen[1]).toEqual({ fn: 'sweeper', event: { at: 1 } });
  });

  it('holds a delayed message: answered at once, run when its delay is up', async () => {
    const res = await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{ retry: 2 }], 1));
    expect(res.status).toBe(202);
    expect(seen).toHaveLength(0);
    expect(api.held()).toBe(1);
    const arrived = await eventually(async () => seen[0], 'the held invocation', 10_000);
    expect(arrived.fn).toBe('deliverWorker');
    expect((arrived.event as { Records: { body: string }[] }).Records[0]!.body).toBe('{"retry":2}');
    expect(api.held()).toBe(0);
  });

  it('a held message not yet due when the stack stops is dropped with it, never run late', async () => {
    await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{ late: true }], 1));
    expect(api.held()).toBe(1);
    api.close();
    expect(api.held()).toBe(0);
    // One sent after the stop is dropped too.
    expect((await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{ later: true }], 1))).status).toBe(202);
    expect(api.held()).toBe(0);
    // Past the delay: nothing ran.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(seen).toHaveLength(0);
  });

  it('holds only Event invocations: a RequestResponse one with the attribute runs at once', async () => {
    const res = await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{}], 60), 'RequestResponse');
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(api.held()).toBe(0);
  });

  it('answers an Event invocation at once and runs it in the background; a failure is logged, never thrown', async () => {
    let release: (value: unknown) => void = () => undefined;
    behaviour = () => new Promise((resolve) => (release = resolve));
    const res = await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{}]));
    expect(res.status).toBe(202);
    expect(seen).toHaveLength(1);
    release(undefined);

    behaviour = async () => {
      throw new Error(new TypeError('the worker broke').stack);
    };
    const failing = await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{}]));
    expect(failing.status).toBe(202);
    const line = await eventually(async () => said.find((s) => s.level === 'error'), 'the failure logged');
    expect(line.line).toContain('deliverWorker');
    expect(line.line).toContain('TypeError: the worker broke');
    // An invoke that throws rather than rejects is caught the same.
    behaviour = () => {
      throw new Error('thrown');
    };
    expect((await invoke('tootless-local-deliverWorker', {})).status).toBe(202);
    await eventually(async () => said.filter((s) => s.level === 'error').length === 2, 'the second failure logged');
  });
});

describe('the Lambda invoke API, as Lambda answers', () => {
  it('writes a result as JSON: nothing is null, a string is a JSON string', async () => {
    behaviour = async () => undefined;
    expect(await (await invoke('tootless-local-sweeper', {}, 'RequestResponse')).text()).toBe('null');
    behaviour = async () => 'done "quoted"';
    expect(await (await invoke('tootless-local-sweeper', {}, 'RequestResponse')).json()).toBe('done "quoted"');
    // No invocation type is RequestResponse; no payload is `{}`.
    behaviour = async (_fn, event) => ({ got: event });
    const res = await fetch(`${url}/2015-03-31/functions/tootless-local-sweeper/invocations`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ got: {} });
  });

  it('answers a failed invocation 200 with X-Amz-Function-Error and the runtime’s error document', async () => {
    const thrown = new TypeError('cannot read x\nof undefined');
    behaviour = async () => {
      throw new Error(thrown.stack);
    };
    const res = await invoke('tootless-local-sweeper', {}, 'RequestResponse');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-amz-function-error')).toBe('Unhandled');
    const body = (await res.json()) as { errorType: string; errorMessage: string; trace: string[] };
    expect(body.errorType).toBe('TypeError');
    expect(body.errorMessage).toBe('cannot read x\nof undefined');
    expect(body.trace).toEqual(thrown.stack!.split('\n'));
    expect(body.trace[2]).toMatch(/^\s+at /);

    behaviour = async () => {
      throw new Error('sweeper: Task timed out after 300.00 seconds');
    };
    const timedOut = (await (await invoke('tootless-local-sweeper', {}, 'RequestResponse')).json()) as { errorType: string; errorMessage: string };
    expect(timedOut).toMatchObject({ errorType: 'Sandbox.Timedout', errorMessage: 'sweeper: Task timed out after 300.00 seconds' });

    behaviour = async () => {
      throw new Error('sweeper: the instance exited');
    };
    expect(await (await invoke('tootless-local-sweeper', {}, 'RequestResponse')).json()).toMatchObject({ errorType: 'Error', errorMessage: 'sweeper: the instance exited' });
  });

  it('fails a result over 6 MB as Function.ResponseSizeTooLarge', async () => {
    behaviour = async () => 'x'.repeat(6_291_456);
    const res = await invoke('tootless-local-sweeper', {}, 'RequestResponse');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-amz-function-error')).toBe('Unhandled');
    const body = (await res.json()) as { errorType: string; errorMessage: string };
    expect(body.errorType).toBe('Function.ResponseSizeTooLarge');
    expect(body.errorMessage).toContain('6291458 bytes');
  });

  it('answers 404 ResourceNotFoundException for an unknown function, an unknown qualifier, an unknown path', async () => {
    const res = await invoke('tootless-local-nothing', {}, 'RequestResponse');
    expect(res.status).toBe(404);
    expect(res.headers.get('x-amzn-errortype')).toBe('ResourceNotFoundException');
    expect(await res.json()).toEqual({ Type: 'User', Message: 'Function not found: tootless-local-nothing' });
    expect((await invoke('tootless-local-sweeper', {}, 'RequestResponse', '?Qualifier=2')).status).toBe(404);
    expect((await invoke('tootless-local-sweeper', {}, 'RequestResponse', '?Qualifier=%24LATEST')).status).toBe(200);
    const other = await fetch(`${url}/2015-03-31/functions/sweeper`, { method: 'GET' });
    expect(other.status).toBe(404);
    expect(other.headers.get('x-amzn-errortype')).toBe('UnknownOperationException');
    expect(seen).toHaveLength(1);
  });

  it('finds a function by its ARN, encoded or not', async () => {
    const arn = 'arn:aws:lambda:us-east-1:000000000000:function:tootless-local-sweeper';
    expect((await invoke(encodeURIComponent(arn), {}, 'RequestResponse')).status).toBe(200);
    expect((await invoke(arn, {}, 'RequestResponse')).status).toBe(200);
    expect(seen.map((s) => s.fn)).toEqual(['sweeper', 'sweeper']);
  });

  it('DryRun: 204, nothing run', async () => {
    const res = await invoke('tootless-local-sweeper', {}, 'DryRun');
    expect(res.status).toBe(204);
    expect(seen).toHaveLength(0);
    expect((await invoke('tootless-local-nothing', {}, 'DryRun')).status).toBe(404);
  });

  it('refuses another invocation type, 400 InvalidParameterValueException', async () => {
    const res = await invoke('tootless-local-sweeper', {}, 'Later');
    expect(res.status).toBe(400);
    expect(res.headers.get('x-amzn-errortype')).toBe('InvalidParameterValueException');
    expect(seen).toHaveLength(0);
  });

  it('refuses a payload that is not JSON, 400 InvalidRequestContentException', async () => {
    for (const type of ['RequestResponse', 'Event']) {
      const res = await invoke('tootless-local-sweeper', 'not json', type);
      expect(res.status).toBe(400);
      expect(res.headers.get('x-amzn-errortype')).toBe('InvalidRequestContentException');
    }
    expect(seen).toHaveLength(0);
  });

  it('refuses a payload over the limits, 413 RequestTooLargeException: 6 MB synchronous, 1 MB asynchronous', async () => {
    const padded = (bytes: number) => JSON.stringify({ pad: 'x'.repeat(bytes - 10) });
    expect(padded(1_048_577)).toHaveLength(1_048_577);
    const syncTooLarge = await invoke('tootless-local-sweeper', padded(6_291_457), 'RequestResponse');
    expect(syncTooLarge.status).toBe(413);
    expect(syncTooLarge.headers.get('x-amzn-errortype')).toBe('RequestTooLargeException');
    expect(((await syncTooLarge.json()) as { Message: string }).Message).toContain('6291456 bytes');
    const asyncTooLarge = await invoke('tootless-local-sweeper', padded(1_048_577), 'Event');
    expect(asyncTooLarge.status).toBe(413);
    expect(((await asyncTooLarge.json()) as { Message: string }).Message).toContain('1048576 bytes');
    expect(seen).toHaveLength(0);
    // At the limits, both run.
    expect((await invoke('tootless-local-sweeper', padded(1_048_576), 'Event')).status).toBe(202);
    expect((await invoke('tootless-local-sweeper', padded(6_291_456), 'RequestResponse')).status).toBe(200);
    await eventually(async () => seen.length === 2, 'both invocations');
  });

  it('survives a client that goes away mid-body', async () => {
    const { request } = await import('node:http');
    await new Promise<void>((resolve) => {
      const req = request(`${url}/2015-03-31/functions/tootless-local-sweeper/invocations`, { method: 'POST', headers: { 'content-length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"half":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    // A request line `new URL` would throw on.
    const odd = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${url}/`, { method: 'POST', path: '//' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(odd).toBe(404);
    expect((await invoke('tootless-local-sweeper', {}, 'RequestResponse')).status).toBe(200);
    expect(seen).toHaveLength(1);
  });
});

describe('the Lambda invoke API, read by the AWS SDK’s LambdaClient', () => {
  it('RequestResponse: StatusCode, ExecutedVersion, Payload; a failure in FunctionError', async () => {
    const lambda = sdk();
    try {
      behaviour = async (_fn, event) => ({ echoed: event });
      const ok = await lambda.send(new InvokeCommand({ FunctionName: 'tootless-local-sweeper', Payload: Buffer.from('{"time":"2026-11-29T06:01:00Z"}') }));
      expect(ok.StatusCode).toBe(200);
      expect(ok.ExecutedVersion).toBe('$LATEST');
      expect(ok.FunctionError).toBeUndefined();
      expect(JSON.parse(text(ok.Payload))).toEqual({ echoed: { time: '2026-11-29T06:01:00Z' } });

      behaviour = async () => {
        throw new Error(new RangeError('out of range').stack);
      };
      const failed = await lambda.send(new InvokeCommand({ FunctionName: 'arn:aws:lambda:us-east-1:000000000000:function:tootless-local-sweeper', InvocationType: 'RequestResponse' }));
      expect(failed.StatusCode).toBe(200);
      expect(failed.FunctionError).toBe('Unhandled');
      expect(JSON.parse(text(failed.Payload))).toMatchObject({ errorType: 'RangeError', errorMessage: 'out of range' });
      expect(seen.map((s) => s.fn)).toEqual(['sweeper', 'sweeper']);
    } finally {
      lambda.destroy();
    }
  });

  it('Event: StatusCode 202; an unknown function a ResourceNotFoundException', async () => {
    const lambda = sdk();
    try {
      const queued = await lambda.send(new InvokeCommand({ FunctionName: 'tootless-local-deliverWorker', InvocationType: 'Event', Payload: Buffer.from(JSON.stringify(sqsEvent('deliver', [{ via: 'sdk' }]))) }));
      expect(queued.StatusCode).toBe(202);
      await eventually(async () => seen.length === 1, 'the invocation');
      expect((seen[0]!.event as { Records: { body: string }[] }).Records[0]!.body).toBe('{"via":"sdk"}');

      const dry = await lambda.send(new InvokeCommand({ FunctionName: 'tootless-local-sweeper', InvocationType: 'DryRun' }));
      expect(dry.StatusCode).toBe(204);

      const missing = lambda.send(new InvokeCommand({ FunctionName: 'tootless-local-nothing', InvocationType: 'Event', Payload: Buffer.from('{}') }));
      await expect(missing).rejects.toBeInstanceOf(ResourceNotFoundException);
      await expect(missing).rejects.toMatchObject({ message: 'Function not found: tootless-local-nothing', Type: 'User', $metadata: { httpStatusCode: 404 } });
      expect(seen).toHaveLength(1);
    } finally {
      lambda.destroy();
    }
  });
});

describe('the delay a payload asks for', () => {
  it('is the adapter attribute of an SQS event, capped at SQS’s 900 s', () => {
    const asBuffer = (v: unknown) => Buffer.from(JSON.stringify(v));
    expect(requestedDelay(asBuffer(sqsEvent('deliver', [{}], 60)))).toBe(60);
    expect(requestedDelay(asBuffer(sqsEvent('deliver', [{}])))).toBe(0);
    const tooLong = sqsEvent('deliver', [{}], 60);
    tooLong.Records[0]!.messageAttributes.DelaySeconds!.stringValue = '5000';
    expect(requestedDelay(asBuffer(tooLong))).toBe(900);
    for (const other of ['', 'not json', '{"Records":[]}', '{"Records":[{"messageAttributes":{"DelaySeconds":{"stringValue":"-3"}}}]}', '[1]', 'null', '{"Records":null}']) {
      expect(requestedDelay(Buffer.from(other))).toBe(0);
    }
  });
});
