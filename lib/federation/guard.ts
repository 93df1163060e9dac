// The outbound address guard of federation. Every URL we fetch or deliver to
// comes from another server (an actor's inbox, a keyId, a redirect, a search
// query), so each request could be aimed at this network: only public unicast
// addresses over https are reached. Two checks, as for push endpoints
// (lib/push/endpoint.ts): the URL's form and a literal address before
// connecting, and every address a name resolves to inside the connection's own
// DNS lookup, so what is checked is what is connected to (a name that points
// inside now, DNS rebinding, is refused at connect).
//
// On the local stage, and only when FEDERATION_ALLOW_PRIVATE=1, loopback and
// private (RFC 1918, unique-local) addresses are allowed too, and plain http to
// them: two stacks on one machine federate that way. Link-local (the cloud
// metadata address among them) and the other reserved ranges never are.
//
// A preview card's page and image are not federation: Mastodon fetches them over
// plain http too, and so do we (`{ plainHttp: true }`), to public addresses only.
import type { LookupFunction } from 'node:net';
import { config } from '../config';
import { addressesOf, checkedLookup, classifyAddress, hostOf, isAddressLiteral, isLoopbackName, type AddressKind } from '../net';

export const MAX_URL_LENGTH = 2048;

/** Why a destination is refused: nothing was sent, and sending again will not change it. */
export class DestinationRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'DestinationRefused';
  }
}

const allowPrivate = () => config.federationAllowPrivate;
const isInside = (kind: AddressKind) => kind === 'loopback' || kind === 'private';

/** What a request may do besides https to public addresses. */
export type OutboundRules = {
  /** Plain http to public addresses as well (a preview card's page or image, which Mastodon fetches over http too). */
  plainHttp?: boolean;
};

function assertAllowed(addresses: string[], plainHttp: boolean, rules: OutboundRules): void {
  const kinds = addresses.map(classifyAddress);
  const allowed = (kind: AddressKind) => kind === 'public' || (isInside(kind) && allowPrivate());
  if (!kinds.every(allowed)) throw new DestinationRefused('points to a private, loopback, link-local or reserved address');
  // Federation's plain http never leaves the machine's own network, even where it is allowed.
  if (plainHttp && !rules.plainHttp && !kinds.every(isInside)) throw new DestinationRefused('must be an https URL');
}

/**
 * The URL's own rules, and its host when that is a literal address (or `localhost`):
 * absolute https (http only where private addresses are allowed), no credentials,
 * bounded length. Answers the parsed URL; throws DestinationRefused.
 */
export function checkOutboundUrl(raw: string | URL, rules: OutboundRules = {}): URL {
  const text = String(raw);
  if (text.length > MAX_URL_LENGTH) throw new DestinationRefused(`is too long (maximum is ${MAX_URL_LENGTH} characters)`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationRefused('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (allowPrivate() || rules.plainHttp))) throw new DestinationRefused('must be an https URL');
  if (url.username !== '' || url.password !== '') throw new DestinationRefused('must not contain credentials');
  const host = hostOf(url);
  if (host === '') throw new DestinationRefused('is not a valid URL');
  const plainHttp = url.protocol === 'http:';
  if (isAddressLiteral(host)) assertAllowed([host], plainHttp, rules);
  else if (isLoopbackName(host)) assertAllowed(['127.0.0.1'], plainHttp, rules);
  return url;
}

/**
 * Would the guard let a request go to this URL, as far as its form tells (scheme, credentials, length, a literal
 * address or `localhost`)? A URL it refuses is never handed to clients either: a browser shown it would request
 * the viewer's own network (a router, the cloud metadata address) from every timeline that renders it.
 */
export function passesUrlRules(raw: string): boolean {
  try {
    checkOutboundUrl(raw);
    return true;
  } catch (err) {
    if (err instanceof DestinationRefused) return false;
    throw err;
  }
}

/** The `lookup` for a request to `url` (checked by checkOutboundUrl first): refuses any address the rules above refuse. */
export function outboundLookup(url: URL, rules: OutboundRules = {}): LookupFunction {
  const plainHttp = url.protocol === 'http:';
  return checkedLookup((addresses) => assertAllowed(addresses, plainHttp, rules));
}

/**
 * Would plain http be used for this host? Only where private addresses are allowed and every
 * address of the host is loopback or private (WebFinger and search build URLs from a bare
 * `host[:port]`). Resolves the name; false when it does not resolve.
 */
export async function isPrivateHost(host: string): Promise<boolean> {
  if (!allowPrivate()) return false;
  const bare = host.replace(/^\[|\]$/g, '');
  if (isLoopbackName(bare)) return true;
  try {
    return (await addressesOf(bare)).every((a) => isInside(classifyAddress(a)));
  } catch {
    return false;
  }
}
