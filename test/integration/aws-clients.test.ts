// lib/aws's SDK clients against a stand-in server: each service call's protocol (path,
// target, content type, signing scope), errors named after their AWS type, the standard
// retries, the time limits, and the metering. DynamoDB and S3 run against dynalite and
// s3rver in the other suites.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dynamo, meterDb, observeRequests, useRequestTimeout, type DbMeter } from '../../lib/aws';
import { invokeEvent } from '../../lib/aws/lambda';
import { connectionRequest } from '../../lib/aws/management';
import { getObject } from '../../lib/aws/s3';
import { sendEmail } from '../../lib/aws/ses';
import { sendMessage } from '../../lib/aws/sqs';
import { getParameters } from '../../lib/aws/ssm';
import { bundled as bundle } from '../support/bundle';

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer };
type Answer = { status: number; body?: string; headers?: Record<string, string>; hang?: boolean };

let server: Server;
let seen: Seen[] = [];
let answers: Answer[] = [];
let endpoint = '';
const saved: Record<string, string | undefined> = {};
const ENDPOINT_VARIABLES = ['AWS_ENDPOINT_URL_SQS', 'AWS_ENDPOINT_URL_SSM', 'AWS_ENDPOINT_URL_SESV2', 'LAMBDA_ENDPOINT'];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const answer = answers.shift() ?? { status: 200, body: '{}' };
      if (answer.hang) return;
      res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const name of ENDPOINT_VARIABLES) {
    saved[name] = process.env[name];
    process.env[name] = endpoint;
  }
});

