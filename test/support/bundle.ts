// A module built as the functions ship (bench/bundles.ts: serverless.yml's esbuild settings, stand-ins
// included) and imported, for tests that compare the bundled code with the same code as installed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildFunction } from '../../bench/bundles';

/**
 * Bundles the named exports of the given project files (path → names) into one module and imports it.
 * `inputs` are the files the bundle took in; `remove` deletes it.
 */
export async function bundled<T>(exports: Record<string, string[]>): Promise<{ module: T; inputs: string[]; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    Object.entries(exports)
      .map(([file, names]) => `export { ${names.join(', ')} } from ${JSON.stringify(join(process.cwd(), file))};\n`)
      .join(''),
  );
  const result = await buildFunction(entry, join(dir, 'entry.mjs'));
  return {
    module: (await import(pathToFileURL(join(dir, 'entry.mjs')).href)) as T,
    inputs: Object.keys(result.metafile!.inputs),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
