// Smoke test of the local stack as `npm start` runs it: HTTP through its front
// (payload v2 events), and the queue path through its Lambda invoke endpoint, the
// way lib/queue delivers SQS-shaped events without SQS.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { WebSocket } from 'ws';
import { enqueue } from '../../lib/queue';
import { useStack } from '../support/stack';

const sample = (name: string): unknown =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../events/${name}`, import.meta.url)), 'utf8'));

const stack = useStack();

beforeAll(() => {
  process.stdout.write(`local stack answered in ${(stack().startupMs / 1000).toFixed(1)} s\n`);
});

/** Invokes a function synchronously through the local stack's Lambda endpoint, as `aws lambda invoke` would. */
async function invoke(fn: string, event: unknown): Promise<unknown> {
  const client = new LambdaClient({ endpoint: stack().lambdaEndpoint, region: 'us-east-1' });
  const res = await client.send(new InvokeCommand({ FunctionName: `tootless-local-${fn}`, Payload: Buffer.from(JSON.stringify(event)) }));
  client.destroy();
  expect(res.FunctionError).toBeUndefined();
  return JSON.parse(Buffer.from(res.Payload ?? []).toString('utf8'));
}

const waitFor = async <T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${stack().output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('the local stack', () => {
  it('registers an app over HTTP', async () => {
    const res = await fetch(`${stack().baseUrl}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_name: 'e2e smoke', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' }),
    });
    expect(res.status).toBe(200);
    const app = (await res.json()) as Record<string, unknown>;
    expect(app).toMatchObject({ name: 'e2e smoke', scopes: ['read', 'write'] });
    expect(typeof app.client_id).toBe('string');
    expect(typeof app.client_secret).toBe('string');
  });

  it('answers a bad token with 401 JSON and Mastodon\'s CORS header', async () => {
    const res = await fetch(`${stack().baseUrl}/api/v1/apps/verify_credentials`, {
      headers: { authorization: 'Bearer nope', origin: 'https://client.example' },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.any(String) });
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
  });

  it('sends a large answer compressed to a client that accepts it, which reads it as usual; the same plain to one that does not', async () => {
    const br = await fetch(`${stack().baseUrl}/api/v2/instance`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toMatch(/Accept-Encoding/);
    const instance = (await br.json()) as { domain?: string };
    expect(instance.domain).toBe(stack().domain);
    const plain = await fetch(`${stack().baseUrl}/api/v2/instance`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.json()).toEqual(instance);
  });

  it('runs the sample HTTP API event (events/http-apps-create.json) through appsCreate', async () => {
    const res = (await invoke('appsCreate', sample('http-apps-create.json'))) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ name: 'Sample app', scopes: ['read', 'write', 'follow', 'push'], client_id: expect.any(String) });
  });

  it('runs the sample SQS event (events/sqs-mail.json) through mailWorker', async () => {
    expect(await invoke('mailWorker', sample('sqs-mail.json'))).toEqual({ batchItemFailures: [] });
    await waitFor('the sample message in the mail folder', () =>
      existsSync(stack().mailDir) && readdirSync(stack().mailDir).some((f) => f.endsWith('alice@example.com.json')) ? true : undefined,
    );
  });

  it('delivers a queued message to its worker through the Lambda invoke endpoint', async () => {
    process.env.QUEUE_MODE = 'lambda';
    process.env.LAMBDA_ENDPOINT = stack().lambdaEndpoint;
    process.env.FUNCTION_PREFIX = 'tootless-local-';
    const subject = `smoke ${Date.now()}`;

    await enqueue('mail', { to: 'smoke@example.com', subject, text: 'sent through the stack' });

    const mail = await waitFor('the mail worker to write the message', () => {
      if (!existsSync(stack().mailDir)) return undefined;
      for (const file of readdirSync(stack().mailDir)) {
        let message: { subject: string; to: string; text: string };
        try {
          message = JSON.parse(readFileSync(join(stack().mailDir, file), 'utf8'));
        } catch {
          continue; // still being written
        }
        if (message.subject === subject) return message;
      }
      return undefined;
    });
    expect(mail).toMatchObject({ to: 'smoke@example.com', text: 'sent through the stack' });
  });

  it('runs every function through its own front: serverless offline serves no event and runs nothing itself', async () => {
    // A WebSocket handshake and a frame, besides the HTTP requests and the queued message above.
    const socket = new WebSocket(`${stack().wsUrl}/api/v1/streaming?stream=public`);
    const frame = await new Promise<string>((resolve, reject) => {
      socket.on('message', (data: Buffer) => resolve(data.toString('utf8')));
      socket.on('error', reject);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'subscribe', stream: 'no-such-stream' })));
    });
    socket.close();
    expect(JSON.parse(frame)).toMatchObject({ error: expect.any(String) });
    const output = stack().output();
    expect(output).toMatch(/WebSocket API on ws:/);
    // What serverless offline prints when it serves a route or runs a function: none of it.
    expect(output).not.toMatch(/\(λ: |Scheduling \[|Server ready:|Offline \[websocket\]/);
  });
});
