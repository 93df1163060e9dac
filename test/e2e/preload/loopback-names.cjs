// Preloaded into the local stack's functions by test/e2e/masto-v4.test.ts (FUNCTION_NODE_OPTIONS, which
// serverless.yml's local stage gives the functions as NODE_OPTIONS: `--require` this file):
// every name under `loopback.example.com` resolves to 127.0.0.1, as an /etc/hosts line would make it.
// The test's web page listens on loopback, but a status only links a URL whose host has a real
// top-level domain (twitter-text's rule, Mastodon's too): `http://127.0.0.1:port/` stays plain text
// and gets no card. With this, `http://tides.loopback.example.com:port/` is linked, and the card
// worker reaches the page through the outbound guard as it would any host that resolves to
// loopback (allowed on the local stage with FEDERATION_ALLOW_PRIVATE=1). Nothing else changes.
'use strict';
const dns = require('node:dns');

const SUFFIX = '.loopback.example.com';
const ours = (hostname) => typeof hostname === 'string' && hostname.toLowerCase().endsWith(SUFFIX);
const LOOPBACK = { address: '127.0.0.1', family: 4 };
const wantsAll = (options) => typeof options === 'object' && options !== null && options.all === true;

const lookupPromise = dns.promises.lookup;
dns.promises.lookup = function lookup(hostname, options) {
  if (!ours(hostname)) return lookupPromise.call(this, hostname, options);
  return Promise.resolve(wantsAll(options) ? [LOOPBACK] : LOOPBACK);
};

const lookupCallback = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  if (!ours(hostname)) return lookupCallback.call(this, hostname, options, callback);
  const done = typeof options === 'function' ? options : callback;
  process.nextTick(() => (wantsAll(options) ? done(null, [LOOPBACK]) : done(null, LOOPBACK.address, LOOPBACK.family)));
  return {};
};

// Handlers bundled as ES modules import `lookup` by name: let their view of node:dns follow.
require('node:module').syncBuiltinESMExports();
