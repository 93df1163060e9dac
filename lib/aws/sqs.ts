// SQS SendMessage through its SDK client.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { baseSettings, clientFor } from './clients';
import { instrument } from './meter';

const sqs = () =>
  clientFor('sqs', config.endpointFor('SQS'), () => {
    const client = new SQSClient(baseSettings({ endpoint: config.endpointFor('SQS') }));
    instrument(client.middlewareStack, 'sqs');
    return client;
  });

/** SQS SendMessage. Sent to the configured endpoint, else to the queue URL's own host, as the SDK does. */
export async function sendMessage(input: { QueueUrl: string; MessageBody: string; DelaySeconds?: number }): Promise<{ MessageId?: string }> {
  const out = await sqs().send(new SendMessageCommand(input));
  return { MessageId: out.MessageId };
}
