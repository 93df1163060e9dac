// The local stack's one runner, the instances of every function it invokes (infra/local/function-pool.ts):
// one invocation at a time per instance, at most the limit per function, the function's own
// environment and context, and an instance lost (time limit, crash) or retired (rebuild) replaced.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FunctionPool } from '../../infra/local/function-pool';
import type { LocalFunction } from '../../infra/local/local-functions';

const dir = mkdtempSync(join(tmpdir(), 'function-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A bundle as esbuild leaves it: an ES module exporting the handler. Its module state tells instances apart.
writeFileSync(
  join(dir, 'fixture.mjs'),
  `const instance = Math.random().toString(36).slice(2);
let calls = 0;
export const handler = async (event, context) => {
  calls += 1;
  if (event.action === 'wait') await new Promise((r) => setTimeout(r, event.ms));
  if (event.action === 'hang') await new Promise(() => {});
  if (event.action === 'throw') throw new Error('the handler failed');
  if (event.action === 'exit') process.exit(3);
  return { statusCode: 200, body: JSON.stringify({ instance, calls, name: context.functionName, fromEnv: process.env.FIXTURE_VALUE, left: context.getRemainingTimeInMillis() > 0 }) };
};
`,
);

const fixture = (timeoutMs = 5000): LocalFunction => ({
  key: 'fixture',
  name: 'tootless-test-fixture',
  setup: { bundle: join(dir, 'fixture'.concat('.mjs')), exportName: 'handler', functionName: 'tootless-test-fixture', memoryMb: 256, region: 'us-east-1' },
  env: { FIXTURE_VALUE: 'from the function', AWS_LAMBDA_FUNCTION_NAME: 'tootless-test-fixture' },
  timeoutMs,
});

type Body = { instance: string; calls: number; name: string; fromEnv: string; left: boolean };
const body = (result: unknown): Body => JSON.parse((result as { body: string }).body) as Body;

describe('the function pool', () => {
  let pool: FunctionPool;
  const errors: string[] = [];
  beforeEach(() => {
    errors.length = 0;
    pool = new FunctionPool(2, (level, line) => level === 'error' && errors.push(line));
  });
  afterEach(() => pool.stop());

  it('runs the handler in the function\'s environment, with its context, and answers its result', async () => {
    const answer = body(await pool.invoke(fixture(), { action: 'none' }));
    expect(answer).toMatchObject({ calls: 1, name: 'tootless-test-fixture', fromEnv: 'from the function', left: true });
    // The same instance, warm, takes the next one.
    expect(body(await pool.invoke(fixture(), {}))).toMatchObject({ instance: answer.instance, calls: 2 });
  });

  it('runs one invocation at a time per instance, on at most the limit of instances, the others waiting', async () => {
    const answers = (await Promise.all(Array.from({ length: 6 }, () => pool.invoke(fixture(), { action: 'wait', ms: 50 })))).map(body);
    const instances = new Set(answers.map((a) => a.instance));
    expect(instances.size).toBe(2);
    expect(pool.instancesOf('fixture')).toBe(2);
    // Each instance counted its own invocations one after another (1, 2, ... on each): none ran two at once.
    for (const i of instances) {
      const calls = answers.filter((a) => a.instance === i).map((a) => a.calls).sort((x, y) => x - y);
      expect(calls).toEqual(calls.map((_, n) => n + 1));
    }
  });

  it('fails an invocation past its time limit and stops its instance; the next runs on a fresh one', async () => {
    const first = body(await pool.invoke(fixture(300), {}));
    await expect(pool.invoke(fixture(300), { action: 'hang' })).rejects.toThrow(/Task timed out after 0.30 seconds/);
    expect(errors.join('\n')).toMatch(/fixture: Task timed out/);
    const next = body(await pool.invoke(fixture(300), {}));
    expect(next.instance).not.toBe(first.instance);
    expect(next.calls).toBe(1);
  });

  it('fails an invocation whose handler throws, and keeps the instance', async () => {
    const first = body(await pool.invoke(fixture(), {}));
    await expect(pool.invoke(fixture(), { action: 'throw' })).rejects.toThrow(/the handler failed/);
    expect(body(await pool.invoke(fixture(), {}))).toMatchObject({ instance: first.instance, calls: 3 });
  });

  it('fails the invocation of an instance that dies, and replaces the instance', async () => {
    const first = body(await pool.invoke(fixture(), {}));
    await expect(pool.invoke(fixture(), { action: 'exit' })).rejects.toThrow(/exited/);
    const next = body(await pool.invoke(fixture(), {}));
    expect(next.instance).not.toBe(first.instance);
  });

  it('starts fresh instances after a rebuild, letting a busy one finish first', async () => {
    const first = body(await pool.invoke(fixture(), {}));
    const busy = pool.invoke(fixture(), { action: 'wait', ms: 100 });
    pool.reload();
    expect(body(await busy)).toMatchObject({ instance: first.instance, calls: 2 });
    expect(body(await pool.invoke(fixture(), {})).instance).not.toBe(first.instance);
  });

  it('stops an instance left idle past the idle time; the next invocation starts a fresh one', async () => {
    const quick = new FunctionPool(2, () => undefined, 200);
    try {
      const first = body(await quick.invoke(fixture(), {}));
      expect(quick.instancesOf('fixture')).toBe(1);
      await new Promise((r) => setTimeout(r, 400));
      expect(quick.instancesOf('fixture')).toBe(0);
      expect(body(await quick.invoke(fixture(), {})).instance).not.toBe(first.instance);
    } finally {
      await quick.stop();
    }
  });

  it('refuses a limit below one instance', () => {
    expect(() => new FunctionPool(0, () => undefined)).toThrow(/at least one instance/);
  });
});
