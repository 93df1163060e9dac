// Starts dynalite and s3rver once, on free ports, for every integration test
// file. Jest workers are forked after this runs and inherit these variables.
import { freePort, startEmulators, type Emulators } from '../../infra/local/emulators';

declare global {
  // eslint-disable-next-line no-var
  var __EMULATORS__: Emulators | undefined;
}

export default async function globalSetup(): Promise<void> {
  const emulators = await startEmulators({ dynamoPort: await freePort(), s3Port: await freePort() });
  globalThis.__EMULATORS__ = emulators;
  process.env.TEST_DYNAMODB_ENDPOINT = emulators.dynamoEndpoint;
  process.env.TEST_S3_ENDPOINT = emulators.s3Endpoint;
}
