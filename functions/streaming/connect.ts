// WebSocket $connect of GET /api/v1/streaming (https://docs.joinmastodon.org/methods/streaming/#websocket)
import { connectRequestOf, openConnection, websocket, type WebSocketEvent, type WebSocketResult } from '../../lib/streaming/connections';

export async function run(event: WebSocketEvent): Promise<WebSocketResult> {
  const request = connectRequestOf(event);
  await openConnection(request);
  return { statusCode: 200, ...(request.protocol ? { headers: { 'Sec-WebSocket-Protocol': request.protocol } } : {}) };
}

export const handler = websocket(run, { errors: 'status' });
