// `npm run admin -- <args>` against an e2e test's stack, as an operator runs it next to `npm start`: the
// functions' variables pointing at the stack's table, Lambda endpoint and streams (lib/admin/cli.ts reads
// them), none of the in-process test settings (test/support/env.ts).
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Stack } from './stack';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export async function operator(s: Stack, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  const testOnly = /^(STAGE|TABLE_NAME|MEDIA_BUCKET|MEDIA_URL|BASE_URL|STREAMING_URL|STREAMING_MANAGEMENT_URL|QUEUE_MODE|QUEUE_URL_.*|LAMBDA_ENDPOINT|MAIL_DIR|SECRET_KEY_BASE|SECRETS_PATH|AWS_ENDPOINT_URL.*|TEST_.*)$/;
  for (const [k, v] of Object.entries(process.env)) if (!testOnly.test(k)) env[k] = v;
  Object.assign(env, {
    STAGE: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: s.dynamo.endpoint,
    TABLE_NAME: s.dynamo.tableName,
    BASE_URL: s.baseUrl,
    STREAMING_URL: s.wsUrl,
    STREAMING_MANAGEMENT_URL: s.managementUrl,
    QUEUE_MODE: 'lambda',
    LAMBDA_ENDPOINT: s.lambdaEndpoint,
    DATA_DIR: s.dataDir,
    MAIL_DIR: s.mailDir,
  });
  return new Promise((done) => {
    execFile(resolve(root, 'node_modules/.bin/tsx'), ['lib/admin/cli.ts', ...args], { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
