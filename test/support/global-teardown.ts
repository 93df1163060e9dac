import { rmSync } from 'node:fs';
import { EMULATORS_FILE } from './paths';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__EMULATORS__?.stop();
  rmSync(EMULATORS_FILE, { force: true });
}
