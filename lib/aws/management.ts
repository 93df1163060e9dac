// API Gateway's Management API of the WebSocket API through its SDK client: frames, closing, and whether a
// connection is still open (lib/streaming).
import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GetConnectionCommand, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { baseSettings, clientFor } from './clients';
import { instrument, isAwsError, type AwsError } from './meter';

/** The Management API client of the WebSocket API at `endpoint` (its stage included): one per endpoint. */
const management = (endpoint: string) =>
  clientFor('execute-api', endpoint, () => {
    const client = new ApiGatewayManagementApiClient(baseSettings({ endpoint }));
    instrument(client.middlewareStack, 'execute-api');
    return client;
  });

/**
 * API Gateway's Management API of the WebSocket API, at `endpoint` (its stage included):
 * PostToConnection with `data`, or DeleteConnection without. A connection gone answers
 * 410, thrown as `GoneException`.
 */
export async function connectionRequest(endpoint: string, connectionId: string, data?: Buffer): Promise<void> {
  const client = management(endpoint);
  try {
    if (data) await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: data }));
    else await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
  } catch (err) {
    throw goneNamed(err);
  }
}

/** A bare 410 (a Management API that names no error type) is GoneException, as API Gateway names it. */
function goneNamed(err: unknown): unknown {
  const status = (err as Partial<AwsError> | undefined)?.$metadata?.httpStatusCode;
  if (err instanceof Error && status === 410 && err.name !== 'GoneException') err.name = 'GoneException';
  return err;
}

/**
 * API Gateway's GetConnection: whether a WebSocket connection is still open. `gone` only on
 * its 410; any other failure (an endpoint that does not serve it) throws, and callers count
 * the connection as open rather than free a slot they cannot prove unused.
 */
export async function connectionState(endpoint: string, connectionId: string): Promise<'open' | 'gone'> {
  try {
    await management(endpoint).send(new GetConnectionCommand({ ConnectionId: connectionId }));
    return 'open';
  } catch (err) {
    if (isAwsError(goneNamed(err), 'GoneException')) return 'gone';
    throw err;
  }
}
