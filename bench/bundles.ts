// The functions of serverless.yml and their bundles as deployed: each handler built by
// esbuild with the deploy settings of serverless.yml's `custom.esbuild` (ESM, minified,
// packages' ES module builds first, the same banner and externals). Used by
// bench/bundle-size.ts and bench/cold-start.ts.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { load } from 'js-yaml';

type EsbuildSettings = {
  external: string[];
  banner: { js: string };
  mainFields: string[];
  target: string;
  alias?: Record<string, string>;
  /** A file exporting an array of esbuild plugins, as serverless-esbuild reads it. */
  plugins?: string;
};

/**
 * serverless.yml's `custom.esbuild` block, parsed alone (the whole file carries CloudFormation
 * tags); variables stay as they are written, and none of the settings used here has one.
 */
export function deploySettings(): EsbuildSettings {
  const lines = readFileSync('serverless.yml', 'utf8').split('\n');
  const start = lines.indexOf('  esbuild:');
  if (start < 0) throw new Error('serverless.yml has no custom.esbuild block');
  const block: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() !== '' && !line.trimStart().startsWith('#') && !line.startsWith('    ')) break;
    block.push(line.slice(4));
  }
  return load(block.join('\n')) as EsbuildSettings;
}

/** Every function of serverless.yml: name → handler source file. */
export function functionsFromGroups(): Map<string, string> {
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

/** Builds one function's bundle as deployed; `outfile` writes it (with its source map), else it is returned in memory. */
export async function buildFunction(entry: string, outfile?: string) {
  const s = deploySettings();
  const options: BuildOptions = {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: s.target,
    format: 'esm',
    mainFields: s.mainFields,
    banner: s.banner,
    minify: true,
    sourcemap: outfile ? 'linked' : false,
    sourcesContent: false,
    external: s.external,
    alias: s.alias,
    plugins: s.plugins ? (createRequire(resolve('package.json'))(resolve(s.plugins)) as Plugin[]) : [],
    logLevel: 'silent',
    metafile: true,
    ...(outfile ? { outfile, write: true } : { write: false }),
  };
  return build(options);
}
