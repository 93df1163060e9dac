// Secrets at run time (lib/secrets.ts): deployed stages read SECRET_KEY_BASE and
// the VAPID pair from SSM (SecureString parameters under SECRETS_PATH) once per
// container, never from their environment; a function without its secrets
// answers 500 {"error"} and touches nothing, and no stage but `local` runs on
// the public development secret. SSM is moto's server, started for this file,
// behind a counting relay so the test sees every call the functions make.
import { startMoto, stopMoto, type Moto } from '../support/moto';
import { config, useDeployedOrigin } from '../../lib/config';
import { createServer, request, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { SQSEvent } from 'aws-lambda';
import webpush from 'web-push';
import { handler as instanceHandler } from '../../functions/instance/show_v2';
import { handler as createSubscription } from '../../functions/push/create';
import { handler as showSubscription } from '../../functions/push/show';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as connectHandler } from '../../functions/streaming/connect';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById } from '../../lib/db/accounts';
import { pushSubscriptionsOf } from '../../lib/db/push_subscriptions';
import { newId } from '../../lib/ids';
import { openToken } from '../../lib/push/seal';
import { tokenBinding } from '../../lib/push/subscription';
import { registerInlineWorker } from '../../lib/queue';
import { freePort } from '../../infra/local/emulators';
import { aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

let moto: Moto | undefined;
let relay: Server | undefined;
let motoUrl = '';
/** The SSM parameter names of every GetParameters call that reached SSM, one entry per call. */
const getParametersCalls: string[][] = [];

/** Passes every request on to moto unchanged, noting the GetParameters calls. */
async function startRelay(target: string): Promise<string> {
  const port = await freePort();
  const to = new URL(target);
  relay = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.headers['x-amz-target'] === 'AmazonSSM.GetParameters') {
        getParametersCalls.push((JSON.parse(body.toString()) as { Names: string[] }).Names);
      }
      const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.writeHead(502).end());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => relay!.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  moto = await startMoto();
  motoUrl = moto.url;
  process.env.AWS_ENDPOINT_URL_SSM = await startRelay(motoUrl);
}, 90_000);

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_SSM;
  await new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve()));
  await stopMoto(moto);
});

// Each test states the stage's settings; the file's own (test/support/env.ts) come back after it.
// Posting enqueues a fan-out (and its notifications): the workers run in-process, through worker() and so through loadSecrets() too.
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const SETTINGS = ['STAGE', 'SECRETS_PATH', 'SECRET_KEY_BASE', 'VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY', 'EXPOSE_METRICS', 'PUSH_ALLOW_LOOPBACK', 'LOG_LEVEL'];
let saved: Record<string, string | undefined> = {};
beforeEach(() => {
  saved = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));
  process.env.EXPOSE_METRICS = '1';
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A deployed stage's environment: an SSM path, and no secret of its own. */
function deployedStage(path: string) {
  process.env.STAGE = 'prod';
  process.env.SECRETS_PATH = path;
  delete process.env.SECRET_KEY_BASE;
  delete process.env.VAPID_PUBLIC_KEY;
  delete process.env.VAPID_PRIVATE_KEY;
}

/** Writes a parameter as the deploy workflow does (infra/deploy/secrets.sh), straight to moto. */
async function putParameter(name: string, value: string, type: 'String' | 'SecureString' = 'SecureString') {
  const ssm = new SSMClient({ endpoint: motoUrl, region: process.env.AWS_REGION });
  await ssm.send(new PutParameterCommand({ Name: name, Value: value, Type: type, Overwrite: true }));
  ssm.destroy();
}

async function storeSecrets(path: string, opts: { without?: string } = {}) {
  const vapid = webpush.generateVAPIDKeys();
  const values = { 'secret-key-base': `ssm-secret-${randomUUID()}`, 'vapid-public-key': vapid.publicKey, 'vapid-private-key': vapid.privateKey, 'origin-secret': `origin-${randomUUID()}` };
  for (const [leaf, value] of Object.entries(values)) {
    if (leaf !== opts.without) await putParameter(`${path}/${leaf}`, value, leaf === 'vapid-public-key' ? 'String' : 'SecureString');
  }
  return values;
}

const callsFor = (path: string) => getParametersCalls.filter((names) => names.every((name) => name.startsWith(`${path}/`))).length;
const freshPath = () => `/tootless/t${randomUUID().slice(0, 8)}`;

/** What the functions log while `fn` runs (the structured logger writes warnings and errors to stderr). */
async function logged<T>(fn: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'error';
  const lines: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    return { result: await fn(), lines };
  } finally {
    spy.mockRestore();
    process.env.LOG_LEVEL = level;
  }
}

