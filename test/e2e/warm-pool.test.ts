// The local stack's warm pool (infra/local/function-pool.ts): concurrent invocations of one
// function share at most LOCAL_FUNCTION_INSTANCES instances, waiting for a free one rather
// than each starting a cold worker, and later invocations run on the same warm instances.
// Each response names its instance (X-Instance, lib/http/index.ts, with EXPOSE_METRICS).
import { useStack } from '../support/stack';

const stack = useStack({ env: { LOCAL_FUNCTION_INSTANCES: '2', RATE_LIMIT_FACTOR: '1000' } });

const burst = async (count: number, path: string) =>
  Promise.all(
    Array.from({ length: count }, async () => {
      const res = await fetch(`${stack().baseUrl}${path}`);
      await res.arrayBuffer();
      return { status: res.status, instance: res.headers.get('x-instance') };
    }),
  );

describe('the warm pool of the local stack', () => {
  it('answers every one of many concurrent requests from at most the configured instances, then reuses them warm', async () => {
    const first = await burst(12, '/api/v1/instance');
    expect(first.map((r) => r.status)).toEqual(Array(12).fill(200));
    const instances = new Set(first.map((r) => r.instance));
    expect(instances.has(null)).toBe(false);
    expect(instances.size).toBeGreaterThanOrEqual(1);
    expect(instances.size).toBeLessThanOrEqual(2);

    const second = await burst(12, '/api/v1/instance');
    expect(second.map((r) => r.status)).toEqual(Array(12).fill(200));
    for (const r of second) expect(instances).toContain(r.instance);
  });

  it('keeps instances per function: another function gets instances of its own', async () => {
    const instanceIds = new Set((await burst(4, '/api/v1/instance')).map((r) => r.instance));
    const peers = await burst(4, '/api/v1/instance/peers');
    expect(peers.map((r) => r.status)).toEqual(Array(4).fill(200));
    for (const r of peers) expect(instanceIds.has(r.instance)).toBe(false);
    expect(new Set(peers.map((r) => r.instance)).size).toBeLessThanOrEqual(2);
  });
});
