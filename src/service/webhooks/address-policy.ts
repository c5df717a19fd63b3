// The SSRF rule of D-42: a webhook may not reach a loopback, private, link-local, unique-local
// (or otherwise non-public) address, unless WEBHOOK_ALLOW_PRIVATE=true. Checked on the name at
// registration, and on the address actually connected to at every attempt (so that a name that
// resolves elsewhere later, DNS rebinding, cannot slip through).
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64: an IPv4 address in disguise
  ['2001:db8::', 32], // documentation
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped or IPv4-compatible IPv6 address, if it is one. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:0{0,4}:){0,5}(?:ffff:)?(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(
    address.replace(/^::/, ''),
  );
  if (!match || !/^::(ffff:)?/i.test(address)) return undefined;
  if (match[1]) return match[1];
  const high = Number.parseInt(match[2], 16);
  const low = Number.parseInt(match[3], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address (v4 or v6, no brackets) is one a webhook may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true; // not an address: never connect to it
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined && isIP(v4) === 4) return FORBIDDEN.check(v4, 'ipv4');
  return FORBIDDEN.check(address, 'ipv6');
}

/** A host name that names the machine itself whatever DNS says (RFC 6761). */
export const isLocalName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** The host of a URL as an address or a name (IPv6 without its brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

export class ForbiddenAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_FORBIDDEN';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a loopback, private or link-local address`);
  }
}

/**
 * A `lookup` for node:http(s) requests that refuses a forbidden address: the check is on the
 * address the socket connects to, after resolution.
 */
export const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, options, (error, address, family) => {
    if (error) return callback(error, address, family);
    const all = Array.isArray(address) ? address : [{ address, family }];
    const forbidden = all.find((a) => isForbiddenAddress(a.address));
    if (forbidden) return callback(new ForbiddenAddressError(hostname, forbidden.address), address, family);
    callback(null, address, family);
  });
};

/** The addresses a host name resolves to (all of them), or undefined when it does not resolve in time. */
export function resolveAll(host: string, timeoutMs = 5000): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    dnsLookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(error ? undefined : addresses.map((a) => a.address));
    });
  });
}
