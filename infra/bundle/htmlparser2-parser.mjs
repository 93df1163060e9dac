// Stands in for the package `htmlparser2` in the function bundles (serverless.yml,
// custom.esbuild.alias): its Parser, from the htmlparser2 12 the project depends on, and
// nothing else. Both users want only the Parser: lib/cards/ (import { Parser }) and
// sanitize-html, which calls `new htmlparser.Parser(...)` and nothing more. sanitize-html
// requires its own htmlparser2 8 as CommonJS, which esbuild cannot trim: that copy
// brought domhandler, domutils, dom-serializer and the whole `entities` package (about
// 110 kB minified) into every function that may store remote HTML. Required from CommonJS,
// this module is wrapped whole, so it must export the Parser alone; the relative path
// reaches the file past the package's exports map, which the alias would otherwise loop on.
// test/integration/bundle-sanitize.test.ts checks that the bundled sanitiser answers as
// sanitize-html with its own parser does, on hostile samples and on generated HTML.
export { Parser } from '../../node_modules/htmlparser2/dist/Parser.js';