const subscriptionForm = () => ({
  'subscription[endpoint]': 'http://127.0.0.1:9/push/abc',
  'subscription[keys][p256dh]': 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  'subscription[keys][auth]': 'BTBZMqHH6r4Tts7J_aSIgg',
  'data[alerts][mention]': 'true',
});

const postStatus = (user: UserFixture, text: string) => call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: text }, token: user.token });

const sqsEvent = (body: unknown): SQSEvent => ({
  Records: [{ messageId: randomUUID(), receiptHandle: 'r', body: JSON.stringify(body), attributes: {} as never, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:notify', awsRegion: 'us-east-1' }],
});

describe('a deployed stage (SECRETS_PATH set)', () => {
  it('serves with the secrets stored in SSM: push subscriptions carry the stored VAPID key and seal with the stored secret key base', async () => {
    const user = await aUser();
    const path = freshPath();
    const stored = await storeSecrets(path);
    deployedStage(path);
    process.env.PUSH_ALLOW_LOOPBACK = '1';

    const created = await call(createSubscription, { method: 'POST', path: '/api/v1/push/subscription', form: subscriptionForm(), token: user.token });
    expect(created.status).toBe(200);
    expect(created.body.server_key).toBe(stored['vapid-public-key']);
    const instance = await call(instanceHandler, { path: '/api/v2/instance' });
    expect(instance.body.configuration.vapid.public_key).toBe(stored['vapid-public-key']);

    // The access token the subscription keeps was sealed under the SSM secret key base...
    const [sub] = await pushSubscriptionsOf(user.account.id);
    const binding = tokenBinding(sub!.accountId, sub!.tokenId);
    expect(openToken(sub!.sealedToken!, binding)).toBe(user.token);
    // ...and under nothing else: with another secret it does not open.
    process.env.SECRETS_PATH = '';
    process.env.STAGE = 'test';
    process.env.SECRET_KEY_BASE = 'some-other-secret';
    expect(openToken(sub!.sealedToken!, binding)).toBeUndefined();
  });

  it('reads SSM once per container, whatever the number of invocations', async () => {
    const user = await aUser();
    const path = freshPath();
    await storeSecrets(path);
    deployedStage(path);

    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => call(showSubscription, { path: '/api/v1/push/subscription', token: user.token })),
      ...Array.from({ length: 5 }, () => call(instanceHandler, { path: '/api/v2/instance' })),
    ]);
    for (let i = 0; i < 5; i++) answers.push(await postStatus(user, `post ${i}`));
    expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(404), ...Array(5).fill(200), ...Array(5).fill(200)]);
    expect(callsFor(path)).toBe(1);
    expect(getParametersCalls.find((names) => names[0]?.startsWith(`${path}/`))?.sort()).toEqual(
      [
        `${path}/deepl-api-key`,
        `${path}/libre-translate-api-key`,
        `${path}/origin-secret`,
        `${path}/public-url`,
        `${path}/secret-key-base`,
        `${path}/vapid-private-key`,
        `${path}/vapid-public-key`,
      ],
    );
  });

  it('turns translation on with a DeepL key stored in SSM, read in the same call; without one it stays off', async () => {
    const off = freshPath();
    await storeSecrets(off);
    deployedStage(off);
    expect((await call(instanceHandler, { path: '/api/v2/instance' })).body.configuration.translation).toEqual({ enabled: false });

    const on = freshPath();
    await storeSecrets(on);
    await putParameter(`${on}/deepl-api-key`, `key-${randomUUID()}:fx`);
    deployedStage(on);
    expect((await call(instanceHandler, { path: '/api/v2/instance' })).body.configuration.translation).toEqual({ enabled: true });
    expect(callsFor(on)).toBe(1);
    expect(process.env.DEEPL_API_KEY).toBeUndefined();
  });

  it('serves at the URL its stack published (public-url, read in the same call) when BASE_URL is not set, and needs it then', async () => {
    const path = freshPath();
    await storeSecrets(path);
    deployedStage(path);
    const set = { BASE_URL: process.env.BASE_URL, STREAMING_URL: process.env.STREAMING_URL, MEDIA_URL: process.env.MEDIA_URL };
    for (const name of Object.keys(set)) delete process.env[name];
    try {
      const { result: refused, lines } = await logged(() => call(instanceHandler, { path: '/api/v2/instance' }));
      expect(refused.status).toBe(500);
      expect(lines.join('')).toContain(`${path}/public-url`);
      await putParameter(`${path}/public-url`, 'https://d111111abcdef8.cloudfront.net', 'String');
      const instance = await call(instanceHandler, { path: '/api/v2/instance' });
      expect(instance.status).toBe(200);
      expect(instance.body).toMatchObject({
        domain: 'd111111abcdef8.cloudfront.net',
        configuration: { urls: { streaming: 'wss://d111111abcdef8.cloudfront.net' } },
      });
      expect(config.mediaUrl).toBe('https://d111111abcdef8.cloudfront.net/system');
    } finally {
      for (const [name, value] of Object.entries(set)) if (value !== undefined) process.env[name] = value;
      useDeployedOrigin(undefined);
    }
  });

  it('answers 500 {"error"} and writes nothing while a parameter is missing, naming it in the log; the next request reads SSM again', async () => {
    const user = await aUser();
    const path = freshPath();
    await storeSecrets(path, { without: 'vapid-private-key' });
    deployedStage(path);

    const { result: refused, lines } = await logged(() => postStatus(user, 'hello'));
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ error: 'Internal server error' });
    expect(refused.headers['x-db-calls']).toBe('0');
    expect(refused.headers['x-db-writes']).toBe('0');
    expect(lines.join('')).toContain(`${path}/vapid-private-key`);
    expect((await accountById(user.account.id))?.statusesCount).toBe(0);

    // The failure is not remembered: once the parameter exists, the next invocation reads it and posts.
    await putParameter(`${path}/vapid-private-key`, webpush.generateVAPIDKeys().privateKey);
    const posted = await postStatus(user, 'hello again');
    expect(posted.status).toBe(200);
    expect(callsFor(path)).toBe(2);
  });

  it('fails the invocation cleanly when SSM cannot be reached, and reads it on the next one', async () => {
    const user = await aUser();
    const path = freshPath();
    await storeSecrets(path);
    deployedStage(path);
    const relayUrl = process.env.AWS_ENDPOINT_URL_SSM;
    process.env.AWS_ENDPOINT_URL_SSM = `http://127.0.0.1:${await freePort()}`;

    const { result: refused, lines } = await logged(() => postStatus(user, 'nobody home'));
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ error: 'Internal server error' });
    expect(refused.headers['x-db-writes']).toBe('0');
    expect(lines.join('')).toContain(`could not read the SSM parameters under ${path}`);

    process.env.AWS_ENDPOINT_URL_SSM = relayUrl;
    expect((await postStatus(user, 'back')).status).toBe(200);
  });
});

