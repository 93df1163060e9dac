// WebSocket frames go to the WebSocket API's own Management API, not to the public
// streaming host: behind a custom domain or CloudFront, STREAMING_URL does not serve it.
import { managementEndpoint, sendFrame } from '../../lib/streaming/connections';
import { useManagementApi } from '../support/management-api';

const received: { method: string; url: string; body: string }[] = [];
const savedManagementUrl = process.env.STREAMING_MANAGEMENT_URL;

// The stand-in also restores STREAMING_URL, which these tests set.
const management = useManagementApi((req, res) => {
  received.push({ method: req.method, url: req.url, body: req.body.toString('utf8') });
  res.writeHead(200).end();
});

afterAll(() => {
  if (savedManagementUrl === undefined) delete process.env.STREAMING_MANAGEMENT_URL;
  else process.env.STREAMING_MANAGEMENT_URL = savedManagementUrl;
});

describe('the Management API endpoint', () => {
  it('is its own setting when one is given, whatever the public streaming host', async () => {
    process.env.STREAMING_URL = 'wss://streaming.social.example';
    process.env.STREAMING_MANAGEMENT_URL = `${management()}/prod`;
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
