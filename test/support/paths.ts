import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where global setup tells the test workers the emulator endpoints (keyed by the jest parent pid). */
export const EMULATORS_FILE = join(tmpdir(), `tootless-emulators-${process.env.JEST_PARENT_PID ?? process.ppid}.json`);
