// HTTP Signatures as real peers send them (the recorded Fedify requests of
// test/fixtures/activitypub verify as they are), what we sign, and the actor key
// pairs behind our own signatures: made once, sealed at rest, shared by racing first needs.
import { createSign, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { registerAccount } from '../../lib/accounts/register';
import { actorKeysOf, SealedKeyUnreadable } from '../../lib/db/actor_keys';
import * as keys from '../../lib/db/keys';
import { getItem, putItem } from '../../lib/db/table';
import { forgetCachedKeyPairs, instancePublicKey, instanceSigner, loadOrCreateKeyPair, publicKeyOf, signerFor } from '../../lib/federation/keys';
import { digestHeader, parseSignatureHeader, signRequest, verifyRequest, type KeyLookup } from '../../lib/federation/signatures';
import { z } from 'zod';
import { aUser } from '../support/factories';

type Recorded = { method: string; url: string; headers: Record<string, string>; rawBody: string | null; body: unknown };
const fixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../fixtures/activitypub/${name}`, import.meta.url), 'utf8'));

const alice = fixture<{ id: string; publicKey: { id: string; owner: string; publicKeyPem: string } }>('actor-alice.json');
/** The lookup a receiver of Alice's requests would have: her key from her actor document. */
const aliceLookup: KeyLookup = async (keyId) =>
  keyId === alice.publicKey.id ? { publicKeyPem: alice.publicKey.publicKeyPem, ownerUri: alice.publicKey.owner } : undefined;

const RECORDED = ['outgoing-Follow.json', 'outgoing-Create-Note-mention.json', 'outgoing-signed-GET.json'];

const asReceived = (r: Recorded, changes: Partial<{ headers: Record<string, string | undefined>; body: string }> = {}) => ({
  method: r.method,
  path: r.url,
  headers: { ...r.headers, ...changes.headers },
  body: changes.body ?? r.rawBody ?? undefined,
});
const atItsDate = (r: Recorded) => new Date(r.headers.date!);

describe('recorded requests from a Fedify server', () => {
  it.each(RECORDED)('%s verifies with the key of actor-alice.json, on a clock frozen to its Date', async (name) => {
    const recorded = fixture<Recorded>(name);
    const result = await verifyRequest(asReceived(recorded), aliceLookup, atItsDate(recorded));
    expect(result).toEqual({ ok: true, keyId: alice.publicKey.id, ownerUri: alice.id });
  });

  it.each(RECORDED.filter((n) => n !== 'outgoing-signed-GET.json'))('%s: the signed bytes parse to the recorded activity, whose actor owns the key', (name) => {
    const recorded = fixture<Recorded>(name);
    const activity = JSON.parse(recorded.rawBody!);
    expect(activity).toEqual(recorded.body);
    expect(activity.actor).toBe(alice.publicKey.owner);
  });

  const follow = fixture<Recorded>('outgoing-Follow.json');
  const tampered: [string, Partial<{ headers: Record<string, string | undefined>; body: string }>, Date, string][] = [
    ['a tampered body', { body: follow.rawBody!.replace('"Follow"', '"Block"') }, atItsDate(follow), 'digest mismatch'],
    ['a tampered body with its Digest recomputed', { body: follow.rawBody!.replace('"Follow"', '"Block"'), headers: { digest: digestHeader(follow.rawBody!.replace('"Follow"', '"Block"')) } }, atItsDate(follow), 'bad signature'],
    ['a changed signed header (content-type)', { headers: { 'content-type': 'application/json' } }, atItsDate(follow), 'bad signature'],
    ['another host', { headers: { host: 'elsewhere.test' } }, atItsDate(follow), 'bad signature'],
    ['a stale date (61 minutes later)', {}, new Date(atItsDate(follow).getTime() + 61 * 60_000), 'date out of range'],
    ['a date from the future (61 minutes early)', {}, new Date(atItsDate(follow).getTime() - 61 * 60_000), 'date out of range'],
    ['no Date header', { headers: { date: undefined } }, atItsDate(follow), 'missing header date'],
    ['no Digest header', { headers: { digest: undefined } }, atItsDate(follow), 'missing header digest'],
    ['no Signature header', { headers: { signature: undefined } }, atItsDate(follow), 'missing signature'],
  ];
  it.each(tampered)('refuses %s', async (_what, changes, now, reason) => {
    expect(await verifyRequest(asReceived(follow, changes), aliceLookup, now)).toEqual({ ok: false, reason });
  });

  it('accepts a date just inside the hour either way', async () => {
    const date = atItsDate(follow).getTime();
    for (const now of [date + 59 * 60_000, date - 59 * 60_000]) expect((await verifyRequest(asReceived(follow), aliceLookup, new Date(now))).ok).toBe(true);
  });

  it('refuses a signed GET whose path was changed', async () => {
    const get = fixture<Recorded>('outgoing-signed-GET.json');
    const result = await verifyRequest({ ...asReceived(get), path: '/users/someone-else' }, aliceLookup, atItsDate(get));
    expect(result).toEqual({ ok: false, reason: 'bad signature' });
  });
});

// ---- requests signed here, with a key made for the test ----
const pair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
};
const remote = { ...pair(), keyId: 'https://remote.example/users/bob#main-key', owner: 'https://remote.example/users/bob' };
const remoteLookup: KeyLookup = async (keyId) => (keyId === remote.keyId ? { publicKeyPem: remote.publicKeyPem, ownerUri: remote.owner } : undefined);
const NOW = new Date('2026-03-01T12:00:00Z');
const BODY = JSON.stringify({ id: 'https://remote.example/activities/1', type: 'Like', actor: remote.owner, object: 'https://social.example/users/a/statuses/1' });

/** A request signed by hand: any covered headers, any Signature parameters, for the shapes signRequest never makes. */
function handSigned(opts: { names: string[]; params?: (signature: string, names: string) => string; headers?: Record<string, string>; body?: string; method?: string; path?: string }) {
  const method = opts.method ?? 'POST';
  const path = opts.path ?? '/inbox';
  const headers: Record<string, string> = { host: 'social.example', date: NOW.toUTCString(), 'content-type': 'application/activity+json', ...(opts.body !== undefined ? { digest: digestHeader(opts.body) } : {}), ...opts.headers };
  const text = opts.names.map((n) => `${n}: ${n === '(request-target)' ? `${method.toLowerCase()} ${path}` : headers[n]}`).join('\n');
  const signature = createSign('sha256').update(text).sign(remote.privateKeyPem, 'base64');
  const names = opts.names.join(' ');
  headers.signature = opts.params ? opts.params(signature, names) : `keyId="${remote.keyId}",algorithm="rsa-sha256",headers="${names}",signature="${signature}"`;
  return { method, path, headers, body: opts.body };
}
const STANDARD = ['(request-target)', 'host', 'date', 'digest', 'content-type'];

describe('signRequest', () => {
  it('signs (request-target) host date digest content-type for a POST, and the receiver verifies it', async () => {
    const headers = signRequest({ method: 'POST', url: 'https://social.example/users/a/inbox?x=1', body: BODY }, { keyId: remote.keyId, privateKeyPem: remote.privateKeyPem }, NOW);
    expect(headers).toMatchObject({ host: 'social.example', date: NOW.toUTCString(), digest: digestHeader(BODY), 'content-type': 'application/activity+json' });
    expect(parseSignatureHeader(headers.signature!)).toMatchObject({ keyId: remote.keyId, algorithm: 'rsa-sha256', headers: STANDARD });
    const result = await verifyRequest({ method: 'POST', path: '/users/a/inbox?x=1', headers, body: BODY }, remoteLookup, NOW);
    expect(result).toEqual({ ok: true, keyId: remote.keyId, ownerUri: remote.owner });
  });

  it('signs (request-target) host date for a GET, with the port in Host', async () => {
    const headers = signRequest({ method: 'GET', url: 'http://peer.test:3000/users/b' }, { keyId: remote.keyId, privateKeyPem: remote.privateKeyPem }, NOW);
    expect(headers.host).toBe('peer.test:3000');
    expect(headers.digest).toBeUndefined();
    expect(parseSignatureHeader(headers.signature!)?.headers).toEqual(['(request-target)', 'host', 'date']);
    expect((await verifyRequest({ method: 'GET', path: '/users/b', headers }, remoteLookup, NOW)).ok).toBe(true);
  });

  it('signs the content type the caller gives', async () => {
    const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'Content-Type': 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"' }, body: BODY }, remote, NOW);
    expect(headers['content-type']).toBe('application/ld+json; profile="https://www.w3.org/ns/activitystreams"');
    expect((await verifyRequest({ method: 'POST', path: '/inbox', headers, body: Buffer.from(BODY) }, remoteLookup, NOW)).ok).toBe(true);
  });
});

describe('verifyRequest: the shapes peers send', () => {
  const accepted: [string, ReturnType<typeof handSigned>][] = [
    ['parameters in another order, with spaces', handSigned({ names: STANDARD, body: BODY, params: (s, n) => `signature="${s}", headers="${n}", algorithm="rsa-sha256", keyId="${remote.keyId}"` })],
    ['unknown parameters', handSigned({ names: STANDARD, body: BODY, params: (s, n) => `keyId="${remote.keyId}",nonce="abc",algorithm="rsa-sha256",headers="${n}",signature="${s}",extra=token` })],
    ['algorithm hs2019 with an RSA key', handSigned({ names: STANDARD, body: BODY, params: (s, n) => `keyId="${remote.keyId}",algorithm="hs2019",headers="${n}",signature="${s}"` })],
    ['no algorithm', handSigned({ names: STANDARD, body: BODY, params: (s, n) => `keyId="${remote.keyId}",headers="${n}",signature="${s}"` })],
    ['headers in another order and upper case', handSigned({ names: ['date', 'digest', 'host', '(request-target)'], body: BODY, params: (s) => `keyId="${remote.keyId}",algorithm="rsa-sha256",headers="Date Digest Host (request-target)",signature="${s}"` })],
    ['a Digest listing SHA-512 and SHA-256', handSigned({ names: STANDARD, body: BODY, headers: { digest: `SHA-512=${'A'.repeat(86)}==,${digestHeader(BODY)}` } })],
    ['a lower-case digest algorithm name', handSigned({ names: STANDARD, body: BODY, headers: { digest: digestHeader(BODY).replace('SHA-256', 'sha-256') } })],
    ['Authorization: Signature instead of a Signature header', (() => {
      const req = handSigned({ names: STANDARD, body: BODY });
      const { signature, ...rest } = req.headers;
      return { ...req, headers: { ...rest, authorization: `Signature ${signature}` } };
    })()],
  ];
  it.each(accepted)('accepts %s', async (_what, req) => {
    expect(await verifyRequest(req, remoteLookup, NOW)).toEqual({ ok: true, keyId: remote.keyId, ownerUri: remote.owner });
  });

  const refused: [string, ReturnType<typeof handSigned>, string][] = [
    ['host not covered', handSigned({ names: ['(request-target)', 'date', 'digest'], body: BODY }), 'host not signed'],
    ['(request-target) not covered', handSigned({ names: ['host', 'date', 'digest'], body: BODY }), '(request-target) not signed'],
    ['digest not covered with a body', handSigned({ names: ['(request-target)', 'host', 'date'], body: BODY }), 'digest not signed'],
    ['no headers parameter (the default covers date alone)', handSigned({ names: ['date'], body: BODY, params: (s) => `keyId="${remote.keyId}",signature="${s}"` }), '(request-target) not signed'],
    ['a Digest without SHA-256', handSigned({ names: STANDARD, body: BODY, headers: { digest: `SHA-512=${'A'.repeat(86)}==` } }), 'digest mismatch'],
    ['an algorithm we do not take', handSigned({ names: STANDARD, body: BODY, params: (s, n) => `keyId="${remote.keyId}",algorithm="hmac-sha256",headers="${n}",signature="${s}"` }), 'unsupported algorithm'],
    ['a Signature without keyId', handSigned({ names: STANDARD, body: BODY, params: (s, n) => `headers="${n}",signature="${s}"` }), 'malformed signature'],
    ['a Signature that is not a parameter list', handSigned({ names: STANDARD, body: BODY, params: () => 'garbage "unterminated' }), 'malformed signature'],
    ['an unparseable Date', handSigned({ names: STANDARD, body: BODY, headers: { date: 'yesterday' } }), 'bad date'],
    ['a key nobody knows', handSigned({ names: STANDARD, body: BODY, params: (s, n) => `keyId="https://unknown.example/actor#main-key",headers="${n}",signature="${s}"` }), 'unknown key'],
    ['a signature that is not base64 of anything', handSigned({ names: STANDARD, body: BODY, params: (_s, n) => `keyId="${remote.keyId}",headers="${n}",signature="%%%"` }), 'bad signature'],
  ];
  it.each(refused)('refuses %s', async (_what, req, reason) => {
    expect(await verifyRequest(req, remoteLookup, NOW)).toEqual({ ok: false, reason });
  });

  it('refuses a signature made with another key than the named one', async () => {
    const other = pair();
    const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', body: BODY }, { keyId: remote.keyId, privateKeyPem: other.privateKeyPem }, NOW);
    expect(await verifyRequest({ method: 'POST', path: '/inbox', headers, body: BODY }, remoteLookup, NOW)).toEqual({ ok: false, reason: 'bad signature' });
  });
});

describe('verifyRequest: key lookups', () => {
  const signed = () => {
    const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', body: BODY }, { keyId: remote.keyId, privateKeyPem: remote.privateKeyPem }, NOW);
    return { method: 'POST', path: '/inbox', headers, body: BODY };
  };

  it('looks the key up again, once, when the stored one fails (the actor rotated its key)', async () => {
    const stale = pair();
    const calls: boolean[] = [];
    const lookup: KeyLookup = async (_keyId, { refresh }) => {
      calls.push(refresh);
      return { publicKeyPem: refresh ? remote.publicKeyPem : stale.publicKeyPem, ownerUri: remote.owner };
    };
    expect(await verifyRequest(signed(), lookup, NOW)).toEqual({ ok: true, keyId: remote.keyId, ownerUri: remote.owner });
    expect(calls).toEqual([false, true]);
  });

  it('makes no lookup at all for a request that fails the cheap checks', async () => {
    const calls: boolean[] = [];
    const lookup: KeyLookup = async (_k, { refresh }) => (calls.push(refresh), undefined);
    await verifyRequest({ ...signed(), body: `${BODY} ` }, lookup, NOW);
    await verifyRequest(signed(), lookup, new Date(NOW.getTime() + 2 * 3600_000));
    expect(calls).toEqual([]);
  });

  it('does not ask twice for a key the lookup does not find, and a failing lookup is an unknown key', async () => {
    const calls: boolean[] = [];
    const missing: KeyLookup = async (_k, { refresh }) => (calls.push(refresh), undefined);
    expect(await verifyRequest(signed(), missing, NOW)).toEqual({ ok: false, reason: 'unknown key' });
    expect(calls).toEqual([false]);
    const broken: KeyLookup = async () => {
      throw new Error('peer down');
    };
    expect(await verifyRequest(signed(), broken, NOW)).toEqual({ ok: false, reason: 'unknown key' });
  });

  it('refuses when the refreshed key fails too, or is not RSA', async () => {
    const wrong = pair();
    const ed = generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    for (const refreshed of [wrong.publicKeyPem, ed.publicKey, 'not a pem']) {
      const lookup: KeyLookup = async (_k, { refresh }) => ({ publicKeyPem: refresh ? refreshed : wrong.publicKeyPem, ownerUri: remote.owner });
      expect(await verifyRequest(signed(), lookup, NOW)).toEqual({ ok: false, reason: 'bad signature' });
    }
  });
});

describe('actor keys', () => {
  const stored = z.object({ publicKeyPem: z.string(), sealedPrivateKey: z.string() }).passthrough();

  it('makes an RSA-2048 pair on first need, stores the private key sealed, and signs with it under <actor>#main-key', async () => {
    const { account } = await aUser();
    const publicKeyPem = await publicKeyOf(account);
    expect(publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const item = await getItem(keys.actorKeys(account.id), stored, true);
    expect(item?.publicKeyPem).toBe(publicKeyPem);
    expect(JSON.stringify(item)).not.toContain('PRIVATE KEY');
    const signer = await signerFor(account);
    expect(signer.keyId).toBe(`https://social.example/users/${account.username}#main-key`);
    expect(signer.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const headers = signRequest({ method: 'POST', url: 'https://peer.example/inbox', body: BODY }, signer, NOW);
    const lookup: KeyLookup = async () => ({ publicKeyPem, ownerUri: 'https://social.example/users/x' });
    expect((await verifyRequest({ method: 'POST', path: '/inbox', headers, body: BODY }, lookup, NOW)).ok).toBe(true);
    // A new container reads the same pair back rather than making another.
    forgetCachedKeyPairs();
    expect(await publicKeyOf(account)).toBe(publicKeyPem);
    const { createPublicKey } = await import('node:crypto');
    expect(createPublicKey(publicKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('ends two concurrent first needs with one pair that both use', async () => {
    const { account } = await aUser();
    const [a, b, c] = await Promise.all([loadOrCreateKeyPair(account.id), loadOrCreateKeyPair(account.id), loadOrCreateKeyPair(account.id)]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect((await getItem(keys.actorKeys(account.id), stored, true))?.publicKeyPem).toBe(a.publicKeyPem);
  });

  it('makes the pair at registration, in the account\'s own transaction', async () => {
    const { account } = await registerAccount(
      { username: 'keyed_at_signup', email: 'keyed@example.com', password: 'long enough password', agreement: true },
      { confirmed: true, approved: true },
    );
    const keysAtSignup = await actorKeysOf(account.id, { consistent: true });
    expect(keysAtSignup?.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    forgetCachedKeyPairs();
    expect(await publicKeyOf(account)).toBe(keysAtSignup!.publicKeyPem);
  });

  it('seals each private key to its own account: moved to another account, it does not open', async () => {
    const [{ account: one }, { account: two }] = await Promise.all([aUser(), aUser()]);
    await publicKeyOf(one);
    const item = await getItem(keys.actorKeys(one.id), stored, true);
    await putItem({ ...item!, ...keys.actorKeys(two.id) });
    await expect(actorKeysOf(two.id)).rejects.toBeInstanceOf(SealedKeyUnreadable);
  });

  it('gives the instance actor a pair of its own, signing as <base>/actor#main-key', async () => {
    const signer = await instanceSigner();
    expect(signer.keyId).toBe('https://social.example/actor#main-key');
    const publicKeyPem = await instancePublicKey();
    const headers = signRequest({ method: 'GET', url: 'https://peer.example/users/b' }, signer, NOW);
    const lookup: KeyLookup = async () => ({ publicKeyPem, ownerUri: 'https://social.example/actor' });
    expect((await verifyRequest({ method: 'GET', path: '/users/b', headers }, lookup, NOW)).ok).toBe(true);
  });
});
