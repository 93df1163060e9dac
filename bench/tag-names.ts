// Time the fan-out worker spends naming a status's tags (lib/timelines/fanout_queue.ts tagNamesOf), once per
// status: a local status's text parsed again with twitter-text (at most 2,500 characters), a remote status's
// (up to 100,000 characters) read word by word. Typical texts and texts written to be costly, p50 and max of
// repeated runs, in this process (no emulator: the naming reads nothing).
// Usage: npm run bench:tag-names
import { tagNamesOf } from '../lib/timelines/fanout_queue';
import { percentile, printTable } from './lib';

const TYPICAL = `Just posted a photo of my cat #Caturday #cats https://example.com/p/123 with @alice and @bob@remote.example ${'lorem ipsum dolor sit amet '.repeat(14)}`;
const fill = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

const cases: { name: string; uri: string | null; text: string; runs: number }[] = [
  { name: 'local, typical (486 chars)', uri: null, text: TYPICAL, runs: 2000 },
  { name: 'local, a.a.a… (2,500)', uri: null, text: `${fill('a.', 2490)} #Tag`, runs: 200 },
  { name: 'local, a-a-…com (2,500)', uri: null, text: `${fill('a-', 2486)}.com #Tag`, runs: 200 },
  { name: 'remote, typical (486)', uri: 'https://remote.example/notes/1', text: TYPICAL, runs: 2000 },
  { name: 'remote, a.a.a… (100,000)', uri: 'https://remote.example/notes/1', text: `${fill('a.', 99_990)} #Tag`, runs: 50 },
  { name: 'remote, a-a-…com (100,000)', uri: 'https://remote.example/notes/1', text: `${fill('a-', 99_986)}.com #Tag`, runs: 50 },
  { name: 'remote, #a#a… (100,000)', uri: 'https://remote.example/notes/1', text: fill('#a', 100_000), runs: 50 },
];

const rows = cases.map(({ name, uri, text, runs }) => {
  const status = { uri, text, tags: ['tag', 'caturday', 'cats', 'a'] };
  for (let i = 0; i < Math.min(runs, 20); i++) tagNamesOf(status);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    tagNamesOf(status);
    ms.push(performance.now() - start);
  }
  return { case: name, runs, 'p50 ms': percentile(ms, 50).toFixed(3), 'max ms': Math.max(...ms).toFixed(3) };
});
printTable(rows);
