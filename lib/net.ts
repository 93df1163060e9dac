// Where the server may connect when a URL comes from outside (a push endpoint, a
// remote server's inbox or actor): the classification of IP addresses and the
// name resolution that feeds it. Shared by lib/push/endpoint.ts and
// lib/federation/guard.ts, which each decide which kinds their stage allows and
// check them inside the connection's own DNS lookup, so that what is checked is
// what is connected to.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * public: global unicast. loopback: 127/8, ::1. private: RFC 1918 and IPv6 unique-local
 * (a LAN or a container network). reserved: everything else special-purpose (link-local,
 * with the cloud metadata address, carrier-grade NAT, documentation, multicast...).
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'reserved';

// ---- address classification ----

type V4Range = [base: number, bits: number];
const v4 = (dotted: string): number => dotted.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const range4 = (cidr: string): V4Range => {
  const [base, bits] = cidr.split('/');
  return [v4(base!), Number(bits)];
};
const inRange4 = (ip: number, [base, bits]: V4Range) => bits === 0 || Math.floor(ip / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits));

const LOOPBACK_V4 = range4('127.0.0.0/8');
const PRIVATE_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'].map(range4);
// IANA special-purpose IPv4 registry, plus multicast and the reserved class E.
const RESERVED_V4 = [
  '0.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '192.0.0.0/24', '192.0.2.0/24',
  '192.31.196.0/24', '192.52.193.0/24', '192.88.99.0/24', '192.175.48.0/24', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
].map(range4);

function classify4(address: string): AddressKind {
  const ip = v4(address);
  if (inRange4(ip, LOOPBACK_V4)) return 'loopback';
  if (PRIVATE_V4.some((r) => inRange4(ip, r))) return 'private';
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
const UNIQUE_LOCAL_V6 = prefix6('fc00::/7');
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
  if (startsWith(bytes, ...UNIQUE_LOCAL_V6)) return 'private';
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

/** A URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Is the host an IP literal (rather than a name to resolve)? */
export const isAddressLiteral = (host: string) => isIP(host.replace(/^\[|\]$/g, '').replace(/%.*$/, '')) !== 0;

/** `localhost` and its subdomains are loopback by definition (RFC 6761), whatever a resolver says. */
export const isLoopbackName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** A name that does not resolve (now): a network failure like a refused connection, not a refused destination. */
export class HostUnresolved extends Error {
  readonly code = 'ENOTFOUND';
  constructor(host: string) {
    super(`host ${host} could not be resolved`);
    this.name = 'HostUnresolved';
  }
}

/** Every address of a host (an IP literal is its own); HostUnresolved when there are none. */
export async function addressesOf(host: string): Promise<string[]> {
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

/**
 * A `lookup` for http(s).request that resolves with the resolver above and hands the
 * addresses to `check` first, which throws to refuse the connection. A name that does
 * not resolve fails as DNS failures do (ENOTFOUND). IP-literal hosts never reach a
 * lookup: callers check those themselves before connecting.
 */
export function checkedLookup(check: (addresses: string[]) => void): LookupFunction {
  return (hostname, options, callback) => {
    addressesOf(hostname)
      .then((addresses) => {
        check(addresses);
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) return callback(null, entries);
        const wanted = options.family === 4 || options.family === 6 ? entries.find((e) => e.family === options.family) : entries[0];
        if (!wanted) return callback(Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        callback(null, wanted.address, wanted.family);
      })
      .catch((err: Error) => callback(err as NodeJS.ErrnoException, '', 0));
  };
}

// ---- address ranges (the operator's IP rules) ----
// Parsing, masking and matching of IPv4 and IPv6 ranges is ipaddr.js's (the parser Express's proxy-addr uses):
// IPv6 has compressed, embedded-IPv4 and mapped forms enough that a second hand-written parser would drift.
// Node's own isIP decides what is an address at all (ipaddr.js also reads "127.1" or hex octets as IPv4).

/** A range in canonical form (`192.0.2.0/24`, `2001:db8::/32`: masked, compressed), or undefined when it is not one. */
export function canonicalCidr(input: string): string | undefined {
  const [address = '', bits, ...rest] = input.trim().split('/');
  if (rest.length > 0) return undefined;
  const family = isIP(address);
  if (family === 0) return undefined;
  const max = family === 4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return undefined;
  const bytes = ipaddr.parse(address).toByteArray();
  const masked = bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return `${ipaddr.fromByteArray(masked).toString()}/${prefix}`;
}

/** Does the canonical range hold the address (an IPv4-mapped IPv6 address is its IPv4 one)? */
export function cidrContains(cidr: string, address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(plain) === 0) return false;
  const [base, bits] = ipaddr.parseCIDR(cidr);
  const ip = ipaddr.process(plain);
  return ip.kind() === base.kind() && ip.match(base, bits);
}
