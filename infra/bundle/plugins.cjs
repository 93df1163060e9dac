// esbuild plugins of the function bundles (serverless.yml, custom.esbuild.plugins; bench/bundles.ts
// builds with them too).
//
// core-js-native: twitter-text 3 imports some twenty core-js 2 polyfills (`core-js/modules/es6.*`) for
// the browsers of 2019. Each patches a global only where the engine lacks the feature, which Node 22
// never does, yet esbuild must keep every one of them (about 29 kB minified) as code with side
// effects. They resolve here to one empty module instead. test/integration/bundle-stand-ins.test.ts
// checks that the bundled status parser answers as twitter-text with its polyfills does.
//
// twitter-text-esm: lib/text/status.ts imports twitter-text's three extractors one file each, from the
// package's CommonJS build, which Node and the tests load. The bundle takes the same files from its ES
// module build instead (dist/esm/, the same code), whose regular expressions esbuild can share and
// drop where unused: about 10 kB less than the CommonJS files, and 26 kB less than the package's index.
// Only where packages are bundled: the local stack leaves them to Node (`packages: external`), which
// would load dist/esm/'s files as CommonJS, the package not being of type module.
'use strict';

const coreJsNative = {
  name: 'core-js-native',
  setup(build) {
    build.onResolve({ filter: /^core-js\/modules\// }, () => ({ path: 'core-js-native', namespace: 'core-js-native' }));
    build.onLoad({ filter: /.*/, namespace: 'core-js-native' }, () => ({
      contents: '// core-js 2 polyfills: every feature they provide is native to Node 22 (infra/bundle/plugins.cjs).\n',
      loader: 'js',
    }));
  },
};

const twitterTextEsm = {
  name: 'twitter-text-esm',
  setup(build) {
    if (build.initialOptions.packages === 'external') return;
    build.onResolve({ filter: /^twitter-text\/dist\/[A-Za-z]+\.js$/ }, (args) =>
      build.resolve(args.path.replace('/dist/', '/dist/esm/'), { kind: args.kind, resolveDir: args.resolveDir }),
    );
  },
};

module.exports = [coreJsNative, twitterTextEsm];
