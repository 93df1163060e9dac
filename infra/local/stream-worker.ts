// One worker thread per streamed function on the local stack, started by
// infra/local/stream-front.ts (through stream-worker.mjs): the function's own
// environment, the runtime's `awslambda` globals, its bundle, and any number of
// concurrent invocations, each relaying what the handler writes as it writes it.
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { z } from 'zod';
import { installAwslambda, invokeStreamed, lambdaContext, type Invocation } from './lambda-stream';

const setupSchema = z.object({
  bundle: z.string(),
  exportName: z.string(),
  functionName: z.string(),
  memoryMb: z.number(),
  region: z.string(),
});
export type WorkerSetup = z.infer<typeof setupSchema>;

export type ToWorker =
  | { t: 'invoke'; id: string; event: APIGatewayProxyEventV2; timeoutMs: number }
  | { t: 'abort'; id: string };

export type FromWorker =
  | { t: 'start'; id: string; contentType: string }
  | { t: 'data'; id: string; chunk: Uint8Array }
  | { t: 'end'; id: string }
  | { t: 'settled'; id: string; error?: string };

/** `load` imports the bundle outside tsx, exactly as the runtime's plain import() would. */
export function serveInvocations(load: (url: string) => Promise<Record<string, unknown>>): void {
  const port = parentPort;
  if (!port) throw new Error('stream-worker runs in a worker thread');
  const setup = setupSchema.parse(workerData);
  installAwslambda();
  let handler: Promise<unknown> | undefined;
  const running = new Map<string, Invocation>();
  const post = (msg: FromWorker) => port.postMessage(msg);

  const invoke = async (id: string, event: APIGatewayProxyEventV2, timeoutMs: number) => {
    try {
      handler ??= load(pathToFileURL(setup.bundle).href).then((mod) => mod[setup.exportName]);
      const fn = await handler;
      const context = lambdaContext({ functionName: setup.functionName, timeoutMs, requestId: id, memoryMb: setup.memoryMb, region: setup.region });
      const invocation = invokeStreamed(fn, event, context, {
        start: (contentType) => post({ t: 'start', id, contentType }),
        data: (chunk) => post({ t: 'data', id, chunk }),
        end: () => post({ t: 'end', id }),
      });
      running.set(id, invocation);
      await invocation.settled;
      post({ t: 'settled', id });
    } catch (err) {
      post({ t: 'settled', id, error: err instanceof Error ? err.stack ?? err.message : String(err) });
    } finally {
      running.delete(id);
    }
  };

  port.on('message', (msg: ToWorker) => {
    if (msg.t === 'invoke') void invoke(msg.id, msg.event, msg.timeoutMs);
    else running.get(msg.id)?.abort();
  });
}
