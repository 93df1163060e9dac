// The suite's runner: for each route of the table, fast-check generates hostile
// requests (arbitraries.ts), sends them to the running stack (send.ts) and checks
// every answer (property.ts). Routes run a few at a time; each route's generator is
// seeded from the run's seed and the route's key, so a route's requests do not
// change when routes are added, and `--seed S --route KEY` replays one route.
import fc from 'fast-check';
import { knownCases, requestArb, type FuzzRequest } from './arbitraries';
import { describeAnswer, describeRequest, problems } from './property';
import type { Route } from './routes';
import { pool, send, wire, type Answer, type Fixtures } from './send';

export type RouteStats = { requests: number; statuses: Map<string, number>; ms: number };

export type Failure = { route: string; report: string };

export type RunResult = {
  routes: number;
  requests: number;
  ms: number;
  perRoute: Map<string, RouteStats>;
  failures: Failure[];
  /** The request after which the stack stopped answering, if it did. */
  stackDown?: string;
};

export type RunOptions = {
  baseUrl: string;
  routes: Route[];
  fixtures: Fixtures;
  /** Requests in all, spread evenly over the routes (shrinking a failure adds some). */
  requests: number;
  seed: number;
  concurrency?: number;
  timeoutMs?: number;
  /** The property (property.ts's `problems` unless told). */
  check?: typeof problems;
};

/** A stable 31-bit hash of a route's key, mixed into the seed. */
const hash = (s: string) => {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 1;
};

export const routeSeed = (seed: number, route: Route) => (seed ^ hash(route.key)) | 0;

export async function fuzz(opts: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const url = new URL(opts.baseUrl);
  const target = { host: url.hostname, port: Number(url.port) };
  const host = url.host;
  const perRoute = new Map<string, RouteStats>();
  const failures: Failure[] = [];
  let requests = 0;
  let stackDown: string | undefined;
  const numRuns = Math.max(1, Math.ceil(opts.requests / opts.routes.length));

  const alive = async () => {
    try {
      const res = await fetch(`${opts.baseUrl}/api/v1/instance`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  };

  const exchange = async (req: FuzzRequest): Promise<Answer> => {
    const answer = await send(target, wire(req, opts.fixtures, host), { hangUpOnStream: req.stream, timeoutMs: opts.timeoutMs ?? 30_000 });
    requests++;
    const stats = perRoute.get(req.route) ?? { requests: 0, statuses: new Map<string, number>(), ms: 0 };
    perRoute.set(req.route, stats);
    stats.requests++;
    stats.ms += answer.ms;
    const key = answer.answered ? String(answer.status) : 'none';
    stats.statuses.set(key, (stats.statuses.get(key) ?? 0) + 1);
    return answer;
  };

  await pool(opts.routes, opts.concurrency ?? 4, async (route) => {
    const seed = routeSeed(opts.seed, route);
    const property = fc.asyncProperty(requestArb(route), async (req) => {
      // Once the stack is down every request fails alike: the one that took it down is the report.
      if (stackDown !== undefined) return;
      const answer = await exchange(req);
      const found = (opts.check ?? problems)(req, answer);
      if (found.length === 0) return;
      if (!answer.answered && !(await alive())) {
        stackDown ??= `${describeRequest(req)}\n  -> ${describeAnswer(answer)}`;
      }
      throw new Error(`${found.join('; ')}\n  -> ${describeAnswer(answer)}`);
    });
    const details = await fc.check(property, { seed, numRuns, examples: knownCases(route).map((req): [FuzzRequest] => [req]) });
    if (details.failed && details.counterexample) {
      const [req] = details.counterexample;
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      failures.push({
        route: route.key,
        report: [
          `${route.key}: after ${details.numRuns} requests (seed ${opts.seed}, route seed ${seed}, shrunk ${details.numShrinks} times)`,
          `  ${describeRequest(req)}`,
          `  ${error}`,
        ].join('\n'),
      });
    }
  });
  return { routes: opts.routes.length, requests, ms: Date.now() - started, perRoute, failures, stackDown };
}

/** Per-route counts of requests and of statuses, as a text table. */
export function statsTable(result: RunResult): string {
  const rows = [...result.perRoute.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(5, ...rows.map(([k]) => k.length));
  const lines = [`${'route'.padEnd(width)}  requests  mean ms  statuses`];
  for (const [key, stats] of rows) {
    const statuses = [...stats.statuses.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`).join(' ');
    lines.push(`${key.padEnd(width)}  ${String(stats.requests).padStart(8)}  ${String(Math.round(stats.ms / stats.requests)).padStart(7)}  ${statuses}`);
  }
  const totals = new Map<string, number>();
  for (const [, stats] of rows) for (const [s, n] of stats.statuses) totals.set(s, (totals.get(s) ?? 0) + n);
  lines.push(`${'all routes'.padEnd(width)}  ${String(result.requests).padStart(8)}  ${' '.repeat(7)}  ${[...totals.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`).join(' ')}`);
  return lines.join('\n');
}
