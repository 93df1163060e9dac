// No default stage (lib/config.ts): a process without STAGE refuses to start rather than
// run as `local`, whose secret key base is public (lib/secrets.ts). Every entry point is
// built at module load (http(), worker(), websocket(), the sweeper), so a function without
// STAGE fails its cold start; one that loses it later refuses each request. The operator
// CLI's side is test/integration/admin-cli.test.ts.
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { handler as instance } from '../../functions/instance/show';
import { StageNotSet, config } from '../../lib/config';
import { call } from '../support/http';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const load = (module: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'test/support/children/load-entry.ts', module], { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });

const withoutStage = () => {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  delete env.STAGE;
  return env;
};

describe('a function without STAGE', () => {
  it.each([
    ['an HTTP endpoint (http())', 'functions/instance/show.ts'],
    ['a streaming endpoint (streamHttp())', 'functions/streaming/sse.ts'],
    ['a queue worker (worker())', 'functions/workers/fanout.ts'],
    ['a WebSocket route (websocket())', 'functions/streaming/connect.ts'],
    ['the sweeper', 'functions/sweeper/sweep.ts'],
  ])('%s refuses to start, naming the setting', async (_name, module) => {
    const refused = await load(module, withoutStage());
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('STAGE is not set: set it to the stage this process serves');
    // The same module starts with a stage.
    const started = await load(module, { ...process.env, LOG_LEVEL: 'silent' });
    expect(started).toMatchObject({ code: 0, stdout: `loaded ${module}: handler is a function\n` });
  }, 120_000);

  it('refuses every request once STAGE is gone, rather than serve as local', async () => {
    const stage = process.env.STAGE;
    delete process.env.STAGE;
    try {
      expect(() => config.stage).toThrow(StageNotSet);
      const res = await call(instance, { path: '/api/v2/instance' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
    } finally {
      process.env.STAGE = stage;
    }
    expect((await call(instance, { path: '/api/v2/instance' })).status).toBe(200);
  });

  it('is not a blank one', async () => {
    const refused = await load('functions/instance/show.ts', { ...withoutStage(), STAGE: ' ' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('STAGE is not set');
  }, 60_000);
});
