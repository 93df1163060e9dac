// lib/memo.ts: what every request reads, kept per container for a while. The clock is the test's.
import { MEMO_TTL_MS, forgetAllMemos, holdMemos, memo, releaseMemos } from '../../lib/memo';

/** A read that counts its calls and answers what `next` says (a value, or an error to throw). */
function counted<T>(answer: (n: number) => T | Error) {
  let calls = 0;
  const read = async () => {
    calls += 1;
    const out = answer(calls);
    if (out instanceof Error) throw out;
    return out;
  };
  return { read, calls: () => calls };
}

/** A read that waits until the test lets it finish. */
function gated<T>(value: T) {
  let calls = 0;
  const waiting: Array<{ resolve: (v: T) => void; reject: (e: unknown) => void }> = [];
  const read = () => {
    calls += 1;
    return new Promise<T>((resolve, reject) => waiting.push({ resolve, reject }));
  };
  return {
    read,
    calls: () => calls,
    finish: (v: T = value) => waiting.shift()!.resolve(v),
    fail: (e: unknown) => waiting.shift()!.reject(e),
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('memo', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('keeps 30 s unless told otherwise', () => {
    expect(MEMO_TTL_MS).toBe(30_000);
  });

  it('reads once while the answer is fresh, again once the TTL has passed', async () => {
    const source = counted((n) => ({ version: n }));
    const m = memo(source.read, { ttlMs: 1000, now });
    expect(await m.get()).toEqual({ version: 1 });
    clock += 999;
    expect(await m.get()).toEqual({ version: 1 });
    expect(source.calls()).toBe(1);
    clock += 1;
    expect(await m.get()).toEqual({ version: 2 });
    expect(source.calls()).toBe(2);
    clock += 500;
    expect(await m.get()).toEqual({ version: 2 });
    expect(source.calls()).toBe(2);
  });

  it('counts the TTL from when the read began, not when it ended', async () => {
    const source = gated('a');
    const m = memo(source.read, { ttlMs: 1000, now });
    const first = m.get();
    clock += 800; // a slow read
    await flush();
    source.finish();
    expect(await first).toBe('a');
    clock += 200;
    const again = m.get();
    await flush();
    expect(source.calls()).toBe(2);
    source.finish('b');
    expect(await again).toBe('b');
  });

  it('shares one read among concurrent first callers', async () => {
    const source = gated({ rules: ['be kind'] });
    const m = memo(source.read, { ttlMs: 1000, now });
    const answers = Promise.all([m.get(), m.get(), m.get()]);
    await flush();
    expect(source.calls()).toBe(1);
    source.finish();
    const [a, b, c] = await answers;
    expect(a).toEqual({ rules: ['be kind'] });
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(source.calls()).toBe(1);
  });

  it('keeps no failure: every caller of the failed read sees it, the next caller reads again', async () => {
    const source = gated('ok');
    const m = memo(source.read, { ttlMs: 1000, now });
    const both = [m.get(), m.get()];
    await flush();
    source.fail(new Error('throttled'));
    await expect(both[0]).rejects.toThrow('throttled');
    await expect(both[1]).rejects.toThrow('throttled');
    const retried = m.get();
    await flush();
    expect(source.calls()).toBe(2);
    source.finish();
    expect(await retried).toBe('ok');
    expect(await m.get()).toBe('ok');
    expect(source.calls()).toBe(2);
  });

  it('keeps no failure of a read that throws before it returns a promise', async () => {
    let calls = 0;
    const m = memo(
      () => {
        calls += 1;
        if (calls === 1) throw new Error('at once');
        return Promise.resolve('fine');
      },
      { ttlMs: 1000, now },
    );
    await expect(m.get()).rejects.toThrow('at once');
    expect(await m.get()).toBe('fine');
    expect(await m.get()).toBe('fine');
    expect(calls).toBe(2);
  });

  it('forget() makes the next caller read anew, before the TTL', async () => {
    const source = counted((n) => n);
    const m = memo(source.read, { ttlMs: 1000, now });
    expect(await m.get()).toBe(1);
    m.forget();
    expect(await m.get()).toBe(2);
    expect(await m.get()).toBe(2);
    expect(source.calls()).toBe(2);
  });

  it('forget() during a read: that read keeps nothing, and later callers do not join it', async () => {
    const source = gated('before the write');
    const m = memo(source.read, { ttlMs: 1000, now });
    const early = m.get();
    await flush();
    m.forget(); // a write landed while the read was under way: what it answers may predate the write
    const late = m.get();
    await flush();
    expect(source.calls()).toBe(2);
    source.finish();
    source.finish('after the write');
    expect(await early).toBe('before the write');
    expect(await late).toBe('after the write');
    expect(await m.get()).toBe('after the write');
    expect(source.calls()).toBe(2);
  });

  it('forgetAllMemos() forgets every memo', async () => {
    const one = counted((n) => n);
    const two = counted((n) => n * 10);
    const a = memo(one.read, { ttlMs: 1000, now });
    const b = memo(two.read, { ttlMs: 1000, now });
    await Promise.all([a.get(), b.get()]);
    forgetAllMemos();
    expect([await a.get(), await b.get()]).toEqual([2, 20]);
  });

  it('holdMemos() keeps what is kept past its TTL until releaseMemos(); forget() still drops it', async () => {
    const source = counted((n) => n);
    const m = memo(source.read, { ttlMs: 1000, now });
    expect(await m.get()).toBe(1);
    holdMemos();
    try {
      clock += 5000;
      expect(await m.get()).toBe(1);
      m.forget();
      expect(await m.get()).toBe(2);
      clock += 5000;
      expect(await m.get()).toBe(2);
    } finally {
      releaseMemos();
    }
    expect(await m.get()).toBe(3);
    expect(source.calls()).toBe(3);
  });

  it('with a TTL of 0, keeps nothing', async () => {
    const source = counted((n) => n);
    const m = memo(source.read, { ttlMs: 0, now });
    expect([await m.get(), await m.get()]).toEqual([1, 2]);
  });

  it('freezes the shared answer, so that no caller changes it for the others', async () => {
    const m = memo(async () => ({ title: 'Tootless', rules: [{ id: '1', text: 'Be kind' }] }), { ttlMs: 1000, now });
    const settings = await m.get();
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.rules)).toBe(true);
    expect(Object.isFrozen(settings.rules[0])).toBe(true);
    expect(() => settings.rules.push({ id: '2', text: 'No spam' })).toThrow(TypeError);
    expect((await m.get()).rules).toHaveLength(1);
  });
});
