// WebSocket $disconnect of /api/v1/streaming: forgets the connection and its subscriptions.
import { closeConnection, websocket, type WebSocketEvent, type WebSocketResult } from '../../lib/streaming/connections';

export async function run(event: WebSocketEvent): Promise<WebSocketResult> {
  await closeConnection(event.requestContext.connectionId);
  return { statusCode: 200 };
}

export const handler = websocket(run, { errors: 'status' });
