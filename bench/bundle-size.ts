// Bundle size of every function as deployed (bench/bundles.ts: serverless.yml's esbuild
// settings, minified), largest first, with what weighs most in the largest.
// Usage: npm run bench:bundle          BUNDLE_LIMIT_KB=300 (the ceiling it reports against)
import { gzipSync } from 'node:zlib';
import { buildFunction, functionsFromGroups } from './bundles';
import { printTable } from './lib';

const LIMIT_KB = Number(process.env.BUNDLE_LIMIT_KB ?? 300);
const kB = (bytes: number) => Math.round(bytes / 102.4) / 10;

/** The packages (or our folders) that put the most bytes into a bundle. */
function heaviest(metafile: { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> }, count: number): string {
  const by = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file.split('/').slice(0, 2).join('/');
      by.set(pkg, (by.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, count).map(([pkg, bytes]) => `${pkg} ${kB(bytes)}`).join(', ');
}

async function main() {
  const rows: { fn: string; kB: number; gzip_kB: number; heaviest: string }[] = [];
  for (const [name, entry] of functionsFromGroups()) {
    const result = await buildFunction(entry);
    const code = result.outputFiles![0]!.contents;
    rows.push({ fn: name, kB: kB(code.length), gzip_kB: kB(gzipSync(code).length), heaviest: heaviest(result.metafile!, 4) });
  }
  rows.sort((a, b) => b.kB - a.kB);
  printTable(rows.map((r) => ({ function: r.fn, 'minified kB': r.kB, 'gzip kB': r.gzip_kB, 'heaviest (kB)': r.heaviest })));
  const over = rows.filter((r) => r.kB > LIMIT_KB);
  const sizes = rows.map((r) => r.kB).sort((a, b) => a - b);
  process.stdout.write(
    `\n${rows.length} functions: ${sizes[0]}-${sizes.at(-1)} kB, median ${sizes[Math.floor(sizes.length / 2)]} kB; ${over.length} above ${LIMIT_KB} kB\n` +
      '(native externals sharp and argon2 ship beside the bundles of the functions that import them)\n',
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
