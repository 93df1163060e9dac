// What one invocation has already read, so that it reads nothing twice: the viewer's
// filters that both the policy (hide) and the renderer (`filtered`) need, for instance.
// A scope lives as long as one invocation (http(), worker()); outside one, nothing is kept.
// Only reads that may be eventually consistent belong here: a read that must follow a
// write of the same invocation asks the table itself.
import { AsyncLocalStorage } from 'node:async_hooks';

const scopes = new AsyncLocalStorage<Map<string, Promise<unknown>>>();
/** Facts known synchronously in the same scope (by scope map). */
const facts = new WeakMap<Map<string, Promise<unknown>>, Map<string, unknown>>();

/** Runs `fn` in a fresh scope (one invocation). */
export const inRequestScope = <T>(fn: () => T): T => scopes.run(new Map(), fn);

/** Records a fact this invocation knows without a read (lib/db/viewer_summary.ts). */
export function setFactInRequest(key: string, value: unknown): void {
  const scope = scopes.getStore();
  if (!scope) return;
  const known = facts.get(scope) ?? new Map<string, unknown>();
  known.set(key, value);
  facts.set(scope, known);
}

/** A fact recorded in this invocation, or undefined. */
export function factInRequest(key: string): unknown {
  const scope = scopes.getStore();
  return scope ? facts.get(scope)?.get(key) : undefined;
}

/** The answer of `read` under `key`, read at most once per scope (a failed read is not kept). */
export function oncePerRequest<T>(key: string, read: () => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  if (!scope) return read();
  const known = scope.get(key) as Promise<T> | undefined;
  if (known) return known;
  const reading = read();
  scope.set(key, reading);
  reading.catch(() => scope.delete(key));
  return reading;
}

/** Forgets what the scope read under `key` (after the invocation changed it). */
export function forgetInRequest(key: string): void {
  scopes.getStore()?.delete(key);
}

/** Records what a read under `key` would answer, known without reading (lib/db/viewer_summary.ts). */
export function knownInRequest<T>(key: string, value: T): void {
  scopes.getStore()?.set(key, Promise.resolve(value));
}
