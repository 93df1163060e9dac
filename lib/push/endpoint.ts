// Where the server may send push requests. A push endpoint is a URL chosen by
// whoever holds a token, so it is an SSRF vector: it must be https and its host
// must resolve only to public unicast addresses, never to this network (private,
// loopback, link-local, carrier-grade NAT, documentation or otherwise reserved
// ranges). Two checks, as Mastodon does it (it stores the subscription and
// checks where it delivers when it sends):
// - when a subscription is made, only the URL's form (`checkEndpoint`): https, a
//   host, no credentials, a bounded length, and no literal address (or
//   `localhost`) that is not public. Names are not resolved then: a DNS hiccup at
//   that moment must not lose a subscription;
// - when each push is sent, inside the connection's own DNS lookup
//   (`guardedLookup`), every address the name resolves to, so what is checked is
//   what is connected to (a name that now points inside, DNS rebinding, is
//   refused at connect). A name that does not resolve then is an ordinary network
//   failure, retried like any other.
// On the local stage (or when tests ask) loopback is allowed, over plain http too.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { config } from '../config';

export const MAX_ENDPOINT_LENGTH = 2048;

export type AddressKind = 'public' | 'loopback' | 'reserved';

/** Why an endpoint is refused, phrased to follow the field name in a validation message. */
export class EndpointRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EndpointRefused';
  }
}

// ---- address classification ----

type V4Range = [base: number, bits: number];
const v4 = (dotted: string): number => dotted.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const range4 = (cidr: string): V4Range => {
  const [base, bits] = cidr.split('/');
  return [v4(base!), Number(bits)];
};
const inRange4 = (ip: number, [base, bits]: V4Range) => bits === 0 || Math.floor(ip / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits));

const LOOPBACK_V4 = range4('127.0.0.0/8');
// IANA special-purpose IPv4 registry, plus multicast and the reserved class E.
const RESERVED_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24',
  '192.31.196.0/24', '192.52.193.0/24', '192.88.99.0/24', '192.168.0.0/16', '192.175.48.0/24', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
].map(range4);

function classify4(address: string): AddressKind {
  const ip = v4(address);
  if (inRange4(ip, LOOPBACK_V4)) return 'loopback';
  return RESERVED_V4.some((r) => inRange4(ip, r)) ? 'reserved' : 'public';
}

