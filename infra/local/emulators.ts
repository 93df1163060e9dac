// Starts dynalite and s3rver in this process (used by the local stack and by the tests).
import { createServer } from 'node:net';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { measureItemsAsDynamoDb } from './item-size';
import { addTransactions } from './transactions';

export type Emulators = { dynamoEndpoint: string; s3Endpoint: string; stop: () => Promise<void> };

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `count` free TCP ports on loopback, all different: each is held open until all are chosen, so that two of them
 * cannot be the same port (two calls of freePort can answer the same one, the first being closed already: a stack
 * then failed to start with EADDRINUSE on its own other port).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (srv) =>
          new Promise<number>((resolve, reject) => {
            srv.unref();
            srv.on('error', reject);
            srv.listen(0, '127.0.0.1', () => {
              const address = srv.address();
              resolve(typeof address === 'object' && address ? address.port : 0);
            });
          }),
      ),
    );
  } finally {
    await Promise.all(servers.map((srv) => new Promise<void>((done) => (srv.listening ? srv.close(() => done()) : done()))));
  }
}

export async function startEmulators(opts: { dynamoPort: number; s3Port: number; dataDir?: string; host?: string }): Promise<Emulators> {
  const host = opts.host ?? '127.0.0.1';
  measureItemsAsDynamoDb();
  const dyn = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(opts.dataDir ? { path: `${opts.dataDir}/dynamodb` } : {}) });
  addTransactions(dyn);
  await new Promise<void>((resolve, reject) => {
    dyn.once('error', reject);
    dyn.listen(opts.dynamoPort, host, () => resolve());
  });
  const s3 = new S3rver({
    port: opts.s3Port,
    address: host,
    silent: true,
    // Media URLs are path-style (`http://alpha.test:4569/<bucket>/<key>`, as the SDK here sends them): without this,
    // s3rver would take any host name but an address or `localhost` for a bucket name.
    vhostBuckets: false,
    ...(opts.dataDir ? { directory: `${opts.dataDir}/s3` } : { directory: `${process.env.TMPDIR ?? '/tmp'}/s3rver-${process.pid}-${opts.s3Port}` }),
    configureBuckets: [],
  });
  await s3.run();
  return {
    dynamoEndpoint: `http://${host}:${opts.dynamoPort}`,
    s3Endpoint: `http://${host}:${opts.s3Port}`,
    stop: async () => {
      await new Promise<void>((resolve) => dyn.close(() => resolve()));
      await s3.close();
    },
  };
}
