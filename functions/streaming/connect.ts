// WebSocket $connect of GET /api/v1/streaming (https://docs.joinmastodon.org/methods/streaming/#websocket)
import { forbidden } from '../../lib/errors';
import { isNoAccessAddress } from '../../lib/policy/ip_blocks';
import { connectRequestOf, openConnection, websocket, type WebSocketEvent, type WebSocketResult } from '../../lib/streaming/connections';

export async function run(event: WebSocketEvent): Promise<WebSocketResult> {
  const request = connectRequestOf(event);
  // The operator's `no_access` IP rules refuse the handshake too, as every HTTP request (lib/http), before anything is read.
  if (request.sourceIp && (await isNoAccessAddress(request.sourceIp))) throw forbidden('Forbidden');
  await openConnection(request);
  return { statusCode: 200, ...(request.protocol ? { headers: { 'Sec-WebSocket-Protocol': request.protocol } } : {}) };
}

export const handler = websocket(run, { errors: 'status' });