/** The 16 bytes of an IPv6 address (zone index dropped, embedded dotted quad allowed); undefined if malformed. */
export function ipv6Bytes(address: string): number[] | undefined {
  const plain = address.replace(/%.*$/, '');
  if (isIP(plain) !== 6) return undefined;
  let text = plain;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = v4(quad[1]!);
    text = `${text.slice(0, quad.index)}${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const words = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  if (words.length !== 8) return undefined;
  return words.flatMap((w) => {
    const n = parseInt(w, 16);
    return [(n >> 8) & 0xff, n & 0xff];
  });
}

const startsWith = (bytes: number[], prefix: number[], bits: number): boolean => {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((bytes[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
};
const prefix6 = (cidr: string): [number[], number] => {
  const [base, bits] = cidr.split('/');
  return [ipv6Bytes(base!)!, Number(bits)];
};
// Inside global unicast (2000::/3), the special-purpose blocks: IETF protocol
// assignments (Teredo, benchmarking, ORCHID...) and the documentation ranges.
const RESERVED_IN_GLOBAL_V6 = ['2001::/23', '2001:db8::/32', '3fff::/20'].map(prefix6);
const GLOBAL_V6 = prefix6('2000::/3');
const MAPPED_V4 = prefix6('::ffff:0:0/96');
const NAT64 = prefix6('64:ff9b::/96');
const SIX_TO_FOUR = prefix6('2002::/16');

function classify6(address: string): AddressKind {
  const bytes = ipv6Bytes(address);
  if (!bytes) return 'reserved';
  const embedded = (from: number) => bytes.slice(from, from + 4).join('.');
  // Addresses that carry an IPv4 address are what that address is.
  if (startsWith(bytes, ...MAPPED_V4) || startsWith(bytes, ...NAT64)) return classify4(embedded(12));
  if (startsWith(bytes, ...SIX_TO_FOUR)) return classify4(embedded(2));
  if (bytes.every((b, i) => (i === 15 ? b === 1 : b === 0))) return 'loopback';
  if (!startsWith(bytes, ...GLOBAL_V6)) return 'reserved';
  return RESERVED_IN_GLOBAL_V6.some((p) => startsWith(bytes, ...p)) ? 'reserved' : 'public';
}

export function classifyAddress(address: string): AddressKind {
  const plain = address.replace(/^\[|\]$/g, '');
  const family = isIP(plain.replace(/%.*$/, ''));
  if (family === 4) return classify4(plain);
  if (family === 6) return classify6(plain);
  return 'reserved';
}

// ---- name resolution ----

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
let resolver: Resolver = systemResolver;

/** Tests: answer host names from a table of their own instead of the system's resolver (undefined restores it). */
export function useResolver(custom: Resolver | undefined): void {
  resolver = custom ?? systemResolver;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** A name that does not resolve (now): a network failure like a refused connection, not a refused endpoint. */
export class HostUnresolved extends Error {
  readonly code = 'ENOTFOUND';
  constructor(host: string) {
    super(`host ${host} could not be resolved`);
    this.name = 'HostUnresolved';
  }
}

async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  let addresses: string[];
  try {
    addresses = await resolver(host);
  } catch {
    throw new HostUnresolved(host);
  }
  if (addresses.length === 0) throw new HostUnresolved(host);
  return addresses;
}

/** `localhost` and its subdomains are loopback by definition (RFC 6761), whatever a resolver says. */
const isLoopbackName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** Every address must be public, or loopback where the stage allows it. */
function assertAllowed(addresses: string[], allowLoopback: boolean, plainHttp: boolean): void {
  const kinds = addresses.map(classifyAddress);
  const allowed = (kind: AddressKind) => kind === 'public' || (kind === 'loopback' && allowLoopback);
  if (!kinds.every(allowed)) throw new EndpointRefused('must not point to a private, loopback, link-local or reserved address');
  if (plainHttp && !kinds.every((k) => k === 'loopback')) throw new EndpointRefused('must be an https URL');
}

/** The URL's own rules: absolute https (http only where loopback is allowed), no credentials, bounded length. */
export function parseEndpoint(raw: string, allowLoopback = config.pushAllowLoopback): URL {
  if (raw.length > MAX_ENDPOINT_LENGTH) throw new EndpointRefused(`is too long (maximum is ${MAX_ENDPOINT_LENGTH} characters)`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointRefused('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(allowLoopback && url.protocol === 'http:')) throw new EndpointRefused('must be an https URL');
  if (url.username !== '' || url.password !== '') throw new EndpointRefused('must not contain credentials');
  if (hostOf(url) === '') throw new EndpointRefused('is not a valid URL');
  return url;
}

/**
 * Checks an endpoint's form, with nothing resolved: the URL's rules, and a host
 * that is a literal address (or `localhost`) must be one the stage allows. A
 * name is checked when a push is sent, by the connection's lookup
 * (`guardedLookup`). Throws EndpointRefused with the reason; answers the parsed URL.
 */
export async function checkEndpoint(raw: string, allowLoopback = config.pushAllowLoopback): Promise<URL> {
  const url = parseEndpoint(raw, allowLoopback);
  const host = hostOf(url);
  const plainHttp = url.protocol === 'http:';
  if (isIP(host.replace(/%.*$/, ''))) assertAllowed([host], allowLoopback, plainHttp);
  else if (isLoopbackName(host)) assertAllowed(['127.0.0.1'], allowLoopback, plainHttp);
  return url;
}

/**
 * A `lookup` for http(s).request: resolves with the same resolver and refuses
 * the connection unless every address is allowed, so what is checked is what
 * is connected to. A name that does not resolve fails as DNS failures do
 * (ENOTFOUND), so the sender retries it. (IP-literal hosts never reach a lookup:
 * checkEndpoint covers them.)
 */
export function guardedLookup(allowLoopback = config.pushAllowLoopback, plainHttp = false): LookupFunction {
  return (hostname, options, callback) => {
    addressesOf(hostname)
      .then((addresses) => {
        assertAllowed(addresses, allowLoopback, plainHttp);
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) return callback(null, entries);
        const wanted = options.family === 4 || options.family === 6 ? entries.find((e) => e.family === options.family) : entries[0];
        if (!wanted) return callback(Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        callback(null, wanted.address, wanted.family);
      })
      .catch((err: Error) => callback(err as NodeJS.ErrnoException, '', 0));
  };
}
