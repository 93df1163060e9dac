// A revoked token's streams end, on the local stack as `npm start` runs it: A
// follows B and listens on the `user` stream over WebSocket (the `ws` client,
// on the WebSocket API serverless offline serves) and over server-sent events
// (fetch, through the local front server). Both carry B's post; A's client then
// revokes the token with POST /oauth/revoke, and the socket is closed by the
// server and the SSE response ends. C, who also follows B and keeps listening,
// shows when B's next post has been delivered: A received none of it.
// Tests wait for arrival, never for time.
import WebSocket from 'ws';
import { arrival } from '../support/arrival';
import { newUser, type MastoUser } from '../support/masto';
import { useStack } from '../support/stack';

const stack = useStack();

/** A WebSocket on the `user` stream, keeping the ids of the `update` payloads it received and whether the server closed it. */
async function socket(streamingApi: string, token: string) {
  const ws = new WebSocket(`${streamingApi}/api/v1/streaming?stream=user&access_token=${encodeURIComponent(token)}`);
  const updates: string[] = [];
  let closedBy: { code: number } | undefined;
  ws.on('message', (data: WebSocket.RawData) => {
    const frame = JSON.parse(data.toString()) as { event?: string; payload?: string };
    if (frame.event === 'update' && frame.payload) updates.push((JSON.parse(frame.payload) as { id: string }).id);
  });
  ws.on('close', (code: number) => (closedBy = { code }));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { updates, closed: () => closedBy, close: () => ws.close() };
}

/** A server-sent-event response read with fetch, keeping the ids of its `update` events and whether it ended. */
function sse(token: string) {
  const controller = new AbortController();
  const updates: string[] = [];
  let text = '';
  let ended = false;
  void (async () => {
    const res = await fetch(`${stack().baseUrl}/api/v1/streaming/user`, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' }, signal: controller.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      for (const m of text.matchAll(/event: update\ndata: (\{.*\})\n/g)) {
        const id = (JSON.parse(m[1]!) as { id: string }).id;
        if (!updates.includes(id)) updates.push(id);
      }
    }
    ended = true;
  })().catch(() => undefined);
  return { updates, started: () => arrival(() => text.startsWith(':)'), 'the SSE response to start'), ended: () => ended, close: () => controller.abort() };
}

describe('a revoked token', () => {
  it('has its WebSocket closed and its SSE response ended, and receives nothing posted afterwards', async () => {
    const [a, b, c] = await Promise.all([newUser(stack().baseUrl, 'revoked'), newUser(stack().baseUrl, 'poster'), newUser(stack().baseUrl, 'witness')]);
    await Promise.all([a.client.v1.accounts.$select(b.me.id).follow(), c.client.v1.accounts.$select(b.me.id).follow()]);
    const { urls } = await a.client.v1.instance.fetch();

    const ws = await socket(urls.streamingApi, a.token);
    const witness = await socket(urls.streamingApi, c.token);
    const events = sse(a.token);
    try {
      await events.started();
      // The connection's stream was given with it, so it listens from the start; B's post shows both work.
      const before = await b.client.v1.statuses.create({ status: 'before the revocation', visibility: 'public' });
      await arrival(() => ws.updates.includes(before.id), 'B\'s post on the WebSocket');
      await arrival(() => events.updates.includes(before.id), 'B\'s post on the SSE stream');

      const res = await fetch(`${stack().baseUrl}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: a.app.clientId!, client_secret: a.app.clientSecret!, token: a.token }),
      });
      expect(res.status).toBe(200);

      await arrival(() => ws.closed(), 'the server to close the WebSocket');
      await arrival(() => events.ended(), 'the SSE response to end');
      expect(witness.closed()).toBeUndefined();

      const after = await b.client.v1.statuses.create({ status: 'after the revocation', visibility: 'public' });
      await arrival(() => witness.updates.includes(after.id), 'B\'s second post on the witness\'s stream');
      expect(ws.updates).toEqual([before.id]);
      expect(events.updates).toEqual([before.id]);

      // The token is gone for the API and for new streams alike.
      expect((await fetch(`${stack().baseUrl}/api/v1/accounts/verify_credentials`, { headers: { Authorization: `Bearer ${a.token}` } })).status).toBe(401);
      expect((await fetch(`${stack().baseUrl}/api/v1/streaming/user`, { headers: { Authorization: `Bearer ${a.token}` } })).status).toBe(401);
    } finally {
      ws.close();
      witness.close();
      events.close();
    }
  }, 120_000);
});
