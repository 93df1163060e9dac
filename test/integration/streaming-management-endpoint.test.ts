// WebSocket frames go to the WebSocket API's own Management API, not to the public
// streaming host: behind a custom domain or CloudFront, STREAMING_URL does not serve it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { managementEndpoint, sendFrame } from '../../lib/streaming/connections';

let management: Server;
const received: { method: string; url: string; body: string }[] = [];
const saved = { streaming: process.env.STREAMING_URL, management: process.env.STREAMING_MANAGEMENT_URL };

beforeAll(async () => {
  management = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => management.listen(0, '127.0.0.1', () => resolve()));
});

afterAll(async () => {
  process.env.STREAMING_URL = saved.streaming;
  if (saved.management === undefined) delete process.env.STREAMING_MANAGEMENT_URL;
  else process.env.STREAMING_MANAGEMENT_URL = saved.management;
  await new Promise<void>((resolve) => management.close(() => resolve()));
});

describe('the Management API endpoint', () => {
  it('is its own setting when one is given, whatever the public streaming host', async () => {
    process.env.STREAMING_URL = 'wss://streaming.social.example';
    process.env.STREAMING_MANAGEMENT_URL = `http://127.0.0.1:${(management.address() as AddressInfo).port}/prod`;
    expect(managementEndpoint()).toBe(process.env.STREAMING_MANAGEMENT_URL);
    expect(await sendFrame('conn-1=', { event: 'update', payload: '{}' })).toBe(true);
    expect(received).toEqual([{ method: 'POST', url: '/prod/@connections/conn-1%3D', body: '{"event":"update","payload":"{}"}' }]);
  });

  it('is derived from the streaming URL without one, as on the local stack', () => {
    delete process.env.STREAMING_MANAGEMENT_URL;
    process.env.STREAMING_URL = 'ws://localhost:3001';
    expect(managementEndpoint()).toBe('http://localhost:3001');
    process.env.STREAMING_URL = 'wss://abc123.execute-api.us-east-1.amazonaws.com/prod';
    expect(managementEndpoint()).toBe('https://abc123.execute-api.us-east-1.amazonaws.com/prod');
  });
});
