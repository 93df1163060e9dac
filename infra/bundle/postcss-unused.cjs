// Stands in for postcss in the function bundles (serverless.yml, custom.esbuild.alias).
// sanitize-html requires postcss when it loads, but calls it only to parse a `style`
// attribute it lets through with parseStyleAttributes on; lib/federation/sanitize.ts lets
// no style attribute through and turns the parsing off. esbuild cannot drop an unused
// require() of a CommonJS package, so without this every function that may store remote
// HTML carried postcss and source-map-js (about 90 kB minified) for nothing.
// test/integration/bundle-sanitize.test.ts checks that the bundled sanitiser answers as
// the one with postcss does. Should it ever be called, it says why rather than guess.
'use strict';

const unused = () => {
  throw new Error('postcss is not bundled: lib/federation/sanitize.ts parses no style attribute (parseStyleAttributes: false)');
};

module.exports = { parse: unused, default: unused };
