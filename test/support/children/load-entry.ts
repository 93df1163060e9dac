// A child process for the stage test: loads the function module named on the command
// line, as the Lambda runtime does at a cold start, and says so. Without STAGE the
// load itself must fail (lib/config.ts: requireStage), before any request is taken.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const module = process.argv[2];
if (!module) throw new Error('usage: load-entry.ts <function module>');
const loaded: { handler?: unknown } = await import(pathToFileURL(resolve(module)).href);
process.stdout.write(`loaded ${module}: handler is a ${typeof loaded.handler}\n`);
