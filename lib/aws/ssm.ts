// SSM GetParameters through its SDK client: the stage's secrets, read at cold start (lib/secrets.ts).
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { config } from '../config';
import { baseSettings, clientFor } from './clients';
import { instrument } from './meter';

const ssm = () =>
  clientFor('ssm', config.endpointFor('SSM'), () => {
    const client = new SSMClient(baseSettings({ endpoint: config.endpointFor('SSM') }));
    instrument(client.middlewareStack, 'ssm');
    return client;
  });

/** SSM GetParameters with decryption: `{ Parameters, InvalidParameters }` as the API answers. */
export async function getParameters(names: string[]): Promise<unknown> {
  const { $metadata: _metadata, ...out } = await ssm().send(new GetParametersCommand({ Names: names, WithDecryption: true }));
  return out;
}
