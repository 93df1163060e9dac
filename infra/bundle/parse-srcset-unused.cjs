// Stands in for parse-srcset in the function bundles (serverless.yml, custom.esbuild.alias).
// sanitize-html requires it when it loads, but calls it only for a `srcset` attribute it lets
// through; lib/federation/sanitize.ts allows none (no <img>, no <source>). As with postcss
// (./postcss-unused.cjs), esbuild cannot drop an unused require() of a CommonJS package.
// test/integration/bundle-sanitize.test.ts checks that the bundled sanitiser answers as the
// one with parse-srcset does, srcset attributes included. Should it ever be called, it says why.
'use strict';

module.exports = () => {
  throw new Error('parse-srcset is not bundled: lib/federation/sanitize.ts lets no srcset attribute through');
};
