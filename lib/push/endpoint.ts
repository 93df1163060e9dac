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
import { isIP, type LookupFunction } from 'node:net';
import { config } from '../config';
import { checkedLookup, classifyAddress, hostOf, isLoopbackName, type AddressKind } from '../net';

// The classification and the resolver live in lib/net.ts (federation's guard uses them too).
export { classifyAddress, HostUnresolved, ipv6Bytes, useResolver, type AddressKind, type Resolver } from '../net';

export const MAX_ENDPOINT_LENGTH = 2048;

/** Why an endpoint is refused, phrased to follow the field name in a validation message. */
export class EndpointRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EndpointRefused';
  }
}

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
  return checkedLookup((addresses) => assertAllowed(addresses, allowLoopback, plainHttp));
}
