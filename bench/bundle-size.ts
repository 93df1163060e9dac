// Bundle size of every function as deployed: each handler bundled by esbuild
// with the deploy settings of serverless.yml (ESM, minified, native packages external).
// Usage: npm run bench:bundle
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { printTable } from './lib';

function functionsFromGroups(): Map<string, string> {
  const out = new Map<string, string>();
  for (const group of readdirSync('functions')) {
    const file = join('functions', group, 'functions.yml');
    if (!existsSync(file)) continue;
    // Read by line rather than as YAML: the files carry CloudFormation tags (!GetAtt).
    let current = '';
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const name = /^([A-Za-z0-9]+):\s*$/.exec(line);
      if (name) current = name[1]!;
      const handler = /^\s+handler:\s*(\S+)\s*$/.exec(line);
      if (handler && current) out.set(current, handler[1]!.replace(/\.[^.]+$/, '.ts'));
    }
  }
  return out;
}

async function main() {
  const rows: { fn: string; kB: number; gzip_kB: number }[] = [];
  for (const [name, entry] of functionsFromGroups()) {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      mainFields: ['module', 'main'],
      minify: true,
      write: false,
      external: ['sharp', 'argon2'],
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.contents;
    rows.push({ fn: name, kB: Math.round(code.length / 102.4) / 10, gzip_kB: Math.round(gzipSync(code).length / 102.4) / 10 });
  }
  rows.sort((a, b) => b.kB - a.kB);
  printTable(rows.map((r) => ({ function: r.fn, 'minified kB': r.kB, 'gzip kB': r.gzip_kB })));
  process.stdout.write(`(native externals sharp and argon2 ship beside the bundles of the functions that import them)\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