describe('a stage with no secret key base', () => {
  it('refuses every request outside the local stage, naming SECRET_KEY_BASE in the log, and writes nothing', async () => {
    const user = await aUser();
    process.env.STAGE = 'test';
    delete process.env.SECRETS_PATH;
    delete process.env.SECRET_KEY_BASE;

    const { result: refused, lines } = await logged(() => postStatus(user, 'on the development secret?'));
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ error: 'Internal server error' });
    expect(refused.headers['x-db-calls']).toBe('0');
    expect(refused.headers['x-db-writes']).toBe('0');
    expect(lines.join('')).toMatch(/SECRET_KEY_BASE is not set on stage 'test'/);
    expect((await accountById(user.account.id))?.statusesCount).toBe(0);
    expect((await call(instanceHandler, { path: '/api/v2/instance' })).status).toBe(500);
  });

  it('returns every queued message to its queue outside the local stage', async () => {
    process.env.STAGE = 'test';
    delete process.env.SECRET_KEY_BASE;
    const event = sqsEvent({ type: 'follow', accountId: newId(), fromAccountId: newId() });
    const { result, lines } = await logged(() => notifyWorker(event));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] });
    expect(lines.join('')).toMatch(/SECRET_KEY_BASE is not set/);
  });

  it('refuses a WebSocket connection outside the local stage', async () => {
    process.env.STAGE = 'test';
    delete process.env.SECRET_KEY_BASE;
    const { result, lines } = await logged(() =>
      connectHandler({ requestContext: { connectionId: `${randomUUID().slice(0, 14)}=`, routeKey: '$connect', eventType: 'CONNECT', requestId: randomUUID() }, headers: {} }),
    );
    expect(result.statusCode).toBe(500);
    expect(lines.join('')).toMatch(/SECRET_KEY_BASE is not set/);
  });

  it('runs on the development secret on the local stage', async () => {
    process.env.STAGE = 'local';
    delete process.env.SECRET_KEY_BASE;
    expect((await call(instanceHandler, { path: '/api/v2/instance' })).status).toBe(200);
  });
});
