// What every request reads and rarely changes (the instance settings, the custom emoji list), kept in
// the function's memory for a short while: one read per container per MEMO_TTL_MS instead of one per
// request. What request_scope.ts keeps lives one invocation; this lives across invocations, so only
// what is the same for everyone belongs here: never anything of one account or token.
//
// A write made through our own code forgets the entry at once (in this container); a write made
// elsewhere (another container, the operator's CLI) shows within MEMO_TTL_MS. Concurrent first reads
// share one call; a read that fails is not kept, the next caller reads again.

/** How long a kept answer is served before it is read again. */
export const MEMO_TTL_MS = 30_000;

export type Memo<T> = {
  /** The kept answer while it is fresh, else a new read (shared with whoever asks while it is under way). */
  get(): Promise<T>;
  /** Drops the kept answer and any read under way: the next get() reads anew (after a write of ours). */
  forget(): void;
};

export type MemoOptions = {
  /** Milliseconds an answer is kept, counted from when its read began; 0 keeps nothing. */
  ttlMs?: number;
  /** The clock (tests). */
  now?: () => number;
};

const all = new Set<Memo<unknown>>();

/** Forgets every kept answer of this process (tests). */
export const forgetAllMemos = (): void => all.forEach((m) => m.forget());

// While held, a kept answer does not expire (forget() still drops it).
let held = false;

/**
 * Tests that count one request's calls: what the container keeps stays kept until releaseMemos(), however long the
 * request takes on a loaded machine (a 10 s entry read just before a slow request would otherwise be read again in it).
 */
export const holdMemos = (): void => {
  held = true;
};
export const releaseMemos = (): void => {
  held = false;
};

/**
 * Keeps what `read` answers for `ttlMs`; the answer is frozen, since every caller shares it. Made once, at a
 * module's top level (forgetAllMemos() reaches every memo made).
 */
export function memo<T>(read: () => Promise<T>, opts: MemoOptions = {}): Memo<T> {
  const ttlMs = opts.ttlMs ?? MEMO_TTL_MS;
  const now = opts.now ?? (() => Date.now());
  let kept: { value: T; until: number } | undefined;
  let reading: Promise<T> | undefined;
  // Bumped by forget(): a read begun before it must not keep what it got (it may predate the write).
  let generation = 0;

  const get = (): Promise<T> => {
    if (ttlMs <= 0) return read();
    if (kept && (held || now() < kept.until)) return Promise.resolve(kept.value);
    if (reading) return reading;
    const began = now();
    const mine = generation;
    // read() called from a then: a read that throws at once fails the same way as one that rejects.
    const current: Promise<T> = Promise.resolve()
      .then(read)
      .then(
        (value) => {
          if (reading === current) reading = undefined;
          const shared = deepFreeze(value);
          if (generation === mine) kept = { value: shared, until: began + ttlMs };
          return shared;
        },
        (err: unknown) => {
          if (reading === current) reading = undefined;
          throw err;
        },
      );
    reading = current;
    return current;
  };

  const forget = () => {
    generation += 1;
    kept = undefined;
    reading = undefined;
  };

  const m: Memo<T> = { get, forget };
  all.add(m as Memo<unknown>);
  return m;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
