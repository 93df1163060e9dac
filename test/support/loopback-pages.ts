// Web pages served on loopback under names of their own, as the cards worker meets
// them on the local stage: each test gets a fresh server and host name
// (`<prefix><n>.example.com`, resolved to 127.0.0.1 by the test resolver), with the
// local stage's allowance for private addresses on while it runs.
import { useResolver } from '../../lib/net';
import { remoteServer, type RemoteServer } from './remote-server';

export type LoopbackPages = {
  /** This test's page server. */
  server: () => RemoteServer;
  /** This test's host name (pages linked under it never answer for another test's). */
  host: () => string;
};

/** Registers the per-test server, name and settings (beforeEach/afterEach) and answers their accessors. */
export function useLoopbackPages(prefix: string): LoopbackPages {
  let server: RemoteServer | undefined;
  let host = '';
  let counter = 0;
  beforeEach(async () => {
    server = await remoteServer();
    host = `${prefix}${++counter}.example.com`;
    useResolver(async (name) => (name.endsWith('.example.com') ? ['127.0.0.1'] : []));
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
  });
  afterEach(async () => {
    process.env.STAGE = 'test';
    delete process.env.FEDERATION_ALLOW_PRIVATE;
    useResolver(undefined);
    await server?.close();
  });
  return {
    server: () => {
      if (!server) throw new Error('no page server outside a test');
      return server;
    },
    host: () => host,
  };
}
