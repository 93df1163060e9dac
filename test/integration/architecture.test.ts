// The layers of ARCHITECTURE.md, checked on the code's own imports: the folders of lib/
// import each other without a loop, and the data layer and the policy import only what
// lies below them. Imports are read with TypeScript's own pre-processor (static imports,
// re-exports and dynamic imports alike).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
const lib = join(root, 'lib');

/**
 * The modules every layer may use: settings, logging, errors, ids, the AWS clients, paging, schemas, the per-invocation
 * read scope, the per-container memory of shared reads.
 */
const BASE = new Set(['config', 'secrets', 'log', 'errors', 'ids', 'aws', 'crypto', 'paging', 'schema', 'net', 'request_scope', 'memo', 'metrics']);
/** What each layer may import besides itself (ARCHITECTURE.md). */
const ALLOWED: Record<string, (target: string) => boolean> = {
  base: (t) => BASE.has(t),
  db: (t) => BASE.has(t),
  policy: (t) => BASE.has(t) || t === 'db',
  queue: (t) => BASE.has(t),
};

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });

/** A module's unit: its folder under lib/, or the file's own name for a file at lib/'s top. */
const unitOf = (file: string): string => {
  const parts = relative(lib, file).split('/');
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.ts$/, '');
};

/** unit -> the units it imports, with one importing file each, for the failure message. */
function importGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(lib)) {
    const from = unitOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName);
      if (!target.startsWith(`${lib}/`)) continue;
      const to = unitOf(target.endsWith('.ts') ? target : `${target}.ts`);
      if (to !== from && !edges.has(to)) edges.set(to, relative(root, file));
    }
  }
  return graph;
}

/** Strongly connected components with more than one unit: the loops. */
function loops(graph: Map<string, Map<string, string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the layers of lib/', () => {
  const graph = importGraph();

  it('finds the modules it checks', () => {
    for (const unit of ['db', 'http', 'policy', 'paging', 'queue', 'statuses', 'timelines']) expect(graph.has(unit)).toBe(true);
  });

  it('has no import loop between folders', () => {
    const described = loops(graph).map((component) =>
      component.flatMap((a) => component.filter((b) => graph.get(a)?.has(b)).map((b) => `${a} -> ${b} (${graph.get(a)!.get(b)})`)),
    );
    expect(described).toEqual([]);
  });

  it.each(Object.keys(ALLOWED))('lets %s import only what lies below it', (layer) => {
    const units = layer === 'base' ? [...BASE] : [layer];
    const forbidden = units.flatMap((unit) =>
      [...(graph.get(unit) ?? new Map<string, string>()).entries()].filter(([to]) => !ALLOWED[layer]!(to)).map(([to, file]) => `${unit} -> ${to} (${file})`),
    );
    expect(forbidden).toEqual([]);
  });
});

describe('lib/ and what lies outside it', () => {
  it('imports nothing of infra/, bench/, test/ or functions/: the running code stands on lib/ alone', () => {
    const outside = ['infra', 'bench', 'test', 'functions'].map((dir) => `${join(root, dir)}/`);
    const crossing = sources(lib).flatMap((file) =>
      ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles
        .filter(({ fileName }) => fileName.startsWith('.') && outside.some((dir) => resolve(dirname(file), fileName).startsWith(dir)))
        .map(({ fileName }) => `${relative(root, file)} -> ${fileName}`),
    );
    expect(crossing).toEqual([]);
  });
});
