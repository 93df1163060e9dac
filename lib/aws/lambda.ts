// Lambda Invoke (Event) through its SDK client: the local stack's queue adapter.
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { config } from '../config';
import { baseSettings, clientFor } from './clients';
import { instrument } from './meter';

const lambda = () =>
  clientFor('lambda', config.lambdaEndpoint, () => {
    const client = new LambdaClient(baseSettings({ endpoint: config.lambdaEndpoint }));
    instrument(client.middlewareStack, 'lambda');
    return client;
  });

/** Lambda Invoke with InvocationType Event (the local stack's queue adapter, at LAMBDA_ENDPOINT). Answers the HTTP status (202). */
export async function invokeEvent(functionName: string, payload: string): Promise<number> {
  const out = await lambda().send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: Buffer.from(payload) }));
  return out.StatusCode ?? 202;
}