afterAll(async () => {
  for (const name of ENDPOINT_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  // Connections left hanging on purpose (the time-limit test) would hold close() forever.
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  answers = [];
});

const scopeOf = (r: Seen) => /Credential=S3RVER\/\d{8}\/([^,]+),/.exec(String(r.headers.authorization))?.[1];

describe('the services', () => {
  it('sends SQS SendMessage in the JSON protocol, signed for sqs', async () => {
    // SQS answers the body's MD5, which the SDK checks.
    answers.push({ status: 200, body: JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: createHash('md5').update('{"a":1}').digest('hex') }) });
    const out = await sendMessage({ QueueUrl: `${endpoint}/000000000000/fanout`, MessageBody: '{"a":1}', DelaySeconds: 5 });
    expect(out.MessageId).toBe('m-1');
    const [r] = seen;
    expect(r!.method).toBe('POST');
    expect(r!.url).toBe('/');
    expect(r!.headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(r!.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(JSON.parse(r!.body.toString())).toEqual({ QueueUrl: `${endpoint}/000000000000/fanout`, MessageBody: '{"a":1}', DelaySeconds: 5 });
    expect(scopeOf(r!)).toBe('us-east-1/sqs/aws4_request');
  });

  it('sends SSM GetParameters with decryption (JSON 1.1)', async () => {
    answers.push({ status: 200, body: '{"Parameters":[{"Name":"/a","Value":"x"}],"InvalidParameters":[]}' });
    expect(await getParameters(['/a'])).toEqual({ Parameters: [{ Name: '/a', Value: 'x' }], InvalidParameters: [] });
    const [r] = seen;
    expect(r!.headers['x-amz-target']).toBe('AmazonSSM.GetParameters');
    expect(r!.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(JSON.parse(r!.body.toString())).toEqual({ Names: ['/a'], WithDecryption: true });
  });

  it('sends SES v2 SendEmail to /v2/email/outbound-emails, signed for ses', async () => {
    const input = { FromEmailAddress: 'a@x.example', Destination: { ToAddresses: ['b@y.example'] }, Content: { Simple: { Subject: { Data: 'Hé' }, Body: { Text: { Data: 'ünïcode' } } } } };
    await sendEmail(input);
    const [r] = seen;
    expect(r!.url).toBe('/v2/email/outbound-emails');
    expect(JSON.parse(r!.body.toString())).toEqual(input);
    expect(scopeOf(r!)).toBe('us-east-1/ses/aws4_request');
  });

  it('invokes a Lambda function asynchronously (Event)', async () => {
    answers.push({ status: 202, body: '' });
    expect(await invokeEvent('tootless-local-fanoutWorker', '{"Records":[]}')).toBe(202);
    const [r] = seen;
    expect(r!.url).toBe('/2015-03-31/functions/tootless-local-fanoutWorker/invocations');
    expect(r!.headers['x-amz-invocation-type']).toBe('Event');
    expect(r!.body.toString()).toBe('{"Records":[]}');
  });

  it('posts to and deletes a WebSocket connection through the Management API, its stage path kept', async () => {
    await connectionRequest(`${endpoint}/local`, 'abc=', Buffer.from('{"event":"update"}'));
    await connectionRequest(`${endpoint}/local`, 'abc=');
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /local/@connections/abc%3D', 'DELETE /local/@connections/abc%3D']);
    expect(seen[0]!.body.toString()).toBe('{"event":"update"}');
    expect(scopeOf(seen[0]!)).toBe('us-east-1/execute-api/aws4_request');
  });
});

describe('errors and retries', () => {
  it('names an error after its AWS type, with the status and the body fields, and does not retry a client error', async () => {
    answers.push({ status: 400, body: '{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."}' });
    const err = (await sendMessage({ QueueUrl: `${endpoint}/0/q`, MessageBody: '{}' }).catch((e: unknown) => e)) as Error & { $metadata: { httpStatusCode: number } };
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('QueueDoesNotExist');
    expect(err.message).toBe('The specified queue does not exist.');
    expect(err.$metadata.httpStatusCode).toBe(400);
    expect(seen).toHaveLength(1);
  });

  it('reads the error type from x-amzn-ErrorType (REST JSON), and a bare 410 as GoneException', async () => {
    answers.push({ status: 404, body: '{"Message":"Function not found"}', headers: { 'x-amzn-ErrorType': 'ResourceNotFoundException:http://internal.amazon.com/' } });
    const missing = (await invokeEvent('nope', '{}').catch((e: unknown) => e)) as Error;
    expect(missing.name).toBe('ResourceNotFoundException');
    expect(missing.message).toBe('Function not found');
    answers.push({ status: 410, body: '' });
    const gone = (await connectionRequest(endpoint, 'gone', Buffer.from('x')).catch((e: unknown) => e)) as Error & { $metadata: { httpStatusCode: number } };
    expect(gone.name).toBe('GoneException');
    expect(gone.$metadata.httpStatusCode).toBe(410);
  });

  it('retries server errors up to 3 attempts in all (the SDK default)', async () => {
    answers.push({ status: 500, body: '{"__type":"InternalFailure"}' }, { status: 503, body: '{}' }, { status: 500, body: '{}' }, { status: 200, body: '{}' });
    const err = (await sendMessage({ QueueUrl: `${endpoint}/0/q`, MessageBody: '{}' }).catch((e: unknown) => e)) as Error & { $metadata: { httpStatusCode: number } };
    expect(err.$metadata.httpStatusCode).toBe(500);
    expect(seen).toHaveLength(3);
  });

  it('retries DynamoDB throttling and server errors, 4 attempts in all, and answers the retried call', async () => {
    const previous = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    try {
      answers.push(
        { status: 400, body: '{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}' },
        { status: 500, body: '{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"}' },
        { status: 200, body: '{"Item":{"PK":{"S":"a"},"n":{"N":"5"},"tags":{"SS":["x"]}}}' },
      );
      const out = await dynamo().get({ TableName: 't', Key: { PK: 'a', SK: 'b' } });
      expect(out.Item).toEqual({ PK: 'a', n: 5, tags: new Set(['x']) });
      expect(seen).toHaveLength(3);
      expect(seen[0]!.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
      expect(JSON.parse(seen[0]!.body.toString())).toEqual({ TableName: 't', Key: { PK: { S: 'a' }, SK: { S: 'b' } } });

      answers.push(...Array.from({ length: 4 }, () => ({ status: 503, body: '{}' })));
      seen = [];
      await expect(dynamo().get({ TableName: 't', Key: { PK: 'a', SK: 'b' } })).rejects.toMatchObject({ $metadata: { httpStatusCode: 503 } });
      expect(seen).toHaveLength(4);
    } finally {
      if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = previous;
    }
  });

  it('answers a missing S3 object as NoSuchKey (s3rver)', async () => {
    const err = (await getObject({ Bucket: process.env.MEDIA_BUCKET!, Key: 'federation/inbox/none.json' }).catch((e: unknown) => e)) as Error & { $metadata: { httpStatusCode: number } };
    expect(err.name).toBe('NoSuchKey');
    expect(err.$metadata.httpStatusCode).toBe(404);
  });

  it('marshals removing undefined values and unmarshals the DocumentClient way', async () => {
    const previous = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    try {
      answers.push({ status: 200, body: '{"Responses":{"t":[{"PK":{"S":"a"},"m":{"M":{"x":{"L":[{"N":"1"},{"NULL":true}]}}}}]},"UnprocessedKeys":{"t":{"Keys":[{"PK":{"S":"b"}}]}}}' });
      const out = await dynamo().batchGet({ RequestItems: { t: { Keys: [{ PK: 'a', gone: undefined }, { PK: 'b' }] } } });
      expect(JSON.parse(seen[0]!.body.toString())).toEqual({ RequestItems: { t: { Keys: [{ PK: { S: 'a' } }, { PK: { S: 'b' } }] } } });
      expect(out).toEqual({ Responses: { t: [{ PK: 'a', m: { x: [1, null] } }] }, UnprocessedKeys: { t: { Keys: [{ PK: 'b' }] } } });
    } finally {
      if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = previous;
    }
  });
});

describe('time limits and metering', () => {
  const withDynamoAt = async (at: string, fn: () => Promise<void>) => {
    const previous = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = at;
    try {
      await fn();
    } finally {
      if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = previous;
    }
  };

  it('gives up an attempt the server never answers, and retries it: a stalled connection cannot hold a request', async () => {
    useRequestTimeout(300);
    try {
      await withDynamoAt(endpoint, async () => {
        answers.push({ status: 0, hang: true }, { status: 0, hang: true }, { status: 200, body: '{"Item":{"PK":{"S":"late"}}}' });
        expect(await dynamo().get({ TableName: 't', Key: { PK: 'late' } })).toEqual({ Item: { PK: 'late' } });
        expect(seen).toHaveLength(3);
        seen = [];
        answers.push(...Array.from({ length: 4 }, () => ({ status: 0, hang: true })));
        await expect(dynamo().get({ TableName: 't', Key: { PK: 'never' } })).rejects.toMatchObject({ name: 'TimeoutError' });
        expect(seen).toHaveLength(4);
      });
    } finally {
      useRequestTimeout(undefined);
    }
  });

  it('meters a call once, its retries on the wire, and shows each call once to the observers', async () => {
    await withDynamoAt(endpoint, async () => {
      answers.push({ status: 500, body: '{}' }, { status: 200, body: '{}' });
      const observed: string[] = [];
      const stop = observeRequests((req) => {
        observed.push(`${req.service} ${req.headers['x-amz-target']}`);
      });
      const meter: DbMeter = { calls: 0, writes: 0 };
      try {
        await meterDb(meter, () => dynamo().put({ TableName: 't', Item: { PK: 'p' } }));
      } finally {
        stop();
      }
      expect(seen).toHaveLength(2);
      expect(observed).toEqual(['dynamodb DynamoDB_20120810.PutItem']);
      expect(meter).toMatchObject({ calls: 1, writes: 1, inFlight: 0 });
      expect(meter.waitMs).toBeGreaterThan(0);
    });
  });
});

describe('as the functions ship them (serverless.yml custom.esbuild)', () => {
  type Shipped = { getParameters: typeof getParameters };

  it('carry the environment\'s credentials alone, not the default chain and its STS and SSO clients, and sign with them', async () => {
    const { module, inputs, remove } = await bundle<Shipped>({ 'lib/aws/ssm.ts': ['getParameters'] });
    try {
      for (const gone of ['@aws-sdk/credential-provider-node/', '@aws-sdk/credential-provider-ini/', '@aws-sdk/credential-provider-sso/', '@aws-sdk/nested-clients/']) {
        expect(inputs.filter((p) => p.includes(`node_modules/${gone}`))).toEqual([]);
      }
      expect(inputs.some((p) => p.endsWith('infra/bundle/credentials-from-environment.mjs'))).toBe(true);
      answers.push({ status: 200, body: '{"Parameters":[],"InvalidParameters":["/b"]}' });
      expect(await module.getParameters(['/b'])).toEqual({ Parameters: [], InvalidParameters: ['/b'] });
      expect(scopeOf(seen[0]!)).toBe('us-east-1/ssm/aws4_request');
    } finally {
      remove();
    }
  }, 60_000);

  it('the stand-in answers the environment\'s credentials as the default chain does, and refuses when there are none', async () => {
    const real = (await import('@aws-sdk/credential-provider-node')).defaultProvider;
    const standIn = (await import('../../infra/bundle/credentials-from-environment.mjs' as string)) as { defaultProvider: typeof real };
    const names = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION'] as const;
    const before = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    const plain = (c: object) => ({ ...c, $source: undefined });
    try {
      for (const env of [
        { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' },
        { AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token', AWS_CREDENTIAL_EXPIRATION: '2030-01-01T00:00:00Z' },
      ]) {
        for (const n of names) delete process.env[n];
        Object.assign(process.env, env);
        expect(plain(await standIn.defaultProvider()())).toEqual(plain(await real()()));
      }
      for (const n of names) delete process.env[n];
      await expect(standIn.defaultProvider()()).rejects.toMatchObject({ name: 'CredentialsProviderError' });
    } finally {
      for (const n of names) {
        if (before[n] === undefined) delete process.env[n];
        else process.env[n] = before[n];
      }
    }
  });
});
