// lib/aws's signed-HTTP transport against a stand-in server: each service call's
// protocol (path, target, content type, signing scope), signatures equal to the
// SDK's SigV4 signer's, errors named as the SDK named them, and the SDK's retries.
// DynamoDB and S3 run against dynalite and s3rver in the other suites.
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { connectionRequest, dynamo, getObject, getParameters, invokeEvent, sendEmail, sendMessage } from '../../lib/aws';

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer };
type Answer = { status: number; body?: string; headers?: Record<string, string> };

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
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  answers = [];
});

type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data): string | Uint8Array =>
  typeof data === 'string' ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

class Sha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

/** What the SDK's signer makes of the request the server received, with the headers our signature covers. */
async function sdkSignature(request: Seen, service: string): Promise<string> {
  const auth = String(request.headers.authorization);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(';');
  const headers = Object.fromEntries(signedHeaders.map((name) => [name, String(request.headers[name])]));
  const date = String(request.headers['x-amz-date']);
  const signingDate = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const signer = new SignatureV4({
    service,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    sha256: Sha256,
    uriEscapePath: service !== 's3',
    applyChecksum: false,
  });
  const [path, query] = request.url.split('?');
  const signed = await signer.sign(
    { method: request.method, protocol: 'http:', hostname: '127.0.0.1', path: path!, query: query ? Object.fromEntries(new URLSearchParams(query)) : {}, headers, body: request.body },
    { signingDate },
  );
  return String(signed.headers.authorization);
}

const scopeOf = (r: Seen) => /Credential=S3RVER\/\d{8}\/([^,]+),/.exec(String(r.headers.authorization))?.[1];

describe('the services', () => {
  it('sends SQS SendMessage in the JSON protocol, signed for sqs', async () => {
    answers.push({ status: 200, body: '{"MessageId":"m-1"}' });
    const out = await sendMessage({ QueueUrl: `${endpoint}/000000000000/fanout`, MessageBody: '{"a":1}', DelaySeconds: 5 });
    expect(out.MessageId).toBe('m-1');
    const [r] = seen;
    expect(r!.method).toBe('POST');
    expect(r!.url).toBe('/');
    expect(r!.headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(r!.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(JSON.parse(r!.body.toString())).toEqual({ QueueUrl: `${endpoint}/000000000000/fanout`, MessageBody: '{"a":1}', DelaySeconds: 5 });
    expect(scopeOf(r!)).toBe('us-east-1/sqs/aws4_request');
    expect(String(r!.headers.authorization)).toBe(await sdkSignature(r!, 'sqs'));
  });

  it('sends SSM GetParameters with decryption (JSON 1.1)', async () => {
    answers.push({ status: 200, body: '{"Parameters":[{"Name":"/a","Value":"x"}],"InvalidParameters":[]}' });
    expect(await getParameters(['/a'])).toEqual({ Parameters: [{ Name: '/a', Value: 'x' }], InvalidParameters: [] });
    const [r] = seen;
    expect(r!.headers['x-amz-target']).toBe('AmazonSSM.GetParameters');
    expect(r!.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(JSON.parse(r!.body.toString())).toEqual({ Names: ['/a'], WithDecryption: true });
    expect(String(r!.headers.authorization)).toBe(await sdkSignature(r!, 'ssm'));
  });

  it('sends SES v2 SendEmail to /v2/email/outbound-emails, signed for ses', async () => {
    const input = { FromEmailAddress: 'a@x.example', Destination: { ToAddresses: ['b@y.example'] }, Content: { Simple: { Subject: { Data: 'Hé' }, Body: { Text: { Data: 'ünïcode' } } } } };
    await sendEmail(input);
    const [r] = seen;
    expect(r!.url).toBe('/v2/email/outbound-emails');
    expect(JSON.parse(r!.body.toString())).toEqual(input);
    expect(scopeOf(r!)).toBe('us-east-1/ses/aws4_request');
    expect(String(r!.headers.authorization)).toBe(await sdkSignature(r!, 'ses'));
  });

  it('invokes a Lambda function asynchronously (Event)', async () => {
    answers.push({ status: 202, body: '' });
    expect(await invokeEvent('tootless-local-fanoutWorker', '{"Records":[]}')).toBe(202);
    const [r] = seen;
    expect(r!.url).toBe('/2015-03-31/functions/tootless-local-fanoutWorker/invocations');
    expect(r!.headers['x-amz-invocation-type']).toBe('Event');
    expect(r!.body.toString()).toBe('{"Records":[]}');
    expect(String(r!.headers.authorization)).toBe(await sdkSignature(r!, 'lambda'));
  });

  it('posts to and deletes a WebSocket connection through the Management API, its stage path kept', async () => {
    await connectionRequest(`${endpoint}/local`, 'abc=', Buffer.from('{"event":"update"}'));
    await connectionRequest(`${endpoint}/local`, 'abc=');
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /local/@connections/abc%3D', 'DELETE /local/@connections/abc%3D']);
    expect(seen[0]!.body.toString()).toBe('{"event":"update"}');
    expect(scopeOf(seen[0]!)).toBe('us-east-1/execute-api/aws4_request');
    expect(String(seen[0]!.headers.authorization)).toBe(await sdkSignature(seen[0]!, 'execute-api'));
    expect(String(seen[1]!.headers.authorization)).toBe(await sdkSignature(seen[1]!, 'execute-api'));
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
      expect(String(seen[0]!.headers.authorization)).toBe(await sdkSignature(seen[0]!, 'dynamodb'));

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
