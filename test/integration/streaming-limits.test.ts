// Connection limits of the streaming API's WebSocket side, through the real $connect and
// $disconnect handlers: per source address (IPv6 by its /64) and per access token, held as
// slots in DynamoDB that a lost $disconnect cannot keep forever.
import { randomUUID } from 'node:crypto';
import { handler as connect } from '../../functions/streaming/connect';
import { handler as disconnect } from '../../functions/streaming/disconnect';
import { connectionById } from '../../lib/db/connections';
import { MAX_CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS_PER_TOKEN, type WebSocketEvent } from '../../lib/streaming/connections';
import { aUser } from '../support/factories';
import { useManagementApi } from '../support/management-api';

const connectEvent = (sourceIp: string, query: Record<string, string> = { stream: 'public' }): WebSocketEvent => ({
  requestContext: { connectionId: `${randomUUID().replace(/-/g, '').slice(0, 14)}=`, routeKey: '$connect', eventType: 'CONNECT', requestId: randomUUID(), identity: { sourceIp } },
  headers: { Host: 'social.example' },
  queryStringParameters: query,
  isBase64Encoded: false,
});

const open = async (sourceIp: string, query?: Record<string, string>) => {
  const event = connectEvent(sourceIp, query);
  return { id: event.requestContext.connectionId, res: await connect(event) };
};

/** Opens `n` connections from one address, each accepted. */
const fill = async (n: number, sourceIp: string, query?: Record<string, string>) => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { id, res } = await open(sourceIp, query);
    expect(res.statusCode).toBe(200);
    ids.push(id);
  }
  return ids;
};

/** Connections API Gateway has closed whose $disconnect never ran: GetConnection answers 410 for them. */
const closedWithoutDisconnect = new Set<string>();
const asked: string[] = [];

useManagementApi((req, res) => {
  if (req.method === 'GET' && req.connectionId) {
    asked.push(req.connectionId);
    res.writeHead(closedWithoutDisconnect.has(req.connectionId) ? 410 : 200, { 'Content-Type': 'application/json' }).end('{}');
    return;
  }
  res.writeHead(200).end();
});

const refusedFromAddress = { statusCode: 429, body: JSON.stringify({ error: 'Too many streaming connections from this address' }) };

describe('connections per address', () => {
  it(`accepts ${MAX_CONNECTIONS_PER_ADDRESS} anonymous connections from one address and refuses the next with 429`, async () => {
    await fill(MAX_CONNECTIONS_PER_ADDRESS, '198.51.100.7');
    const refused = await open('198.51.100.7');
    expect(refused.res).toEqual(refusedFromAddress);
    expect(await connectionById(refused.id)).toBeUndefined();
    // Another address is not held back.
    expect((await open('198.51.100.8')).res.statusCode).toBe(200);
  });

  it('counts every address of an IPv6 /64 together', async () => {
    for (let i = 0; i < MAX_CONNECTIONS_PER_ADDRESS; i++) {
      expect((await open(`2001:db8:1:2:${i.toString(16)}::1`)).res.statusCode).toBe(200);
    }
    expect((await open('2001:db8:1:2:ffff:ffff:ffff:ffff')).res).toEqual(refusedFromAddress);
    expect((await open('2001:db8:1:3::1')).res.statusCode).toBe(200);
  });

  it('frees the slot of a connection that closed', async () => {
    const ids = await fill(MAX_CONNECTIONS_PER_ADDRESS, '198.51.100.20');
    expect((await open('198.51.100.20')).res.statusCode).toBe(429);
    const gone = ids[3]!;
    await disconnect({ requestContext: { connectionId: gone, routeKey: '$disconnect', eventType: 'DISCONNECT', requestId: randomUUID() }, isBase64Encoded: false });
    expect((await open('198.51.100.20')).res.statusCode).toBe(200);
    expect((await open('198.51.100.20')).res.statusCode).toBe(429);
  });

  it('takes back the slots of connections whose $disconnect was lost, and only theirs', async () => {
    const ids = await fill(MAX_CONNECTIONS_PER_ADDRESS, '198.51.100.30');
    // Two sockets closed in API Gateway without a $disconnect reaching us: their items are all still there.
    closedWithoutDisconnect.add(ids[0]!);
    closedWithoutDisconnect.add(ids[10]!);
    asked.length = 0;
    const first = await open('198.51.100.30');
    expect(first.res.statusCode).toBe(200);
    // Every holder was asked; the lost ones' connections are forgotten with their slots.
    expect(new Set(asked)).toEqual(new Set(ids));
    expect(await connectionById(ids[0]!)).toBeUndefined();
    expect(await connectionById(ids[10]!)).toBeUndefined();
    expect(await connectionById(ids[1]!)).toBeDefined();
    expect((await open('198.51.100.30')).res.statusCode).toBe(200);
    expect((await open('198.51.100.30')).res).toEqual(refusedFromAddress);
  });

  it('lets no more than the limit in when connections race for the last slots', async () => {
    await fill(MAX_CONNECTIONS_PER_ADDRESS - 3, '198.51.100.40');
    const racing = await Promise.all(Array.from({ length: 12 }, () => open('198.51.100.40')));
    expect(racing.filter((r) => r.res.statusCode === 200)).toHaveLength(3);
    expect(racing.filter((r) => r.res.statusCode === 429)).toHaveLength(9);
  });
});

describe('connections per token', () => {
  it(`accepts ${MAX_CONNECTIONS_PER_TOKEN} connections of one token, from any addresses, and refuses the next with 429`, async () => {
    const { token } = await aUser();
    for (let i = 0; i < MAX_CONNECTIONS_PER_TOKEN; i++) {
      expect((await open(`203.0.113.${i + 1}`, { access_token: token, stream: 'user' })).res.statusCode).toBe(200);
    }
    const refused = await open('203.0.113.200', { access_token: token, stream: 'user' });
    expect(refused.res).toEqual({ statusCode: 429, body: JSON.stringify({ error: 'Too many streaming connections for this access token' }) });
    // Another token of the same address is not held back.
    const other = await aUser();
    expect((await open('203.0.113.200', { access_token: other.token, stream: 'user' })).res.statusCode).toBe(200);
  });
});
