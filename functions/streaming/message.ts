// WebSocket $default of /api/v1/streaming: {"type": "subscribe" | "unsubscribe", "stream": ..., "tag"/"list": ...}
// (https://docs.joinmastodon.org/methods/streaming/#websocket)
import { handleClientMessage, parseClientMessage, websocket, type WebSocketEvent, type WebSocketResult } from '../../lib/streaming/connections';

export async function run(event: WebSocketEvent): Promise<WebSocketResult> {
  const body = event.isBase64Encoded ? null : event.body;
  await handleClientMessage(event.requestContext.connectionId, parseClientMessage(body));
  return { statusCode: 200 };
}

export const handler = websocket(run, { errors: 'frame' });
