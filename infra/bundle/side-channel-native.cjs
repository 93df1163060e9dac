// Stands in for the package `side-channel` in the function bundles (serverless.yml,
// custom.esbuild.alias). qs keeps one per parse to notice cycles; the package reaches WeakMap and
// Map through get-intrinsic, call-bind and a dozen es-* helpers, and describes a missing key with
// object-inspect, all for engines that may lack them: about 38 kB minified in every function that
// reads a request. Node 22 has both. Same interface (assert, delete, get, has, set), objects held
// weakly as there. test/integration/bundle-stand-ins.test.ts compares the two, and qs's parsing
// bundled with this against qs as installed.
'use strict';

const describe = (key) =>
  key && Object(key) === key ? 'the given object key' : typeof key === 'string' ? `'${key}'` : String(key);

module.exports = function getSideChannel() {
  const objects = new WeakMap();
  const others = new Map();
  const store = (key) => (key && (typeof key === 'object' || typeof key === 'function') ? objects : others);
  const channel = {
    assert(key) {
      if (!channel.has(key)) throw new TypeError(`Side channel does not contain ${describe(key)}`);
    },
    delete: (key) => store(key).delete(key),
    get: (key) => store(key).get(key),
    has: (key) => store(key).has(key),
    set(key, value) {
      store(key).set(key, value);
    },
  };
  return channel;
};
