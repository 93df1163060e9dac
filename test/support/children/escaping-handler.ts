// A child process for the guard test: handlers whose work fails outside their own promise chain, called one after
// another (./escaping-handlers.ts). Prints one JSON line per call; the process must still be alive to print the last.
import { runAll } from './escaping-handlers';

await runAll({ withBody: true });
