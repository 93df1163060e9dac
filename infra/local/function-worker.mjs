// One warm instance of a function the HTTP API invokes on the local stack (a worker thread
// started by infra/local/function-pool.ts, with the function's environment): it imports the
// bundle as the Lambda runtime does, with nothing in between, then runs one invocation at a
// time, `handler(event, context)`, and answers its result. Plain JavaScript, no loader: an
// instance's cold start is the bundle's own, as in Lambda.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { bundle, exportName, functionName, memoryMb, region } = workerData;
let handler;

/** The Lambda context of one invocation, with the time the function has left. */
function context(requestId, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

parentPort.on('message', async ({ t, id, event, timeoutMs }) => {
  if (t !== 'call') return;
  try {
    // A bundle that fails to load fails this invocation; the next tries again, as Lambda retries an init.
    handler ??= import(pathToFileURL(bundle).href).then(
      (mod) => mod[exportName],
      (err) => {
        handler = undefined;
        throw err;
      },
    );
    const fn = await handler;
    if (typeof fn !== 'function') throw new Error(`${bundle} exports no function ${exportName}`);
    // The time limit runs from here: a cold start's loading is the init phase, apart from it in Lambda too.
    parentPort.postMessage({ t: 'begin', id });
    const result = await fn(event, context(id, timeoutMs));
    parentPort.postMessage({ t: 'result', id, result });
  } catch (err) {
    parentPort.postMessage({ t: 'failed', id, error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
});
