// Minimal typings for the two emulators, which ship none.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  function dynalite(options?: Record<string, unknown>): Server;
  export default dynalite;
}
declare module 's3rver' {
  export default class S3rver {
    constructor(options: Record<string, unknown>);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
