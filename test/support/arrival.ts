// Waiting for what arrives on its own time (stream events, worker results) by
// checking for it, never by sleeping a fixed time.

/** Waits until a synchronous `probe` holds, checking often: for events a stream delivers into a local array. */
export async function arrival<T>(probe: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
