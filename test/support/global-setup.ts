// Starts dynalite and s3rver once, on free ports, for every integration test file.
import { writeFileSync } from 'node:fs';
import { freePort, startEmulators, type Emulators } from '../../infra/local/emulators';
import { EMULATORS_FILE } from './paths';

declare global {
  // eslint-disable-next-line no-var
  var __EMULATORS__: Emulators | undefined;
}

export default async function globalSetup(): Promise<void> {
  const emulators = await startEmulators({ dynamoPort: await freePort(), s3Port: await freePort() });
  globalThis.__EMULATORS__ = emulators;
  writeFileSync(EMULATORS_FILE, JSON.stringify({ dynamo: emulators.dynamoEndpoint, s3: emulators.s3Endpoint }));
}
