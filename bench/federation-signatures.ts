// What an HTTP Signature costs per request, in-process, one core: signing an
// outgoing POST (RSA-2048, as our actors), verifying an incoming one with the key
// already known (the inbox's common case: header parsing, Digest, Date, RSA
// verify), and verifying the recorded Fedify requests of test/fixtures (RSA-4096,
// their clock frozen to the recorded Date). No table: the key lookup answers from memory.
// Usage: npx tsx bench/federation-signatures.ts   (SIG_RUNS=1000 by default, at least 500)
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { percentile, printTable } from './lib';

const RUNS = Math.max(500, Number(process.env.SIG_RUNS ?? 1000));
const WARMUP = 50;

type Recorded = { method: string; url: string; headers: Record<string, string>; rawBody: string | null };
const fixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../test/fixtures/activitypub/${name}`, import.meta.url), 'utf8'));

/** Runs `fn` WARMUP + RUNS times, timing each of the RUNS; answers µs per run (median and p99). */
async function time(name: string, fn: () => unknown): Promise<Record<string, string | number>> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const us: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    us.push((performance.now() - started) * 1000);
  }
  return { operation: name, runs: RUNS, 'median µs': percentile(us, 50).toFixed(0), 'p99 µs': percentile(us, 99).toFixed(0) };
}

async function main() {
  const { signRequest, verifyRequest } = await import('../lib/federation/signatures');
  type KeyLookup = import('../lib/federation/signatures').KeyLookup;

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const signer = { keyId: 'https://remote.example/users/bob#main-key', privateKeyPem: privateKey };
  const ours: KeyLookup = async () => ({ publicKeyPem: publicKey, ownerUri: 'https://remote.example/users/bob' });
  // A Create(Note) of about the size real ones have (2 KB of JSON).
  const body = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: 'https://remote.example/users/bob/statuses/1/activity',
    type: 'Create',
    actor: 'https://remote.example/users/bob',
    to: ['https://www.w3.org/ns/activitystreams#Public'],
    object: { id: 'https://remote.example/users/bob/statuses/1', type: 'Note', content: `<p>${'lorem ipsum '.repeat(150)}</p>` },
  });
  const url = 'https://social.example/users/alice/inbox';
  const signed = { method: 'POST', path: '/users/alice/inbox', headers: signRequest({ method: 'POST', url, body }, signer), body };
  const check = await verifyRequest(signed, ours);
  if (!check.ok) throw new Error(`our own request does not verify: ${check.reason}`);

  const alice = fixture<{ publicKey: { id: string; owner: string; publicKeyPem: string } }>('actor-alice.json');
  const theirs: KeyLookup = async () => ({ publicKeyPem: alice.publicKey.publicKeyPem, ownerUri: alice.publicKey.owner });
  const recorded = (name: string) => {
    const r = fixture<Recorded>(name);
    return { req: { method: r.method, path: r.url, headers: r.headers, body: r.rawBody ?? undefined }, now: new Date(r.headers.date!) };
  };
  const create = recorded('outgoing-Create-Note-mention.json');
  const get = recorded('outgoing-signed-GET.json');
  for (const [name, r] of [['Create', create], ['GET', get]] as const) {
    const result = await verifyRequest(r.req, theirs, r.now);
    if (!result.ok) throw new Error(`fixture ${name} does not verify: ${result.reason}`);
  }

  const rows = [
    await time(`sign POST (RSA-2048, ${body.length} B body)`, () => signRequest({ method: 'POST', url, body }, signer)),
    await time('verify POST (RSA-2048, key known)', async () => {
      if (!(await verifyRequest(signed, ours)).ok) throw new Error('verify failed');
    }),
    await time('verify fixture Create(Note) (Fedify, RSA-4096)', async () => {
      if (!(await verifyRequest(create.req, theirs, create.now)).ok) throw new Error('verify failed');
    }),
    await time('verify fixture signed GET (Fedify, RSA-4096)', async () => {
      if (!(await verifyRequest(get.req, theirs, get.now)).ok) throw new Error('verify failed');
    }),
  ];
  process.stdout.write(`\nHTTP Signatures, in-process (${process.version}, one core; ${RUNS} timed runs after ${WARMUP} warm-up):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
