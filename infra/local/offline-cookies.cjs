// Preloaded into `serverless offline` by infra/local/start.ts (node --require).
//
// serverless-offline turns each entry of a payload-v2 response's `cookies`
// ("sid=abc; Path=/oauth; HttpOnly; SameSite=Lax") into hapi state whose value
// is everything after the first "=", attributes included, and has hapi's
// @hapi/statehood format it. statehood 8.2.1 rejects any value containing ";"
// (https://github.com/hapijs/statehood/issues/90), so every cookie a handler
// sets became a 500 locally, while API Gateway passes it through as a
// Set-Cookie header unchanged. This restores that: such a value is formatted
// through a placeholder and put back verbatim. With statehood 8.2.0 (or a
// fixed release) the result is the same, and this file can go.
'use strict';

const { createRequire } = require('node:module');
const { join } = require('node:path');

const projectRequire = createRequire(join(process.cwd(), 'package.json'));
const hapiRequire = createRequire(projectRequire.resolve('@hapi/hapi'));
const Statehood = hapiRequire('@hapi/statehood');

const format = Statehood.Definitions.prototype.format;

Statehood.Definitions.prototype.format = async function formatVerbatim(cookies, context) {
  const list = cookies === undefined || cookies === null ? [] : Array.isArray(cookies) ? cookies : [cookies];
  const verbatim = new Map();
  const safe = list.map((cookie, i) => {
    if (!cookie || typeof cookie.value !== 'string' || !cookie.value.includes(';')) return cookie;
    const token = `tootless-cookie-${i}-${process.pid}`;
    verbatim.set(token, cookie.value);
    return { ...cookie, value: token };
  });
  const headers = await format.call(this, safe, context);
  if (verbatim.size === 0) return headers;
  return headers.map((header) => {
    for (const [token, value] of verbatim) header = header.replace(`=${token}`, `=${value}`);
    return header;
  });
};
