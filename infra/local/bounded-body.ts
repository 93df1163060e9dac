// Reading a request body on the local stack's ports within a limit, as API Gateway and Lambda read theirs: the whole
// body is read before any answer, so that a client still sending it reads the answer rather than a reset; a body
// over the limit is read to its end and dropped (up to MAX_DRAIN_BYTES, past which the connection is closed).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Past this, a body is not read to its end before the refusal: the connection is closed instead. */
export const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * Reads `req`'s body. `refuse` answers at once when it declares more than can be drained (the socket then closes);
 * otherwise `done` gets the body, or undefined when it (or its declared length) passed `limit`, and the larger of
 * its read and declared sizes.
 */
export function readBoundedBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  refuse: () => void,
  done: (body: Buffer | undefined, size: number) => void,
): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_DRAIN_BYTES) {
    res.setHeader('connection', 'close');
    refuse();
    req.destroy();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
    else if (size > MAX_DRAIN_BYTES) req.destroy();
  });
  req.on('error', () => res.destroy());
  req.on('end', () => {
    const over = size > limit || declared > limit;
    done(over ? undefined : Buffer.concat(chunks), Math.max(size, declared));
  });
}
