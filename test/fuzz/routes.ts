// The routes to fuzz, read from the route table itself (functions/*/functions.yml),
// so that an endpoint added there is covered without anyone listing it here:
// every `httpApi` event (API Gateway's routes, the `'*'` catch-all included) and
// every `streamRoutes` entry (server-sent-event streams, served by the front
// server on the local stack). WebSocket routes are not HTTP requests and are left out.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, defineMappingTag, defineScalarTag, defineSequenceTag, load } from 'js-yaml';
import { z } from 'zod';

export type Route = {
  /** 'GET', 'POST', ...; 'ANY' for the catch-all. */
  method: string;
  /** '/api/v1/statuses/{id}'; '*' for the catch-all. */
  path: string;
  /** Names of the `{param}` segments, in order. */
  params: string[];
  /** Server-sent events: read the status and headers only, then hang up. */
  stream: boolean;
  /** The function that serves it (`statusesShow`). */
  fn: string;
  /** 'POST /api/v1/statuses', as the table writes it. */
  key: string;
};

// CloudFormation's short-form intrinsics (`!GetAtt Queue.Arn`) appear in the worker
// groups; their values do not matter here, only that the file loads.
const cfnTags = [
  defineScalarTag('!', { matchByTagPrefix: true, resolve: (s) => s, identify: () => false }),
  defineSequenceTag<unknown[]>('!', {
    matchByTagPrefix: true,
    create: () => [],
    addItem: (items, item) => void items.push(item),
    identify: () => false,
  }),
  defineMappingTag<Map<unknown, unknown>>('!', {
    matchByTagPrefix: true,
    create: () => new Map(),
    addPair: (m, k, v) => (m.set(k, v), ''),
    has: (m, k) => m.has(k),
    keys: (m) => m.keys(),
    get: (m, k) => m.get(k),
    identify: () => false,
  }),
];
const schema = CORE_SCHEMA.withTags(cfnTags);

// One spelling for every route: `httpApi: 'METHOD /path'` (or `'*'`, the catch-all).
const httpApiEvent = z.string();
const functionSchema = z.object({
  events: z.array(z.record(z.unknown())).optional(),
  streamRoutes: z.array(z.string()).optional(),
}).passthrough();

const root = fileURLToPath(new URL('../..', import.meta.url));

function route(fn: string, method: string, path: string, stream: boolean): Route {
  const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const key = path === '*' ? '*' : `${method} ${path}`;
  return { method: method.toUpperCase(), path, params, stream, fn, key };
}

/** Every HTTP route of the service, sorted by key. */
export function loadRoutes(dir = join(root, 'functions')): Route[] {
  const out: Route[] = [];
  for (const group of readdirSync(dir, { withFileTypes: true })) {
    if (!group.isDirectory()) continue;
    let text: string;
    try {
      text = readFileSync(join(dir, group.name, 'functions.yml'), 'utf8');
    } catch {
      continue;
    }
    const functions = z.record(functionSchema).parse(load(text, { schema }) ?? {});
    for (const [fn, def] of Object.entries(functions)) {
      for (const event of def.events ?? []) {
        if (!('httpApi' in event)) continue;
        const spec = httpApiEvent.parse(event.httpApi).trim();
        if (spec === '*') out.push(route(fn, 'ANY', '*', false));
        else {
          const [method = '', path = ''] = spec.split(/\s+/);
          out.push(route(fn, method, path, false));
        }
      }
      for (const line of def.streamRoutes ?? []) {
        const [method = '', path = ''] = line.trim().split(/\s+/);
        out.push(route(fn, method, path, true));
      }
    }
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
