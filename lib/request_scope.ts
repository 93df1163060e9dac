// What one invocation has already read, so that it reads nothing twice: the viewer's
// filters that both the policy (hide) and the renderer (`filtered`) need, for instance.
// A scope lives as long as one invocation (http(), worker()); outside one, nothing is kept.
// Only reads that may be eventually consistent belong here: a read that must follow a
// write of the same invocation asks the table itself.
import { AsyncLocalStorage } from 'node:async_hooks';

/** Reads under way or done, by key; and facts known without a read (lib/db/viewer_summary.ts). */
type Scope = { reads: Map<string, Promise<unknown>>; facts: Map<string, unknown> };

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` in a fresh scope (one invocation). */
export const inRequestScope = <T>(fn: () => T): T => scopes.run({ reads: new Map(), facts: new Map() }, fn);

/** The answer of `read` under `key`, read at most once per scope (a failed read is not kept). */
export function oncePerRequest<T>(key: string, read: () => Promise<T>): Promise<T> {
  const reads = scopes.getStore()?.reads;
  if (!reads) return read();
  const known = reads.get(key) as Promise<T> | undefined;
  if (known) return known;
  const reading = read();
  reads.set(key, reading);
  reading.catch(() => reads.delete(key));
  return reading;
}

/** Records what a read under `key` would answer, known without reading. */
export function knownInRequest<T>(key: string, value: T): void {
  scopes.getStore()?.reads.set(key, Promise.resolve(value));
}

/** Forgets what the scope read under `key` (after the invocation changed it). */
export function forgetInRequest(key: string): void {
  scopes.getStore()?.reads.delete(key);
}

/** Records a fact this invocation knows without a read. */
export function setFactInRequest(key: string, value: unknown): void {
  scopes.getStore()?.facts.set(key, value);
}

/** A fact recorded in this invocation, or undefined. */
export const factInRequest = (key: string): unknown => scopes.getStore()?.facts.get(key);
