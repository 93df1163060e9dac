// The local stack's queues hold a delayed message, as SQS does. Without an SQS emulator the queue adapter
// (lib/queue, QUEUE_MODE=lambda) invokes a queue's worker through the Lambda invoke endpoint, and serverless
// offline runs an invocation at once: a delivery retried "in a minute" came back within milliseconds, spending
// its attempts while the other server was still not ready, where SQS would have waited (a green test, a lost
// activity in AWS). This front stands on the invoke endpoint's port: an Event invocation whose SQS event carries
// the adapter's DelaySeconds attribute is answered 202 at once and passed on to serverless offline when its delay
// is up; every other request is passed on as it is. Held invocations live in this process: like serverless
// offline's own Event invocations, they end with the stack.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';

/** The attribute the queue adapter puts on each record of a delayed message (lib/queue/index.ts sqsEvent). */
export const DELAY_ATTRIBUTE = 'DelaySeconds';
/** SQS's longest delay; a record asking more is held this long. */
const MAX_DELAY_S = 900;

export type QueueFront = { held: () => number; close: () => Promise<void> };

/** The delay an invocation's payload asks for, in seconds (0: none, or not an SQS event of ours). */
export function requestedDelay(payload: Buffer): number {
  if (payload.length === 0 || payload[0] !== 0x7b) return 0;
  try {
    const event = JSON.parse(payload.toString('utf8')) as { Records?: { messageAttributes?: Record<string, { stringValue?: string }> }[] };
    const value = Number(event.Records?.[0]?.messageAttributes?.[DELAY_ATTRIBUTE]?.stringValue);
    return Number.isFinite(value) && value > 0 ? Math.min(value, MAX_DELAY_S) : 0;
  } catch {
    return 0;
  }
}

const readAll = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** Listens on `host:port` and passes invocations on to serverless offline's invoke endpoint at `target`. */
export async function startQueueFront(opts: { host: string; port: number; target: string; say: (line: string) => void }): Promise<QueueFront> {
  const target = new URL(opts.target);
  const timers = new Set<NodeJS.Timeout>();

  /** Passes the invocation on; resolves with serverless offline's answer. */
  const forward = (req: IncomingMessage, body: Buffer): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) };
      const out = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, resolve);
      out.on('error', reject);
      out.end(body);
    });

  const server: Server = createServer((req, res) => {
    readAll(req)
      .then(async (body) => {
        const delay = req.headers['x-amz-invocation-type'] === 'Event' ? requestedDelay(body) : 0;
        if (delay === 0) {
          const upstream = await forward(req, body);
          res.writeHead(upstream.statusCode ?? 502, upstream.headers);
          upstream.pipe(res);
          return;
        }
        const timer = setTimeout(() => {
          timers.delete(timer);
          forward(req, body).then(
            (upstream) => upstream.resume(),
            (err: Error) => opts.say(`a held invocation of ${req.url} could not be passed on: ${err.message}`),
          );
        }, delay * 1000);
        timers.add(timer);
        res.writeHead(202, { 'content-type': 'application/json' }).end('{}');
      })
      .catch((err: Error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `the local invoke endpoint did not answer: ${err.message}` }));
        else res.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    held: () => timers.size,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
