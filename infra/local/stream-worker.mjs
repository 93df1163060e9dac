// Entry of a streamed function's worker thread (see stream-worker.ts). The worker's
// own code is TypeScript, loaded through tsx; the handler bundle is imported from
// here, with no loader in between, as the Lambda runtime imports it.
import { tsImport } from 'tsx/esm/api';

const { serveInvocations } = await tsImport('./stream-worker.ts', import.meta.url);
serveInvocations((url) => import(url));
