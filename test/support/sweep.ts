// Runs a local stack's sweeper as its schedule would at a chosen moment: the same
// ScheduledEvent the local stack's scheduler sends (infra/local/schedule.ts), through the stack's Lambda
// invoke endpoint. The function judges what is due by the event's `time`, so a
// test moves the clock forward without waiting (polls that close, scheduled posts).
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { Stack } from './stack';

/** The sweeper's answer, parsed as JSON; throws when the function failed. */
export async function sweepAt(stack: Pick<Stack, 'lambdaEndpoint'>, at: number): Promise<unknown> {
  const lambda = new LambdaClient({ endpoint: stack.lambdaEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const event = {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [],
    detail: {},
  };
  try {
    const res = await lambda.send(new InvokeCommand({ FunctionName: 'tootless-local-sweeper', InvocationType: 'RequestResponse', Payload: Buffer.from(JSON.stringify(event)) }));
    const payload = Buffer.from(res.Payload ?? new Uint8Array()).toString();
    if (res.FunctionError) throw new Error(`the sweeper failed: ${payload}`);
    return JSON.parse(payload);
  } finally {
    lambda.destroy();
  }
}
